// A coordinator's Runs page (docs/history.md): the runs of its run history
// (every run it finished, also before a restart) over HTTP, beside the live
// dashboard:
//   /api/history             the plans: runs, the last run and its result
//   /api/history/PLAN        a plan's runs, numbers and change points (the
//                            data of history.html?plan=PLAN)
//   /runs/DIR/report.html    a run's report, from its results directory
#ifndef STAMPEDE_COORDINATOR_HISTORY_PAGES_H_
#define STAMPEDE_COORDINATOR_HISTORY_PAGES_H_

#include <optional>
#include <string>

#include "web/http_server.h"

namespace stampede::coordinator {

// The response for target if it is one of the above, else nothing.
// history: the run history's location; results_root: where the runs'
// directories are.
std::optional<web::HttpResponse> HistoryPage(const std::string& target, const std::string& history,
                                             const std::string& results_root);

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_HISTORY_PAGES_H_

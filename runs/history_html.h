// A plan's runs as one self-contained page (stampede history PLAN --html
// FILE, docs/history.md): uPlot and the page's script inlined as in
// report.html, one chart per tracked number over the runs with its change
// points marked, each point linking to that run's report.html while its
// results directory is there.
#ifndef STAMPEDE_RUNS_HISTORY_HTML_H_
#define STAMPEDE_RUNS_HISTORY_HTML_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runs/run_record.h"
#include "runs/trends.h"

namespace stampede::runs {

// The page's data: report links relative to page_dir (the page's own
// directory), "" where a run's report.html is gone.
nlohmann::json HistoryView(const std::string& plan, const std::vector<RunRecord>& runs,
                           const std::vector<LevelChange>& changes, const std::string& page_dir);
// The same with each run's link as link(run) gives it (a coordinator's
// dashboard serves the reports itself).
nlohmann::json HistoryView(const std::string& plan, const std::vector<RunRecord>& runs,
                           const std::vector<LevelChange>& changes,
                           const std::function<std::string(const RunRecord&)>& link);
std::string RenderHistoryHtml(const nlohmann::json& view);

}  // namespace stampede::runs

#endif  // STAMPEDE_RUNS_HISTORY_HTML_H_

// report.html: the dashboard page drawn once from a finished run's view,
// self-contained (styles, uPlot and the data inline: no network), with the
// tables of report.md, the recovery section and the plan as run.
#ifndef STAMPEDE_REPORT_REPORT_HTML_H_
#define STAMPEDE_REPORT_REPORT_HTML_H_

#include <string>

#include "report/journal.h"

namespace stampede::report {

// view: BuildRunView(), with "plan_yaml" set to show the plan.
std::string RenderReportHtml(const Json& view);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_REPORT_HTML_H_

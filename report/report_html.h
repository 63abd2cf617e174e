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

// A page of the dashboard's files made self-contained: each of its
// stylesheet and script references to an embedded file (web/assets.h)
// replaced by that file's text, and `data` set as window.NAME before the
// page's scripts run (for the history page, runs/history_html.h).
std::string InlinePage(const std::string& page, const std::string& data_name, const Json& data,
                       const std::string& title);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_REPORT_HTML_H_

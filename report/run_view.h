// The JSON a dashboard draws from a run's journal lines: its header, one
// time series per chart (ops/s by op, p50/p99, errors by outcome, active
// workers), phase spans, fault markers with their recovery numbers, health
// polls and the summary tables. The live dashboard (/api/runs/...) and
// report.html use the same view, so they show the same picture.
#ifndef STAMPEDE_REPORT_RUN_VIEW_H_
#define STAMPEDE_REPORT_RUN_VIEW_H_

#include <vector>

#include "report/journal.h"

namespace stampede::report {

// status: "running" until the journal's end line, then "ok" or "failed".
Json BuildRunView(const std::vector<Json>& journal);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_RUN_VIEW_H_

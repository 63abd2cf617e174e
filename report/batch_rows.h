// A batched phase (Phase.batch): its inserts counted in rows as well as in
// statements, in summary.json and report.md. An operation is a statement;
// every row of a statement shares its outcome.
#ifndef STAMPEDE_REPORT_BATCH_ROWS_H_
#define STAMPEDE_REPORT_BATCH_ROWS_H_

#include <nlohmann/json.hpp>
#include <string>

#include "report/run_summary.h"

namespace stampede::report {

nlohmann::json BatchRowsToJson(const PhaseSummary& p, const OpSummary& insert);
// "Batched inserts, 100 rows per statement: 1200 statements ok = 120000
// rows (24000.0 rows/s); 2 ambiguous = 200 rows that may be written. Per row
// (statement latency / 100): mean 9.1 µs, p50 8.2 µs, p99 31 µs."
std::string BatchRowsMarkdown(const PhaseSummary& p, const OpSummary& insert);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_BATCH_ROWS_H_

// A plan's runs in the formats of the services teams already run for
// performance history (docs/history.md, "Exports"):
// - Apache Otava (formerly Hunter): CSV, a time column, attribute columns
//   (run, version, result) and one column per tracked number; Otava's
//   `analyze` finds the change points.
// - Bencher: Bencher Metric Format JSON of one run (`bencher run --adapter
//   json --file FILE`); Bencher keeps the series and its thresholds.
#ifndef STAMPEDE_RUNS_EXPORTS_H_
#define STAMPEDE_RUNS_EXPORTS_H_

#include <ostream>
#include <string>
#include <vector>

#include "runs/run_record.h"

namespace stampede::runs {

// A tracked number's name as a CSV column: letters, digits, '.', '-' and
// '_' ("mixed read p99 (ms)" -> "mixed_read_p99_ms").
std::string ColumnName(const std::string& metric);

// Every run a row, oldest first; a number a run lacks is left empty.
void WriteOtavaCsv(const std::vector<RunRecord>& runs, std::ostream& out);
// The otava.yaml test entry that reads that file.
std::string OtavaConfig(const std::string& plan, const std::string& csv, const std::vector<RunRecord>& runs);

// One run's numbers: latencies in the built-in latency measure (ns), ops/s
// in throughput, seconds and counts in measures of their own.
void WriteBencherJson(const RunRecord& run, std::ostream& out);

}  // namespace stampede::runs

#endif  // STAMPEDE_RUNS_EXPORTS_H_

// journal.jsonl: one JSON object per line, appended and flushed as it
// arrives, so a crash loses at most the line being written. Everything else
// in a results directory (summary.json, timeline.csv, report.md) is derived
// from the journal by run_summary.h, which is how `stampede report DIR`
// rebuilds them.
//
// Line types (field "type"): run, phase_start, second, phase_end, log, end.
// See docs/results.md.
#ifndef STAMPEDE_REPORT_JOURNAL_H_
#define STAMPEDE_REPORT_JOURNAL_H_

#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/histogram.h"
#include "common/status.h"

namespace stampede::report {

using Json = nlohmann::json;

class JournalWriter {
 public:
  JournalWriter() = default;
  ~JournalWriter();
  Status Open(const std::string& path);
  // Thread-safe. Writes one line and flushes it to the OS.
  void Append(const Json& line);
  void Close();

 private:
  std::mutex mu_;
  std::FILE* file_ = nullptr;  // guarded by mu_
};

StatusOr<std::vector<Json>> ReadJournal(const std::string& path);

// Histogram <-> journal form {"sum_ns", "max_ns", "b": [[index, count], ...]}.
Json HistogramToJson(const Histogram& h);
void MergeHistogramJson(const Json& j, Histogram* h);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_JOURNAL_H_

// journal.jsonl: one JSON object per line, appended and flushed to the OS as
// it arrives (a crash of the process loses at most the line being written)
// and fsync'ed at most a second later (a crash of the machine loses at most
// a second). Everything else
// in a results directory (summary.json, timeline.csv, report.md) is derived
// from the journal by run_summary.h, which is how `stampede report DIR`
// rebuilds them.
//
// Line types (field "type"): run, phase_start, second, phase_end, fault,
// fault_result, health, agent, coordinator, log, end; their fields are in
// docs/metrics.md ("journal.jsonl lines").
#ifndef STAMPEDE_REPORT_JOURNAL_H_
#define STAMPEDE_REPORT_JOURNAL_H_

#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/histogram.h"
#include "common/mutex.h"
#include "common/status.h"

namespace stampede::report {

using Json = nlohmann::json;

class JournalWriter {
 public:
  JournalWriter() = default;
  ~JournalWriter();
  Status Open(const std::string& path);
  // Thread-safe. Writes one line and flushes it to the OS; fsyncs when the
  // last fsync is a second old. After a failed write (a full disk) nothing
  // more is written and every call returns that first error, so the file
  // ends with at most one torn line.
  Status Append(const Json& line);
  // Flushes and fsyncs; thread-safe.
  Status Sync();
  void Close();

 private:
  Status SyncLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Mutex mu_;
  std::FILE* file_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::string path_ ABSL_GUARDED_BY(mu_);
  Status error_ ABSL_GUARDED_BY(mu_);  // the first write error
  int64_t last_sync_ns_ ABSL_GUARDED_BY(mu_) = 0;
};

// Reads a journal. A line that is not a JSON object (torn by a crash or a
// full disk, or corrupted) is skipped; each skip adds "PATH:LINE: ..." to
// *warnings when given.
StatusOr<std::vector<Json>> ReadJournal(const std::string& path, std::vector<std::string>* warnings = nullptr);

// Histogram <-> journal form {"sum_ns", "max_ns", "b": [[index, count], ...]}.
// MergeHistogramJson also reads the packed form below.
Json HistogramToJson(const Histogram& h);
void MergeHistogramJson(const Json& j, Histogram* h);

// For lines kept in memory for a whole run (the dashboard's): every op's
// latency buckets in a "second" line packed into one ASCII string ("z")
// instead of a JSON array of pairs: about 3 bytes a bucket instead of about
// 90, which is most of a line's memory (bench/soak: the coordinator grew
// 33 KB a second without it). The journal on disk keeps "b".
void PackHistograms(Json* second_line);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_JOURNAL_H_

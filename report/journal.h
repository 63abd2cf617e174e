// journal.jsonl: one JSON object per line, appended and flushed to the OS as
// it arrives (a crash of the process loses at most the line being written)
// and fsync'ed at most a second later (a crash of the machine loses at most
// a second). Everything else
// in a results directory (summary.json, timeline.csv, report.md) is derived
// from the journal by run_summary.h, which is how `stampede report DIR`
// rebuilds them.
//
// This file owns the journal's file: appending, flushing, scanning. What a
// line holds is record/'s: each type (field "type": run, phase_start,
// second, phase_end, writes, history_check, fault, fault_result, health,
// node, agent, coordinator, log, end) is a struct in record/records.h,
// encoded and decoded in record/record_codec.cc, the one list of them;
// their fields are in docs/results.md.
#ifndef STAMPEDE_REPORT_JOURNAL_H_
#define STAMPEDE_REPORT_JOURNAL_H_

#include <cstdio>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "record/records.h"

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
  Status Append(const record::Record& r);
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
// ScanJournal hands each line to fn in turn, holding one at a time (a
// long run's journal is gigabytes once parsed).
Status ScanJournal(const std::string& path, const std::function<void(Json&&)>& fn,
                   std::vector<std::string>* warnings = nullptr);
// The same, each line decoded into a record (a line of a kind this
// version does not know is skipped).
Status ScanRecords(const std::string& path, const std::function<void(record::Record&&)>& fn,
                   std::vector<std::string>* warnings = nullptr);
StatusOr<std::vector<Json>> ReadJournal(const std::string& path, std::vector<std::string>* warnings = nullptr);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_JOURNAL_H_

// The run history: every finished run's record (runs/run_record.h) in an
// SQLite database, so that `stampede history` can list a plan's runs,
// follow a number over them and find where it changed
// (docs/history.md). Each record is written in one transaction: a crash
// mid-write leaves the store as it was. The schema carries its version
// (PRAGMA user_version) and is migrated forward on open. One RunStore per
// thread; several processes may share a file (SQLite's locking, a 5 s busy
// timeout).
#ifndef STAMPEDE_RUNS_RUN_STORE_H_
#define STAMPEDE_RUNS_RUN_STORE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "record/records.h"
#include "runs/run_record.h"

struct sqlite3;

namespace stampede::runs {

struct PlanRuns {
  std::string plan;
  uint64_t runs = 0;
  std::string last_started_at, last_verdict;
};

class RunStore {
 public:
  // Opens the store at path, creating it (and its schema) if need be.
  static StatusOr<std::unique_ptr<RunStore>> Open(const std::string& path);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  // Records a run; false (and nothing written) if its run id is there
  // already.
  StatusOr<bool> Record(const RunRecord& r);
  // Every plan with runs, by name.
  StatusOr<std::vector<PlanRuns>> Plans();
  // A plan's runs with their metrics, oldest first.
  StatusOr<std::vector<RunRecord>> Runs(const std::string& plan);
  // For expectations relative to history: each check's median over the
  // plan's last `window` runs (those that had it).
  StatusOr<std::map<std::string, record::Baseline>> Baselines(const std::string& plan, uint32_t window);

  static constexpr int kSchemaVersion = 2;

 private:
  explicit RunStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Exec(const std::string& sql);
  Status Error(const std::string& what) const;
  Status Migrate();

  sqlite3* db_;
  std::string path_;
};

}  // namespace stampede::runs

#endif  // STAMPEDE_RUNS_RUN_STORE_H_

// The run history: every finished run's record (runs/run_record.h), so
// that `stampede history` can list a plan's runs, follow a number over them
// and find where it changed (docs/history.md). Two stores behind one
// interface: an SQLite file (the default, runs/sqlite_store.h) and, for a
// team whose CI jobs and coordinators on several hosts share one history,
// a PostgreSQL database (postgresql://..., runs/postgres_store.h). Each
// record is written in one transaction: a crash mid-write leaves the store
// as it was. The schema carries its version and is migrated forward on
// open. One RunStore per thread.
#ifndef STAMPEDE_RUNS_RUN_STORE_H_
#define STAMPEDE_RUNS_RUN_STORE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "record/records.h"
#include "runs/run_record.h"

namespace stampede::runs {

struct PlanRuns {
  std::string plan;
  uint64_t runs = 0;
  std::string last_started_at, last_verdict;
};

class RunStore {
 public:
  // An SQLite file's path, or a PostgreSQL connection URL
  // (postgresql://USER@HOST:PORT/DB, its password from PGPASSWORD or
  // ~/.pgpass: a URL with a password is refused, as it would show in
  // process lists and logs). Creates the store (and its schema) if need be.
  static StatusOr<std::unique_ptr<RunStore>> Open(const std::string& location);
  static bool IsPostgres(const std::string& location);
  virtual ~RunStore() = default;

  // Records a run; false (and nothing written) if its run id is there
  // already.
  virtual StatusOr<bool> Record(const RunRecord& r) = 0;
  // Every plan with runs, by name.
  virtual StatusOr<std::vector<PlanRuns>> Plans() = 0;
  // A plan's runs with their metrics and checks, oldest first: all of
  // them, or the last `last`.
  virtual StatusOr<std::vector<RunRecord>> Runs(const std::string& plan, size_t last = 0) = 0;
  // For expectations relative to history: each check's median over the
  // plan's last `window` runs (those that had it).
  virtual StatusOr<std::map<std::string, record::Baseline>> Baselines(const std::string& plan, uint32_t window) = 0;

  static constexpr int kSchemaVersion = 2;
};

// Medians of each check's values (for Baselines).
std::map<std::string, record::Baseline> Medians(const std::map<std::string, std::vector<double>>& values);

}  // namespace stampede::runs

#endif  // STAMPEDE_RUNS_RUN_STORE_H_

// The run history in an SQLite file (runs/run_store.h): the default, beside
// the results. The schema's version is PRAGMA user_version. Several
// processes may share a file (SQLite's locking, a 5 s busy timeout).
#ifndef STAMPEDE_RUNS_SQLITE_STORE_H_
#define STAMPEDE_RUNS_SQLITE_STORE_H_

#include <memory>
#include <string>

#include "runs/run_store.h"

struct sqlite3;

namespace stampede::runs {

class SqliteRunStore : public RunStore {
 public:
  static StatusOr<std::unique_ptr<RunStore>> Open(const std::string& path);
  ~SqliteRunStore() override;
  SqliteRunStore(const SqliteRunStore&) = delete;
  SqliteRunStore& operator=(const SqliteRunStore&) = delete;

  StatusOr<bool> Record(const RunRecord& r) override;
  StatusOr<std::vector<PlanRuns>> Plans() override;
  StatusOr<std::vector<RunRecord>> Runs(const std::string& plan, size_t last = 0) override;
  StatusOr<std::map<std::string, record::Baseline>> Baselines(const std::string& plan, uint32_t window) override;

 private:
  SqliteRunStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Exec(const std::string& sql);
  Status Error(const std::string& what) const;
  Status Migrate();

  sqlite3* db_;
  std::string path_;
};

}  // namespace stampede::runs

#endif  // STAMPEDE_RUNS_SQLITE_STORE_H_

// The run history in a PostgreSQL database (runs/run_store.h), for a team:
// CI jobs and coordinators on several hosts write to one place. Tables
// stampede_runs, stampede_metrics, stampede_checks and stampede_schema
// (its version); created and migrated under an advisory lock, so that two
// processes opening a new database at once do not race. libpq, with the
// connection's password from PGPASSWORD or ~/.pgpass.
#ifndef STAMPEDE_RUNS_POSTGRES_STORE_H_
#define STAMPEDE_RUNS_POSTGRES_STORE_H_

#include <memory>
#include <string>
#include <vector>

#include "runs/run_store.h"

struct pg_conn;
struct pg_result;

namespace stampede::runs {

class PostgresRunStore : public RunStore {
 public:
  static StatusOr<std::unique_ptr<RunStore>> Open(const std::string& url);
  ~PostgresRunStore() override;
  PostgresRunStore(const PostgresRunStore&) = delete;
  PostgresRunStore& operator=(const PostgresRunStore&) = delete;

  StatusOr<bool> Record(const RunRecord& r) override;
  StatusOr<std::vector<PlanRuns>> Plans() override;
  StatusOr<std::vector<RunRecord>> Runs(const std::string& plan, size_t last = 0) override;
  StatusOr<std::map<std::string, record::Baseline>> Baselines(const std::string& plan, uint32_t window) override;

 private:
  class Result;
  PostgresRunStore(pg_conn* conn, std::string url) : conn_(conn), url_(std::move(url)) {}
  // A statement with text parameters; its result, or the server's error.
  StatusOr<Result> Query(const std::string& sql, const std::vector<std::string>& params = {});
  Status Migrate();

  pg_conn* conn_;
  std::string url_;
};

}  // namespace stampede::runs

#endif  // STAMPEDE_RUNS_POSTGRES_STORE_H_

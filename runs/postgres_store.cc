#include "runs/postgres_store.h"

#include <libpq-fe.h>

#include <charconv>
#include <cstdio>
#include <unordered_map>

namespace stampede::runs {

// A query's result, cleared when it goes.
class PostgresRunStore::Result {
 public:
  explicit Result(PGresult* r) : r_(r) {}
  Result(Result&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  Result& operator=(Result&&) = delete;
  ~Result() { PQclear(r_); }
  int rows() const { return PQntuples(r_); }
  std::string Text(int row, int col) const { return PQgetvalue(r_, row, col); }
  double Real(int row, int col) const { return std::strtod(PQgetvalue(r_, row, col), nullptr); }
  int64_t Int(int row, int col) const { return std::strtoll(PQgetvalue(r_, row, col), nullptr, 10); }
  bool Bool(int row, int col) const { return PQgetvalue(r_, row, col)[0] == 't'; }
  PGresult* raw() const { return r_; }

 private:
  PGresult* r_;
};

namespace {

// Version 1 and 2 at once: the PostgreSQL store began with the checks.
constexpr const char* kSchema =
    "CREATE TABLE stampede_runs (id BIGSERIAL PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, plan TEXT NOT NULL, "
    "plan_hash TEXT, version TEXT, started_at TEXT, duration_s DOUBLE PRECISION, target TEXT, verdict TEXT, dir TEXT, "
    "recorded_at TIMESTAMPTZ NOT NULL DEFAULT now());"
    "CREATE INDEX stampede_runs_by_plan ON stampede_runs (plan, started_at);"
    "CREATE TABLE stampede_metrics (run BIGINT NOT NULL REFERENCES stampede_runs (id) ON DELETE CASCADE, "
    "ord INTEGER NOT NULL, name TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, higher_is_better BOOLEAN NOT NULL, "
    "PRIMARY KEY (run, name));"
    "CREATE TABLE stampede_checks (run BIGINT NOT NULL REFERENCES stampede_runs (id) ON DELETE CASCADE, "
    "ord INTEGER NOT NULL, key TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, PRIMARY KEY (run, key));";

// A number as PostgreSQL reads it back exactly.
std::string Num(double v) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.17g", v);
  return b;
}

// The URL without a password: what the errors name.
bool HasPassword(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t at = url.find('@');
  if (scheme == std::string::npos || at == std::string::npos) return url.find("password=") != std::string::npos;
  return url.find(':', scheme + 3) < at || url.find("password=") != std::string::npos;
}

}  // namespace

StatusOr<std::unique_ptr<RunStore>> PostgresRunStore::Open(const std::string& url) {
  if (HasPassword(url)) {
    return Status::Error(
        "run history: a password in the URL would show in process lists and logs; put it in PGPASSWORD or "
        "~/.pgpass");
  }
  pg_conn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string why = PQerrorMessage(conn);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    PQfinish(conn);
    return Status::Error("run history " + url + ": " + why);
  }
  std::unique_ptr<PostgresRunStore> store(new PostgresRunStore(conn, url));
  if (Status s = store->Migrate(); !s.ok()) return s;
  return std::unique_ptr<RunStore>(std::move(store));
}

PostgresRunStore::~PostgresRunStore() { PQfinish(conn_); }

StatusOr<PostgresRunStore::Result> PostgresRunStore::Query(const std::string& sql,
                                                           const std::vector<std::string>& params) {
  std::vector<const char*> values;
  for (const std::string& p : params) values.push_back(p.c_str());
  // Without parameters, PQexec: it takes several statements (the schema).
  Result r(values.empty()
               ? PQexec(conn_, sql.c_str())
               : PQexecParams(conn_, sql.c_str(), int(values.size()), nullptr, values.data(), nullptr, nullptr, 0));
  const ExecStatusType st = PQresultStatus(r.raw());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    std::string why = PQerrorMessage(conn_);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    return Status::Error("run history " + url_ + ": " + why);
  }
  return r;
}

// Under a transaction-scoped advisory lock: one process creates or
// migrates, the others wait and find it done.
Status PostgresRunStore::Migrate() {
  if (auto r = Query("BEGIN"); !r.ok()) return r.status();
  auto fail = [&](Status s) {
    (void)Query("ROLLBACK");
    return s;
  };
  if (auto r = Query("SELECT pg_advisory_xact_lock(7353746175)"); !r.ok()) return fail(r.status());
  auto exists = Query("SELECT to_regclass('stampede_schema') IS NOT NULL");
  if (!exists.ok()) return fail(exists.status());
  int version = 0;
  if (exists->Bool(0, 0)) {
    auto v = Query("SELECT version FROM stampede_schema");
    if (!v.ok()) return fail(v.status());
    version = v->rows() ? int(v->Int(0, 0)) : 0;
  }
  if (version > kSchemaVersion) {
    return fail(Status::Error("run history " + url_ + ": written by a newer stampede (schema " +
                              std::to_string(version) + ", this one knows up to " + std::to_string(kSchemaVersion) +
                              ")"));
  }
  if (version < 2) {
    if (auto r = Query(kSchema); !r.ok()) return fail(r.status());
    if (auto r = Query("CREATE TABLE stampede_schema (version INTEGER NOT NULL)"); !r.ok()) return fail(r.status());
    if (auto r = Query("INSERT INTO stampede_schema VALUES (2)"); !r.ok()) return fail(r.status());
  }
  auto end = Query("COMMIT");
  return end.ok() ? Status::Ok() : end.status();
}

StatusOr<bool> PostgresRunStore::Record(const RunRecord& r) {
  if (auto b = Query("BEGIN"); !b.ok()) return b.status();
  auto fail = [&](Status s) {
    (void)Query("ROLLBACK");
    return s;
  };
  auto id = Query(
      "INSERT INTO stampede_runs (run_id, plan, plan_hash, version, started_at, duration_s, target, verdict, dir) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (run_id) DO NOTHING RETURNING id",
      {r.run_id, r.plan, r.plan_hash, r.version, r.started_at, Num(r.duration_s), r.target, r.verdict, r.dir});
  if (!id.ok()) return fail(id.status());
  if (id->rows() == 0) {  // recorded before
    (void)Query("ROLLBACK");
    return false;
  }
  const std::string run = id->Text(0, 0);
  for (size_t i = 0; i < r.metrics.size(); ++i) {
    const Metric& m = r.metrics[i];
    auto q = Query(
        "INSERT INTO stampede_metrics (run, ord, name, value, higher_is_better) VALUES ($1, $2, $3, $4, $5) "
        "ON CONFLICT (run, name) DO UPDATE SET value = EXCLUDED.value",
        {run, std::to_string(i), m.name, Num(m.value), m.higher_is_better ? "true" : "false"});
    if (!q.ok()) return fail(q.status());
  }
  for (size_t i = 0; i < r.checks.size(); ++i) {
    auto q = Query(
        "INSERT INTO stampede_checks (run, ord, key, value) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (run, key) DO UPDATE SET value = EXCLUDED.value",
        {run, std::to_string(i), r.checks[i].name, Num(r.checks[i].value)});
    if (!q.ok()) return fail(q.status());
  }
  if (auto c = Query("COMMIT"); !c.ok()) return c.status();
  return true;
}

StatusOr<std::vector<PlanRuns>> PostgresRunStore::Plans() {
  auto q = Query(
      "SELECT plan, count(*), max(started_at), (SELECT verdict FROM stampede_runs r2 WHERE r2.plan = r.plan "
      "ORDER BY started_at DESC, id DESC LIMIT 1) FROM stampede_runs r GROUP BY plan ORDER BY plan");
  if (!q.ok()) return q.status();
  std::vector<PlanRuns> plans;
  for (int i = 0; i < q->rows(); ++i)
    plans.push_back({q->Text(i, 0), uint64_t(q->Int(i, 1)), q->Text(i, 2), q->Text(i, 3)});
  return plans;
}

StatusOr<std::vector<RunRecord>> PostgresRunStore::Runs(const std::string& plan, size_t last) {
  const std::string limit = std::to_string(last ? last : size_t(1) << 62);
  // The plan's runs (the last `limit`) as a table.
  const std::string runs_of =
      "(SELECT * FROM stampede_runs WHERE plan = $1 ORDER BY started_at DESC, id DESC LIMIT $2::bigint)";
  auto q = Query("SELECT id, run_id, plan_hash, version, started_at, duration_s, target, verdict, dir FROM " + runs_of +
                     " r ORDER BY started_at, id",
                 {plan, limit});
  if (!q.ok()) return q.status();
  std::vector<RunRecord> runs;
  std::unordered_map<int64_t, size_t> index;
  for (int i = 0; i < q->rows(); ++i) {
    RunRecord r;
    index[q->Int(i, 0)] = runs.size();
    r.run_id = q->Text(i, 1);
    r.plan = plan;
    r.plan_hash = q->Text(i, 2);
    r.version = q->Text(i, 3);
    r.started_at = q->Text(i, 4);
    r.duration_s = q->Real(i, 5);
    r.target = q->Text(i, 6);
    r.verdict = q->Text(i, 7);
    r.dir = q->Text(i, 8);
    runs.push_back(std::move(r));
  }
  auto m = Query("SELECT m.run, m.name, m.value, m.higher_is_better FROM stampede_metrics m JOIN " + runs_of +
                     " r ON m.run = r.id ORDER BY m.run, m.ord",
                 {plan, limit});
  if (!m.ok()) return m.status();
  for (int i = 0; i < m->rows(); ++i) {
    runs[index[m->Int(i, 0)]].metrics.push_back({m->Text(i, 1), m->Real(i, 2), m->Bool(i, 3)});
  }
  auto c = Query("SELECT c.run, c.key, c.value FROM stampede_checks c JOIN " + runs_of +
                     " r ON c.run = r.id ORDER BY c.run, c.ord",
                 {plan, limit});
  if (!c.ok()) return c.status();
  for (int i = 0; i < c->rows(); ++i) runs[index[c->Int(i, 0)]].checks.push_back({c->Text(i, 1), c->Real(i, 2), false});
  return runs;
}

StatusOr<std::map<std::string, record::Baseline>> PostgresRunStore::Baselines(const std::string& plan,
                                                                              uint32_t window) {
  auto q = Query(
      "SELECT c.key, c.value FROM stampede_checks c JOIN (SELECT id FROM stampede_runs WHERE plan = $1 "
      "ORDER BY started_at DESC, id DESC LIMIT $2) r ON c.run = r.id",
      {plan, std::to_string(window)});
  if (!q.ok()) return q.status();
  std::map<std::string, std::vector<double>> values;
  for (int i = 0; i < q->rows(); ++i) values[q->Text(i, 0)].push_back(q->Real(i, 1));
  return Medians(values);
}

}  // namespace stampede::runs

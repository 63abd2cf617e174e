#include "runs/sqlite_store.h"

#include <sqlite3.h>

#include <unordered_map>

namespace stampede::runs {
namespace {

// A prepared statement, finalized when it goes.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  bool ok() const { return rc_ == SQLITE_OK; }
  Stmt& Text(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& Real(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  Stmt& Int(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  int Step() { return sqlite3_step(s_); }
  void Reset() { sqlite3_reset(s_); }
  std::string TextAt(int i) const {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  double RealAt(int i) const { return sqlite3_column_double(s_, i); }
  int64_t IntAt(int i) const { return sqlite3_column_int64(s_, i); }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_;
};

constexpr const char* kSchemaV1 =
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, plan TEXT NOT NULL, plan_hash TEXT, "
    "version TEXT, started_at TEXT, duration_s REAL, target TEXT, verdict TEXT, dir TEXT, "
    "recorded_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));"
    "CREATE INDEX runs_by_plan ON runs (plan, started_at);"
    "CREATE TABLE metrics (run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE, name TEXT NOT NULL, "
    "value REAL NOT NULL, higher_is_better INTEGER NOT NULL, PRIMARY KEY (run, name));";
// Version 2: the verdict's checks with their numbers, for expectations
// relative to history.
constexpr const char* kSchemaV2 =
    "CREATE TABLE checks (run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE, key TEXT NOT NULL, "
    "value REAL NOT NULL, PRIMARY KEY (run, key));";

}  // namespace

StatusOr<std::unique_ptr<RunStore>> SqliteRunStore::Open(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    Status s = Status::Error("run history " + path + ": " + (db ? sqlite3_errmsg(db) : "cannot be opened"));
    sqlite3_close(db);
    return s;
  }
  std::unique_ptr<SqliteRunStore> store(new SqliteRunStore(db, path));
  sqlite3_busy_timeout(db, 5000);
  if (Status s = store->Exec("PRAGMA foreign_keys = ON"); !s.ok()) return s;
  if (Status s = store->Migrate(); !s.ok()) return s;
  return std::unique_ptr<RunStore>(std::move(store));
}

SqliteRunStore::~SqliteRunStore() { sqlite3_close(db_); }

Status SqliteRunStore::Error(const std::string& what) const {
  return Status::Error("run history " + path_ + ": " + what + ": " + sqlite3_errmsg(db_));
}

Status SqliteRunStore::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) == SQLITE_OK) return Status::Ok();
  const std::string message = err ? err : "failed";
  sqlite3_free(err);
  return Status::Error("run history " + path_ + ": " + message);
}

// Each version's changes in order, in one transaction with the new
// user_version: a store is at one version or the one before, never between.
Status SqliteRunStore::Migrate() {
  if (Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  Stmt v(db_, "PRAGMA user_version");
  int version = v.ok() && v.Step() == SQLITE_ROW ? int(v.IntAt(0)) : -1;
  Status s = Status::Ok();
  if (version > kSchemaVersion) {
    s = Status::Error("run history " + path_ + ": written by a newer stampede (schema " + std::to_string(version) +
                      ", this one knows up to " + std::to_string(kSchemaVersion) + ")");
  } else {
    if (version < 1) s = Exec(kSchemaV1);
    if (s.ok() && version < 2) s = Exec(kSchemaV2);
  }
  if (s.ok() && version < kSchemaVersion) s = Exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  const Status end = Exec(s.ok() ? "COMMIT" : "ROLLBACK");
  return s.ok() ? end : s;
}

StatusOr<bool> SqliteRunStore::Record(const RunRecord& r) {
  if (Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  auto fail = [&](const std::string& what) {
    const Status e = Error(what);
    (void)Exec("ROLLBACK");
    return e;
  };
  Stmt run(
      db_,
      "INSERT OR IGNORE INTO runs (run_id, plan, plan_hash, version, started_at, duration_s, target, verdict, dir) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!run.ok()) return fail("prepare");
  run.Text(1, r.run_id).Text(2, r.plan).Text(3, r.plan_hash).Text(4, r.version).Text(5, r.started_at);
  run.Real(6, r.duration_s).Text(7, r.target).Text(8, r.verdict).Text(9, r.dir);
  if (run.Step() != SQLITE_DONE) return fail("insert");
  if (sqlite3_changes(db_) == 0) {
    (void)Exec("ROLLBACK");
    return false;
  }
  const int64_t id = sqlite3_last_insert_rowid(db_);
  Stmt metric(db_, "INSERT OR REPLACE INTO metrics (run, name, value, higher_is_better) VALUES (?, ?, ?, ?)");
  if (!metric.ok()) return fail("prepare");
  for (const Metric& m : r.metrics) {
    metric.Reset();
    metric.Int(1, id).Text(2, m.name).Real(3, m.value).Int(4, m.higher_is_better ? 1 : 0);
    if (metric.Step() != SQLITE_DONE) return fail("insert metric");
  }
  Stmt check(db_, "INSERT OR REPLACE INTO checks (run, key, value) VALUES (?, ?, ?)");
  if (!check.ok()) return fail("prepare");
  for (const Metric& c : r.checks) {
    check.Reset();
    check.Int(1, id).Text(2, c.name).Real(3, c.value);
    if (check.Step() != SQLITE_DONE) return fail("insert check");
  }
  if (Status s = Exec("COMMIT"); !s.ok()) return s;
  return true;
}

StatusOr<std::vector<PlanRuns>> SqliteRunStore::Plans() {
  Stmt q(db_,
         "SELECT plan, count(*), max(started_at), (SELECT verdict FROM runs r2 WHERE r2.plan = runs.plan "
         "ORDER BY started_at DESC, id DESC LIMIT 1) FROM runs GROUP BY plan ORDER BY plan");
  if (!q.ok()) return Error("query");
  std::vector<PlanRuns> plans;
  for (int rc; (rc = q.Step()) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) return Error("query");
    plans.push_back({q.TextAt(0), uint64_t(q.IntAt(1)), q.TextAt(2), q.TextAt(3)});
  }
  return plans;
}

StatusOr<std::vector<RunRecord>> SqliteRunStore::Runs(const std::string& plan, size_t last) {
  const int64_t limit = last ? int64_t(last) : -1;  // -1: no limit
  // The plan's runs (the last `limit`) as a table.
  const std::string runs_of = "(SELECT * FROM runs WHERE plan = ?1 ORDER BY started_at DESC, id DESC LIMIT ?2)";
  Stmt q(db_, ("SELECT id, run_id, plan_hash, version, started_at, duration_s, target, verdict, dir FROM " + runs_of +
               " ORDER BY started_at, id")
                  .c_str());
  if (!q.ok()) return Error("query");
  q.Text(1, plan).Int(2, limit);
  std::vector<RunRecord> runs;
  std::vector<int64_t> ids;
  for (int rc; (rc = q.Step()) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) return Error("query");
    RunRecord r;
    ids.push_back(q.IntAt(0));
    r.run_id = q.TextAt(1);
    r.plan = plan;
    r.plan_hash = q.TextAt(2);
    r.version = q.TextAt(3);
    r.started_at = q.TextAt(4);
    r.duration_s = q.RealAt(5);
    r.target = q.TextAt(6);
    r.verdict = q.TextAt(7);
    r.dir = q.TextAt(8);
    runs.push_back(std::move(r));
  }
  // Every run's metrics and checks in two queries, not two a run: a plan
  // with 10,000 runs lists in well under a second.
  std::unordered_map<int64_t, size_t> index;
  for (size_t i = 0; i < ids.size(); ++i) index[ids[i]] = i;
  Stmt m(db_, ("SELECT m.run, m.name, m.value, m.higher_is_better FROM metrics m JOIN " + runs_of +
               " r ON m.run = r.id ORDER BY m.rowid")
                  .c_str());
  m.Text(1, plan).Int(2, limit);
  for (int rc; (rc = m.Step()) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) return Error("query");
    runs[index[m.IntAt(0)]].metrics.push_back({m.TextAt(1), m.RealAt(2), m.IntAt(3) != 0});
  }
  Stmt c(
      db_,
      ("SELECT c.run, c.key, c.value FROM checks c JOIN " + runs_of + " r ON c.run = r.id ORDER BY c.rowid").c_str());
  c.Text(1, plan).Int(2, limit);
  for (int rc; (rc = c.Step()) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) return Error("query");
    runs[index[c.IntAt(0)]].checks.push_back({c.TextAt(1), c.RealAt(2), false});
  }
  return runs;
}

StatusOr<std::map<std::string, record::Baseline>> SqliteRunStore::Baselines(const std::string& plan, uint32_t window) {
  Stmt q(db_,
         "SELECT c.key, c.value FROM checks c JOIN (SELECT id FROM runs WHERE plan = ? "
         "ORDER BY started_at DESC, id DESC LIMIT ?) r ON c.run = r.id");
  if (!q.ok()) return Error("query");
  q.Text(1, plan).Int(2, window);
  std::map<std::string, std::vector<double>> values;
  for (int rc; (rc = q.Step()) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) return Error("query");
    values[q.TextAt(0)].push_back(q.RealAt(1));
  }
  return Medians(values);
}

}  // namespace stampede::runs

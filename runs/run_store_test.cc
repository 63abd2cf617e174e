#include "runs/run_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>

namespace stampede::runs {
namespace {

std::string TempPath() {
  static int n = 0;
  return ::testing::TempDir() + "/runs-" + std::to_string(getpid()) + "-" + std::to_string(n++) + ".db";
}

RunRecord ARun(const std::string& id, const std::string& plan, const std::string& started, double p99) {
  RunRecord r;
  r.run_id = id;
  r.plan = plan;
  r.started_at = started;
  r.verdict = "ok";
  r.duration_s = 30;
  r.metrics = {{"insert InsertOne p99 (ms)", p99, false}, {"insert InsertOne ops/s", 1000, true}};
  return r;
}

TEST(RunStore, RecordsListsAndKeepsOrder) {
  const std::string path = TempPath();
  {
    auto store = RunStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().message();
    EXPECT_TRUE(*(*store)->Record(ARun("r2", "kill", "2026-12-02T10:00:00Z", 12)));
    EXPECT_TRUE(*(*store)->Record(ARun("r1", "kill", "2026-12-01T10:00:00Z", 11)));
    EXPECT_TRUE(*(*store)->Record(ARun("o1", "other", "2026-12-03T10:00:00Z", 5)));
    EXPECT_FALSE(*(*store)->Record(ARun("r1", "kill", "2026-12-01T10:00:00Z", 99)));  // recorded before
  }
  auto store = RunStore::Open(path);  // again: the schema is there
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto plans = (*store)->Plans();
  ASSERT_TRUE(plans.ok());
  ASSERT_EQ(plans->size(), 2u);
  EXPECT_EQ((*plans)[0].plan, "kill");
  EXPECT_EQ((*plans)[0].runs, 2u);
  EXPECT_EQ((*plans)[0].last_started_at, "2026-12-02T10:00:00Z");
  auto runs = (*store)->Runs("kill");
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].run_id, "r1");
  ASSERT_NE((*runs)[0].Find("insert InsertOne p99 (ms)"), nullptr);
  EXPECT_EQ((*runs)[0].Find("insert InsertOne p99 (ms)")->value, 11);  // not the duplicate's 99
  EXPECT_TRUE((*runs)[1].Find("insert InsertOne ops/s")->higher_is_better);
  std::remove(path.c_str());
}

TEST(RunStore, RefusesAStoreFromANewerVersion) {
  const std::string path = TempPath();
  ASSERT_TRUE(RunStore::Open(path).ok());
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto again = RunStore::Open(path);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("written by a newer stampede (schema 99"), std::string::npos);
  std::remove(path.c_str());
}

TEST(RunStore, BaselinesAreMediansOfTheLastRunsChecks) {
  const std::string path = TempPath();
  auto store = RunStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  const double unavailable[] = {9, 2, 3, 4, 5};  // the oldest (9) is past a window of 4
  for (int i = 0; i < 5; ++i) {
    RunRecord r = ARun("r" + std::to_string(i), "kill", "2026-12-0" + std::to_string(i + 1) + "T10:00:00Z", 10);
    r.checks = {{"fault 0: kill node3: unavailability", unavailable[i], false}};
    if (i == 4) r.checks.push_back({"phase load: p99", 0.02, false});
    ASSERT_TRUE(*(*store)->Record(r));
  }
  auto b = (*store)->Baselines("kill", 4);
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ(b->at("fault 0: kill node3: unavailability").runs, 4u);
  EXPECT_DOUBLE_EQ(b->at("fault 0: kill node3: unavailability").median, 3.5);  // of 2, 3, 4, 5
  EXPECT_EQ(b->at("phase load: p99").runs, 1u);
  EXPECT_TRUE((*store)->Baselines("other", 10)->empty());
  auto runs = (*store)->Runs("kill");
  ASSERT_EQ(runs->back().checks.size(), 2u);
  EXPECT_EQ(runs->back().checks[1].name, "phase load: p99");
  std::remove(path.c_str());
}

// A store written by the first version (no checks) is migrated forward in
// place, its runs kept.
TEST(RunStore, MigratesAVersionOneStore) {
  const std::string path = TempPath();
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db,
               "CREATE TABLE runs (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, plan TEXT NOT NULL, "
               "plan_hash TEXT, version TEXT, started_at TEXT, duration_s REAL, target TEXT, verdict TEXT, dir TEXT, "
               "recorded_at TEXT);"
               "CREATE TABLE metrics (run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE, name TEXT NOT "
               "NULL, value REAL NOT NULL, higher_is_better INTEGER NOT NULL, PRIMARY KEY (run, name));"
               "INSERT INTO runs (run_id, plan, started_at) VALUES ('old', 'kill', '2026-11-01T10:00:00Z');"
               "PRAGMA user_version = 1;",
               nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto store = RunStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  RunRecord r = ARun("new", "kill", "2026-12-01T10:00:00Z", 10);
  r.checks = {{"phase load: p99", 0.02, false}};
  ASSERT_TRUE(*(*store)->Record(r));
  auto runs = (*store)->Runs("kill");
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].run_id, "old");
  EXPECT_EQ((*runs)[1].checks.size(), 1u);
  std::remove(path.c_str());
}

TEST(RunStore, NotADatabaseIsAClearError) {
  const std::string path = TempPath();
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("this is not a database, it is a text file long enough to have a header", f);
  std::fclose(f);
  auto store = RunStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("run history " + path), std::string::npos) << store.status().message();
  std::remove(path.c_str());
}

}  // namespace
}  // namespace stampede::runs

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

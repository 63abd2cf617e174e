#include "report/run_view.h"

#include <gtest/gtest.h>

#include "record/record_codec.h"
#include "report/compare.h"

namespace stampede::report {
namespace {

Json Second(const std::string& phase, const std::string& op, uint64_t ok, double t) {
  Histogram h;
  h.RecordN(2'000'000, ok);
  Json ops = Json::object();
  if (ok) ops[op] = {{"outcomes", {ok, 0, 0, 0, 0}}, {"latency", record::HistogramToJson(h)}};
  return {{"type", "second"},    {"phase", phase}, {"index", phase[0] - 'a'}, {"t", t}, {"interval_s", 1.0},
          {"active_workers", 4}, {"ops", ops}};
}

TEST(RunViewTest, SeriesFaultsAndGaps) {
  std::vector<Json> journal = {
      {{"type", "run"}, {"run_id", "r1"}, {"plan_name", "p"}, {"agents", {"a1"}}},
      {{"type", "phase_start"}, {"phase", "a"}, {"t", 0.0}},
      Second("a", "insert", 100, 1.0),
      Second("a", "insert", 0, 2.0),  // an outage: insert is 0, not a gap
      {{"type", "fault"}, {"index", 0}, {"action", "kill"}, {"node", "db3"}, {"requested_t", 1.5}},
      {{"type", "phase_end"}, {"phase", "a"}, {"duration_s", 2.0}, {"completed", true}},
      {{"type", "phase_start"}, {"phase", "b"}, {"t", 2.5}},
      Second("b", "select", 50, 3.5),
  };
  Json v = BuildRunView(journal);
  EXPECT_EQ(v["status"], "running");  // no end line yet
  EXPECT_EQ(v["series"]["t"].size(), 3u);
  EXPECT_EQ(v["series"]["ops"]["insert"], Json({100.0, 0.0, nullptr}));
  EXPECT_EQ(v["series"]["ops"]["select"], Json({nullptr, nullptr, 50.0}));
  EXPECT_NEAR(v["series"]["p99_ms"][0].get<double>(), 2.0, 0.02);
  ASSERT_EQ(v["faults"].size(), 1u);
  EXPECT_EQ(v["faults"][0]["node"], "db3");
  EXPECT_EQ(v["phases"][0]["end"], 2.0);
  journal.push_back({{"type", "end"}, {"ok", true}});
  EXPECT_EQ(BuildRunView(journal)["status"], "ok");
}

// A history check's anomalies, found after the phase, mark the points
// they fell in; the summary counts them.
TEST(RunViewTest, AHistoryChecksAnomaliesMarkTheirSeconds) {
  std::vector<Json> journal = {
      {{"type", "run"}, {"run_id", "r1"}, {"plan_name", "p"}, {"agents", {"a1"}}},
      {{"type", "phase_start"}, {"phase", "a"}, {"index", 0}, {"workload", "append"}, {"t", 0.0}},
      Second("a", "txn", 100, 1.0),
      Second("a", "txn", 100, 2.0),
      Second("a", "txn", 100, 3.0),
      {{"type", "history_check"},
       {"phase", "a"},
       {"index", 0},
       {"transactions", 300},
       {"final_keys", 20},
       {"anomalies", {{"lost", 2}}},
       {"seconds", {{1.5, 2}}}},
      {{"type", "phase_end"}, {"phase", "a"}, {"index", 0}, {"duration_s", 3.0}, {"completed", true}},
  };
  Json v = BuildRunView(journal);
  EXPECT_EQ(v["series"]["anomalies"], Json({0.0, 2.0, 0.0}));
}

TEST(RunViewTest, HealthKeepsTheFirstAndLatestPollOfEachStretch) {
  RunViewBuilder b;
  const bool polls[] = {true, true, true, false, false, false, true, true};
  for (int i = 0; i < 8; ++i) {
    b.Add(Json{{"type", "health"}, {"t", double(i)}, {"healthy", polls[i]}, {"detail", "poll " + std::to_string(i)}});
  }
  const Json h = b.View()["health"];
  ASSERT_EQ(h.size(), 6u) << h.dump();
  // Unhealthy from t=3 until t=6, as with every poll.
  EXPECT_EQ(h[2]["t"], 3.0);
  EXPECT_EQ(h[2]["healthy"], false);
  EXPECT_EQ(h[3]["t"], 5.0);
  EXPECT_EQ(h[4]["t"], 6.0);
  EXPECT_EQ(h[4]["healthy"], true);
  EXPECT_EQ(h[5]["detail"], "poll 7");  // the latest, for the header
}

// A join's data move in the live view: how much of it has moved, while
// the run goes; nothing once it is over.
TEST(RunViewTest, AJoinsMoveWhileTheRunGoes) {
  auto poll = [](double t, std::vector<double> slots) {
    Json shares = Json::array();
    for (size_t i = 0; i < slots.size(); ++i) {
      shares.push_back({{"node", "n" + std::to_string(i)}, {"share", slots[i]}, {"state", "master"}});
    }
    return Json{{"type", "health"}, {"t", t},           {"healthy", true},
                {"detail", "ok"},   {"shares", shares}, {"share_unit", "slots"}};
  };
  std::vector<Json> journal = {
      {{"type", "run"}, {"run_id", "r1"}, {"plan_name", "p"}, {"agents", {"a1"}}},
      {{"type", "phase_start"}, {"phase", "a"}, {"t", 0.0}},
      poll(1, {5461, 5462, 5461}),
      {{"type", "fault"}, {"index", 0}, {"action", "join"}, {"node", "redis-new"}, {"requested_t", 1.5}},
      poll(2, {4096, 5462, 5461, 1365}),
  };
  Json v = BuildRunView(journal);
  ASSERT_TRUE(v["move"].is_object()) << v["move"];
  EXPECT_EQ(v["move"]["what"], "join redis-new");
  EXPECT_EQ(v["move"]["unit"], "slots");
  EXPECT_NEAR(v["move"]["done"].get<double>(), 1365, 1);
  EXPECT_NEAR(v["move"]["total"].get<double>(), 4096, 1);
  journal.push_back({{"type", "end"}, {"ok", true}});
  EXPECT_TRUE(BuildRunView(journal)["move"].is_null());
}

TEST(CompareTest, MarksBestAndWorstPerRow) {
  auto summary = [](const std::string& id, double insert_s, double ops) {
    return Json{
        {"run_id", id},
        {"plan_name", "p"},
        {"groups",
         {{{"name", "insert"},
           {"total_s", insert_s + 1},
           {"steps", {{{"step", "InsertOne"}, {"seconds", insert_s}}}}}}},
        {"phases",
         {{{"name", "mixed"},
           {"ops",
            {{{"name", "read"}, {"count", 10}, {"ok", 9}, {"ops_per_s", ops}, {"latency_us", {{"p99", 1500.0}}}}}}}}}};
  };
  Comparison c = Compare({summary("a", 7.1, 100), summary("b", 2.9, 300), summary("c", 11.4, 200)},
                         {"results/a", "results/b", "results/c"});
  ASSERT_EQ(c.runs.size(), 3u);
  const CompareRow* insert = nullptr;
  const CompareRow* reads = nullptr;
  for (const auto& r : c.rows) {
    if (r.label == "insert InsertOne (s)") insert = &r;
    if (r.label == "mixed read ops/s") reads = &r;
  }
  ASSERT_TRUE(insert && reads);
  EXPECT_EQ(insert->best, 1);  // lower time is better
  EXPECT_EQ(insert->worst, 2);
  EXPECT_EQ(reads->best, 1);  // higher ops/s is better
  EXPECT_EQ(reads->worst, 0);
  const std::string md = RenderCompareMarkdown(c);
  EXPECT_NE(md.find("| insert InsertOne (s) | 7.10 | **2.90** best | 11.4 worst |"), std::string::npos) << md;
}

TEST(CompareTest, RepeatedFaultsCompareByTheirDistribution) {
  auto summary = [](const std::string& id, double median) {
    Json cycles = {{"action", "kill"},
                   {"node", "db3"},
                   {"count", 3},
                   {"not_recovered", 0},
                   {"unavailability_s", {{"n", 3}, {"min", 1.0}, {"median", median}, {"p90", 5.0}, {"max", 5.0}}},
                   {"time_to_healthy_s", {{"n", 0}}}};
    return Json{{"run_id", id}, {"fault_cycles", Json::array({cycles})}};
  };
  Comparison c = Compare({summary("async", 2.0), summary("threads", 3.5)}, {"x", "y"});
  const CompareRow* median = nullptr;
  for (const auto& r : c.rows) {
    if (r.label == "kill db3 x3 unavailability median (s)") median = &r;
    EXPECT_EQ(r.label.find("to healthy"), std::string::npos) << "no cycle was healthy: no row";
  }
  ASSERT_NE(median, nullptr);
  EXPECT_EQ(median->best, 0);
  EXPECT_EQ(*median->values[1], 3.5);
}

// A stepped phase's steps each get their ops/s, p99 and errors, and two
// runs with the same id are told apart by their directories.
TEST(CompareTest, StepsHaveTheirNumbersAndRunsTheirDirectories) {
  auto summary = [](double ops) {
    Json op = {{"name", "InsertOne"}, {"count", 100}, {"ok", 97}, {"ops_per_s", ops}};
    op["latency_us"] = Json{{"p99", 2500.0}};
    Json phase = {{"name", "insert/InsertOne"}, {"group", "insert"}};
    phase["ops"] = Json::array({op});
    Json step = {{"step", "InsertOne"}, {"phase", "insert/InsertOne"}, {"seconds", 8.0}};
    Json group = {{"name", "insert"}, {"total_s", 9.0}};
    group["steps"] = Json::array({step});
    Json s = {{"run_id", "same-id"}, {"plan_name", "p"}};
    s["groups"] = Json::array({group});
    s["phases"] = Json::array({phase});
    return s;
  };
  Comparison c = Compare({summary(900), summary(1000)}, {"results/run-1", "results/run-2"});
  const std::string md = RenderCompareMarkdown(c);
  EXPECT_NE(md.find("- results/run-1: same-id (plan p"), std::string::npos) << md;
  EXPECT_NE(md.find("| measure | results/run-1 | results/run-2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| insert InsertOne ops/s | 900 worst | **1000** best |"), std::string::npos) << md;
  EXPECT_NE(md.find("| insert InsertOne p99 (ms) | 2.50 | 2.50 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| insert InsertOne errors | 3 | 3 |"), std::string::npos) << md;
}

}  // namespace
}  // namespace stampede::report

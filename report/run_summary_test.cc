#include "report/run_summary.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "record/record_codec.h"
#include "report/run_view.h"

namespace stampede::report {
namespace {

Json Second(const std::string& phase, uint64_t ok, uint64_t unavailable, uint64_t latency_ns, double t,
            double interval_s = 1.0) {
  Histogram h;
  h.RecordN(latency_ns, ok + unavailable);
  return {{"type", "second"},
          {"phase", phase},
          {"t", t},
          {"phase_t", t},
          {"interval_s", interval_s},
          {"agents", 2},
          {"active_workers", 4},
          {"ops", {{"insert", {{"outcomes", {ok, 0, unavailable, 0, 0}}, {"latency", record::HistogramToJson(h)}}}}}};
}

std::vector<Json> Journal() {
  return {
      {{"type", "run"}, {"run_id", "r1"}, {"plan_name", "p"}, {"agents", {"a1", "a2"}}},
      {{"type", "phase_start"}, {"phase", "insert"}, {"workers", 4}, {"t", 0.0}},
      Second("insert", 90, 0, 1'000'000, 1.0),
      Second("insert", 8, 2, 100'000'000, 2.0),
      {{"type", "phase_end"}, {"phase", "insert"}, {"duration_s", 2.0}, {"completed", true}},
      {{"type", "end"}, {"ok", true}},
  };
}

TEST(RunSummaryTest, MergesSecondsAndComputesPercentilesFromHistograms) {
  RunSummary s = BuildSummary(Journal());
  ASSERT_TRUE(s.ok);
  ASSERT_EQ(s.phases.size(), 1u);
  const OpSummary& op = s.phases[0].ops[0];
  EXPECT_EQ(op.count(), 100u);
  EXPECT_EQ(op.outcomes[0], 98u);
  EXPECT_EQ(op.errors(), 2u);
  Json j = SummaryToJson(s);
  const Json& o = j["phases"][0]["ops"][0];
  EXPECT_EQ(o["ok"], 98);
  EXPECT_EQ(o["errors"]["unavailable"], 2);
  EXPECT_DOUBLE_EQ(o["ops_per_s"].get<double>(), 50.0);
  EXPECT_NEAR(o["latency_us"]["p50"].get<double>(), 1000, 10);
  EXPECT_NEAR(o["latency_us"]["p99"].get<double>(), 100000, 1000);
  std::string md = RenderReportMarkdown(s);
  EXPECT_NE(md.find("| insert | 100 | 2.00s | 50.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("unavailable 2"), std::string::npos);
  std::string csv = RenderTimelineCsv(Journal());
  EXPECT_NE(csv.find("2.000,insert,insert,10,8,0,2,0,0,10.0,"), std::string::npos) << csv;
}

// A phase's last row covers what is left after its last whole second: its
// operations count, but a rate over 3 ms would be a spike of nothing.
TEST(RunSummaryTest, TheTimelineGivesNoRateForAPhasesLastSliver) {
  std::vector<Json> j = Journal();
  j.insert(j.begin() + 4, Second("insert", 249, 0, 1'000'000, 2.003, 0.003));
  std::string csv = RenderTimelineCsv(j);
  EXPECT_NE(csv.find("2.003,insert,insert,249,249,0,0,0,0,,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("2.000,insert,insert,10,8,0,2,0,0,10.0,"), std::string::npos) << csv;
}

// Node samples: disk at the first and last sample, peak memory, and CPU
// used over the run, a restarted process's CPU counted from its start.
TEST(RunSummaryTest, NodesShowDiskAtStartAndEndAndCpuAcrossARestart) {
  std::vector<Json> j = Journal();
  const auto node = [](double t, bool running, int64_t disk, int64_t rss, double cpu) {
    Json n = {{"type", "node"}, {"node", "db3"}, {"agent", "a2"}, {"t", t}, {"running", running}, {"disk_bytes", disk}};
    if (rss >= 0) n["rss_bytes"] = rss;
    if (cpu >= 0) n["cpu_s"] = cpu;
    return n;
  };
  j.insert(j.begin() + 2, node(0.5, true, 10'000'000, 50'000'000, 100.0));
  j.insert(j.begin() + 3, node(1.5, true, 12'000'000, 80'000'000, 101.5));
  j.insert(j.begin() + 4, node(2.5, false, 12'000'000, -1, -1));          // killed
  j.insert(j.begin() + 5, node(3.5, true, 15'500'000, 40'000'000, 0.5));  // started again
  RunSummary s = BuildSummary(j);
  ASSERT_EQ(s.nodes.count("db3"), 1u);
  const NodeUsage& n = s.nodes.at("db3");
  EXPECT_EQ(n.disk_first, 10'000'000);
  EXPECT_EQ(n.disk_last, 15'500'000);
  EXPECT_EQ(n.rss_max, 80'000'000);
  EXPECT_DOUBLE_EQ(n.cpu_used_s, 2.0);
  EXPECT_TRUE(n.running_last);
  const Json out = SummaryToJson(s)["nodes"][0];
  EXPECT_EQ(out["disk_bytes_start"], 10'000'000);
  EXPECT_EQ(out["agent"], "a2");
  const std::string md = RenderReportMarkdown(s);
  EXPECT_NE(md.find("| db3 | a2 | 10.0 | 15.5 | 5.5 | 80.0 | 2.0 | yes |"), std::string::npos) << md;
  EXPECT_EQ(DiskUsageLine(s.nodes), "Disk usage (MB, start -> end of the run): db3 10.0 -> 15.5.");
}

TEST(RunSummaryTest, TornLastLineIsSkippedAndUnfinishedRunIsFlagged) {
  std::string path = ::testing::TempDir() + "/journal.jsonl";
  {
    std::ofstream out(path);
    auto j = Journal();
    for (size_t i = 0; i < 4; ++i) out << j[i].dump() << "\n";
    out << "{\"type\":\"sec";
  }
  auto lines = ReadJournal(path);
  ASSERT_TRUE(lines.ok()) << lines.status().message();
  EXPECT_EQ(lines->size(), 4u);
  RunSummary s = BuildSummary(*lines);
  EXPECT_FALSE(s.finished);
  EXPECT_EQ(s.phases[0].ops[0].count(), 100u);
  EXPECT_NE(s.error.find("did not finish"), std::string::npos);
  std::remove(path.c_str());
}

TEST(RunSummaryTest, CorruptMiddleLineIsSkippedWithItsLineNumber) {
  std::string path = ::testing::TempDir() + "/journal-corrupt.jsonl";
  auto j = Journal();
  {
    std::ofstream out(path);
    for (size_t i = 0; i < j.size(); ++i) {
      out << (i == 2 ? std::string("{\"type\":\"sec\x01garbage") : j[i].dump()) << "\n";
    }
  }
  std::vector<std::string> warnings;
  auto lines = ReadJournal(path, &warnings);
  ASSERT_TRUE(lines.ok()) << lines.status().message();
  EXPECT_EQ(lines->size(), j.size() - 1);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("journal-corrupt.jsonl:3: skipped"), std::string::npos) << warnings[0];
  RunSummary s = BuildSummary(*lines);
  EXPECT_TRUE(s.finished);
  std::remove(path.c_str());
}

TEST(JournalWriterTest, AFullDiskStopsWritingAndReportsTheFirstError) {
  JournalWriter w;
  ASSERT_TRUE(w.Open("/dev/full").ok());
  Status s = w.Append(Json{{"type", "run"}});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/dev/full: No space left on device"), std::string::npos) << s.message();
  EXPECT_EQ(w.Append(Json{{"type", "end"}}).message(), s.message());
}

TEST(RunSummaryTest, AJournalWithWrongTypesIsReportedNotThrown) {
  const std::vector<Json> journal = {
      Json::parse(R"({"type":"run","agents":5,"roles":[1],"report":7,"recovery":"x"})"),
      Json::parse(R"({"type":"phase_start","owed":"x","index":0,"workers":-4})"),
      Json::parse(R"({"type":"second","index":0,"ops":{"a":{"outcomes":[1]}},"agent_ops":[3]})"),
      Json::parse(R"({"type":"fault","index":"0","requested_t":"soon"})"),
      Json::parse(R"({"type":"health","t":[],"healthy":1})"),
      Json::parse(R"({"type":"agent","event":3,"last_heard_t":"x"})"),
      Json::parse(R"({"type":"end","ok":"yes","degraded":5})"),
  };
  RunSummary s;
  ASSERT_NO_THROW(s = BuildSummary(journal));
  ASSERT_EQ(s.phases.size(), 1u);
  EXPECT_EQ(s.phases[0].owed, -1);
  EXPECT_EQ(s.phases[0].done(), 1u);
  EXPECT_TRUE(s.finished);
  EXPECT_FALSE(s.ok);
  Json view;
  ASSERT_NO_THROW(view = BuildRunView(journal));
  EXPECT_EQ(view["status"], "failed");
  EXPECT_NO_THROW(RenderReportMarkdown(s));
}

}  // namespace
}  // namespace stampede::report

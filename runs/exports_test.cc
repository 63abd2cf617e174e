#include "runs/exports.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace stampede::runs {
namespace {

RunRecord NightlyRun(const std::string& id, const std::string& started, std::vector<Metric> metrics) {
  RunRecord r;
  r.run_id = id;
  r.plan = "nightly";
  r.started_at = started;
  r.verdict = "ok";
  r.metrics = std::move(metrics);
  return r;
}

TEST(Exports, OtavaCsvHasATimeColumnAndOneColumnPerNumber) {
  std::vector<RunRecord> runs = {
      NightlyRun("20261201-1", "2026-12-01T10:00:00Z",
                 {{"mixed read p99 (ms)", 2.5, false}, {"mixed read ops/s", 600, true}}),
      NightlyRun("20261202-1", "2026-12-02T10:00:00Z",
                 {{"mixed read ops/s", 310, true}, {"fault 0 kill node3 unavailability (s)", 1.25, false}}),
  };
  runs[1].version = "0.9.0";
  runs[1].verdict = "expectations not met";
  std::ostringstream csv;
  WriteOtavaCsv(runs, csv);
  EXPECT_EQ(csv.str(),
            "time,run,version,result,mixed_read_p99_ms,mixed_read_ops_s,fault_0_kill_node3_unavailability_s\n"
            "2026-12-01T10:00:00Z,20261201-1,-,ok,2.5,600,\n"
            "2026-12-02T10:00:00Z,20261202-1,0.9.0,expectations_not_met,,310,1.25\n");
  EXPECT_EQ(OtavaConfig("nightly", "nightly.csv", runs),
            "tests:\n  stampede.nightly:\n    type: csv\n    file: nightly.csv\n    time_column: time\n"
            "    attributes: [run, version, result]\n"
            "    metrics: [mixed_read_p99_ms, mixed_read_ops_s, fault_0_kill_node3_unavailability_s]\n");
}

TEST(Exports, BencherJsonPutsEachNumberInItsMeasure) {
  const RunRecord r = NightlyRun("r1", "2026-12-01T10:00:00Z",
                                 {{"mixed read p99 (ms)", 2.5, false},
                                  {"mixed read ops/s", 600, true},
                                  {"fault 0 kill node3 unavailability (s)", 1.25, false},
                                  {"mixed client CPU (µs/op)", 8.5, false},
                                  {"mixed read errors", 3, false}});
  std::ostringstream out;
  WriteBencherJson(r, out);
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["nightly: mixed read p99"]["latency"]["value"], 2.5e6);  // ns
  EXPECT_EQ(j["nightly: mixed read"]["throughput"]["value"], 600);
  EXPECT_EQ(j["nightly: fault 0 kill node3 unavailability"]["seconds"]["value"], 1.25);
  EXPECT_EQ(j["nightly: mixed client CPU"]["µs/op"]["value"], 8.5);
  EXPECT_EQ(j["nightly: mixed read errors"]["count"]["value"], 3);
  EXPECT_EQ(j.size(), 5u);
  EXPECT_EQ(ColumnName("mixed client CPU (µs/op)"), "mixed_client_CPU_us_op");
}

}  // namespace
}  // namespace stampede::runs

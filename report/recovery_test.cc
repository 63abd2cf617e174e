#include "report/recovery.h"

#include <gtest/gtest.h>

namespace stampede::report {
namespace {

// One line per second: `ok` successes and `errors` unavailable ops at 1 ms.
Json Line(double t, uint64_t ok, uint64_t errors) {
  Histogram h;
  h.RecordN(1'000'000, ok + errors);
  return {{"type", "second"},
          {"t", t},
          {"interval_s", 1.0},
          {"ops", {{"insert", {{"outcomes", {ok, 0, errors, 0, 0}}, {"latency", HistogramToJson(h)}}}}}};
}

TEST(RecoveryTest, NumbersFromAKillAndRecovery) {
  std::vector<Json> j = {
      {{"type", "run"}, {"recovery", {{"baseline_s", 5.0}, {"recovered_fraction", 0.9}, {"hold_s", 3.0}}}}};
  for (int t = 1; t <= 5; ++t) j.push_back(Line(t, 100, 0));  // baseline 100/s
  j.push_back({{"type", "fault"},
               {"index", 0},
               {"phase", "p"},
               {"action", "kill"},
               {"node", "db3"},
               {"agent", "a"},
               {"requested_t", 5.2}});
  j.push_back({{"type", "fault_result"}, {"index", 0}, {"ok", true}, {"t", 5.25}, {"message", "kill db3"}});
  j.push_back(Line(6, 40, 10));  // (5,6]: errors start
  j.push_back(Line(7, 0, 30));   // zero success
  j.push_back(Line(8, 0, 30));   // zero success
  j.push_back(Line(9, 50, 5));
  for (int t = 10; t <= 14; ++t) j.push_back(Line(t, 95, 0));
  for (double t : {4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5}) {
    j.push_back({{"type", "health"}, {"t", t}, {"healthy", t < 5 || t > 9}});
  }
  auto faults = ComputeRecovery(j);
  ASSERT_EQ(faults.size(), 1u);
  const FaultRecovery& f = faults[0];
  EXPECT_TRUE(f.ok);
  EXPECT_DOUBLE_EQ(f.t, 5.25);
  EXPECT_DOUBLE_EQ(f.baseline_ops_per_s, 100);
  EXPECT_DOUBLE_EQ(f.first_failure_s, 0);
  EXPECT_DOUBLE_EQ(f.unavailable_s, 2);
  EXPECT_DOUBLE_EQ(f.error_window_s, 4);
  EXPECT_EQ(f.outcomes[2], 75u);
  EXPECT_DOUBLE_EQ(f.dip, 0);
  EXPECT_NEAR(f.recovered_s, 9 - 5.25, 1e-9);  // 95/s from t=9 held for 3 s
  EXPECT_NEAR(f.healthy_s, 9.5 - 5.25, 1e-9);  // 3 healthy polls in a row from 9.5
  EXPECT_GT(f.during.count, 0u);
  std::string md = RenderRecoveryMarkdown(faults);
  EXPECT_NE(md.find("| unavailability (longest zero-success window) | 2.0 s |"), std::string::npos) << md;
}

}  // namespace
}  // namespace stampede::report

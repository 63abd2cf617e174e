#include "report/fault_cycles.h"

#include <gtest/gtest.h>

namespace stampede::report {
namespace {

FaultRecovery Cycle(const std::string& action, const std::string& node, double t, double unavailable, double recovered,
                    double healthy) {
  FaultRecovery f;
  f.action = action;
  f.node = node;
  f.ok = true;
  f.t = t;
  f.observed = true;
  f.probed = true;
  f.unavailable_s = unavailable;
  f.recovered_s = recovered;
  f.healthy_s = healthy;
  f.dip = 0;
  return f;
}

TEST(FaultCyclesTest, PercentilesAreNearestRank) {
  CycleStat s = CycleStat::Of({3, 1, 2});
  EXPECT_EQ(s.n, 3);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.median, 2);
  EXPECT_EQ(s.p90, 3);
  EXPECT_EQ(s.max, 3);
  s = CycleStat::Of({5, 1, 4, 2, 3, 6, 7, 8, 9, 10});
  EXPECT_EQ(s.median, 5);
  EXPECT_EQ(s.p90, 9);
  EXPECT_EQ(CycleStat::Of({}).n, 0);
  EXPECT_EQ(CycleStat::Of({4}).p90, 4);
}

TEST(FaultCyclesTest, RepeatedFaultsOfOneKindOnOneNodeAreOneDistribution) {
  std::vector<FaultRecovery> faults = {
      Cycle("kill", "db3", 10, 5, 9, 7), Cycle("start", "db3", 15, 0, -1, 3), Cycle("kill", "db3", 30, 4, 6, 8),
      Cycle("kill", "db2", 40, 2, 3, 3), Cycle("start", "db3", 35, 0, -1, 2), Cycle("kill", "db3", 50, 6, -1, -1),
  };
  faults[5].next_fault = false;  // the last: not recovered within the run
  std::vector<FaultCycles> cycles = GroupFaultCycles(faults);
  ASSERT_EQ(cycles.size(), 2u);  // kill db3 x3, start db3 x2; kill db2 once is no distribution
  const FaultCycles& kill = cycles[0];
  EXPECT_EQ(kill.action, "kill");
  EXPECT_EQ(kill.faults, (std::vector<int>{0, 2, 5}));
  EXPECT_EQ(kill.took_effect, 3);
  EXPECT_EQ(kill.not_recovered, 1);
  EXPECT_EQ(kill.not_healthy, 1);
  EXPECT_EQ(kill.unavailable.n, 3);
  EXPECT_EQ(kill.unavailable.min, 4);
  EXPECT_EQ(kill.unavailable.median, 5);
  EXPECT_EQ(kill.unavailable.max, 6);
  EXPECT_EQ(kill.recovered.n, 2);  // the cycle that never recovered is counted, not averaged in
  EXPECT_EQ(kill.gap.n, 2);
  EXPECT_EQ(kill.gap.min, -2);  // clients back 2 s before the probe said healthy
  EXPECT_EQ(kill.gap.max, 2);
  EXPECT_EQ(cycles[1].action, "start");
  EXPECT_EQ(cycles[1].faults.size(), 2u);

  Json j = FaultCyclesToJson(kill);
  EXPECT_EQ(j["count"], 3);
  EXPECT_EQ(j["unavailability_s"]["median"], 5.0);
  EXPECT_EQ(j["time_to_recovered_s"]["n"], 2);
  const std::string md = RenderFaultCyclesMarkdown(cycles, faults);
  EXPECT_NE(md.find("### kill db3 x3 (3 took effect; not recovered: 1, never healthy: 1)"), std::string::npos) << md;
  EXPECT_NE(md.find("| unavailability | 4.0 s | 5.0 s | 6.0 s | 6.0 s | 3 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 3 | 50.0 s | 6.0 s | not recovered within the run | not recovered within the run | n/a | 0% |"),
            std::string::npos)
      << md;
}

TEST(FaultCyclesTest, ACycleThatDidNotTakeEffectIsListedButNotMeasured) {
  std::vector<FaultRecovery> faults = {Cycle("pause", "r1", 5, 1.5, 2, 1), Cycle("pause", "r1", 25, 9, 9, 9)};
  faults[1].ok = false;
  faults[1].message = "no such process";
  std::vector<FaultCycles> cycles = GroupFaultCycles(faults);
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].took_effect, 1);
  EXPECT_EQ(cycles[0].unavailable.n, 1);
  EXPECT_EQ(cycles[0].unavailable.max, 1.5);
  EXPECT_NE(RenderFaultCyclesMarkdown(cycles, faults).find("did not take effect: no such process"), std::string::npos);
}

}  // namespace
}  // namespace stampede::report

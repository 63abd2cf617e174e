#include "report/rolls.h"

#include <gtest/gtest.h>

namespace stampede::report {
namespace {

record::Second Sec(double end, uint64_t ok) {
  record::Second s;
  s.t = end;
  s.interval_s = 1;
  s.ops["read"].outcomes[0] = ok;
  return s;
}

// Three restarts in turn; the roll runs from the first asked for to the
// third's cluster healthy again, and its lowest second is against the
// first step's baseline.
TEST(RollsTest, TheRollAsAWhole) {
  RollTracker t;
  std::vector<FaultRecovery> faults;
  for (int k = 0; k < 3; ++k) {
    record::FaultSent f;
    f.index = uint32_t(k);
    f.action = "restart";
    f.node = "node" + std::to_string(k + 1);
    f.roll = 0;
    f.roll_step = uint32_t(k);
    f.roll_steps = 3;
    f.roll_floor = 0.5;
    t.Add(f);
    FaultRecovery r;
    r.index = k;
    r.ok = true;
    r.requested_t = 10 + 10 * k;
    r.t = r.requested_t + 4;  // the restart took 4 s
    r.healthy_s = 2;
    r.baseline_ops_per_s = 100;
    faults.push_back(r);
  }
  for (int s = 1; s <= 40; ++s) t.Add(Sec(s, s == 15 ? 40 : s == 25 ? 60 : 100));
  const std::vector<RollNumbers> rolls = t.Result(faults);
  ASSERT_EQ(rolls.size(), 1u);
  const RollNumbers& r = rolls[0];
  EXPECT_EQ(r.steps_done, 3u);
  EXPECT_EQ(r.nodes, (std::vector<std::string>{"node1", "node2", "node3"}));
  EXPECT_DOUBLE_EQ(r.duration_s, 36 - 10);  // the third: asked at 30, took effect at 34, healthy 2 s later
  EXPECT_DOUBLE_EQ(r.lowest, 0.4);
  EXPECT_FALSE(r.floor_held);
  const std::string md = RenderRollsMarkdown(rolls);
  EXPECT_NE(md.find("| 0 | node1, node2, node3 | 3 of 3 | 26.0 s | 100.0 | 40% | 50%: **broken** |"), std::string::npos)
      << md;
  EXPECT_EQ(RollToJson(r)["floor_held"], false);
}

}  // namespace
}  // namespace stampede::report

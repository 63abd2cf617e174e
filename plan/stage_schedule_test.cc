#include "plan/stage_schedule.h"

#include <gtest/gtest.h>

namespace stampede::plan {
namespace {

v1::Phase Staged(std::initializer_list<std::pair<int, double>> stages, bool rate) {
  v1::Phase p;
  for (auto [ms, v] : stages) {
    v1::Stage* s = p.add_stages();
    s->set_duration_ms(uint64_t(ms));
    if (rate)
      s->set_rate(v);
    else
      s->set_workers(uint32_t(v));
  }
  return p;
}

TEST(StageScheduleTest, ConstantRate) {
  v1::Phase p;
  p.set_rate(100);
  StageSchedule s(p);
  EXPECT_TRUE(s.open_loop());
  EXPECT_DOUBLE_EQ(s.TimeOfOp(0), 0);
  EXPECT_DOUBLE_EQ(s.TimeOfOp(250), 2.5);
}

TEST(StageScheduleTest, WorkerRampThenHold) {
  StageSchedule s(Staged({{5000, 20}, {5000, 20}}, false));
  EXPECT_TRUE(s.staged_workers());
  EXPECT_DOUBLE_EQ(s.ValueAt(0), 0);
  EXPECT_DOUBLE_EQ(s.ValueAt(2.5), 10);
  EXPECT_DOUBLE_EQ(s.ValueAt(5), 20);
  EXPECT_DOUBLE_EQ(s.ValueAt(9), 20);
  EXPECT_DOUBLE_EQ(s.ValueAt(11), 20);
}

TEST(StageScheduleTest, RateRampInvertsTheIntegral) {
  // 0 -> 100 ops/s over 10 s (500 ops), then 100 ops/s for 10 s (1000 more).
  StageSchedule s(Staged({{10000, 100}, {10000, 100}}, true));
  EXPECT_TRUE(s.open_loop());
  EXPECT_NEAR(s.TimeOfOp(0), 0, 1e-9);
  // Integral of 10 t is 5 t^2: 125 ops at 5 s, 500 at 10 s.
  EXPECT_NEAR(s.TimeOfOp(125), 5, 1e-9);
  EXPECT_NEAR(s.TimeOfOp(500), 10, 1e-9);
  EXPECT_NEAR(s.TimeOfOp(1000), 15, 1e-9);
  EXPECT_NEAR(s.TimeOfOp(1500), 20, 1e-9);
  EXPECT_LT(s.TimeOfOp(1501), 0);
  // Monotone.
  double last = -1;
  for (int n = 0; n < 1500; n += 7) {
    double t = s.TimeOfOp(n);
    EXPECT_GE(t, last);
    last = t;
  }
}

TEST(StageScheduleTest, RampDown) {
  StageSchedule s(Staged({{1000, 100}, {1000, 0}}, true));
  // 50 ops in the first second, 50 in the second.
  EXPECT_NEAR(s.TimeOfOp(50), 1, 1e-9);
  EXPECT_NEAR(s.TimeOfOp(99.99), 2, 2e-2);  // sqrt-steep near a ramp to 0
}

// OpsBy is TimeOfOp's inverse; ScheduledOpsBy bounds it by the phase.
TEST(StageScheduleTest, OpsDueByATime) {
  v1::Phase ramp = Staged({{2000, 100}, {2000, 100}, {1000, 0}}, true);
  StageSchedule s(ramp);
  for (double n : {0.0, 10.0, 100.0, 250.0, 300.0, 340.0}) EXPECT_NEAR(s.OpsBy(s.TimeOfOp(n)), n, 1e-6) << n;
  EXPECT_NEAR(s.OpsBy(99), 350, 1e-9);  // 100 + 200 + 50, then nothing
  v1::Phase p;
  p.set_rate(1000);
  p.set_ops(8000);
  auto by = ScheduledOpsBy(p);
  ASSERT_TRUE(by);
  EXPECT_DOUBLE_EQ(by(2.5), 2500);
  EXPECT_DOUBLE_EQ(by(20), 8000);
  p.set_ops(0);
  p.set_duration_ms(5000);
  EXPECT_DOUBLE_EQ(ScheduledOpsBy(p)(20), 5000);
  EXPECT_FALSE(ScheduledOpsBy(v1::Phase()));
}

}  // namespace
}  // namespace stampede::plan

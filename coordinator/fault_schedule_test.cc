#include "coordinator/fault_schedule.h"

#include <gtest/gtest.h>

#include "common/clock.h"

namespace stampede::coordinator {
namespace {

v1::Plan Plan() {
  v1::Plan plan;
  for (const char* step : {"InsertOne", "Count", "UpdateOne"}) {
    v1::Phase* p = plan.add_phases();
    p->set_name(std::string("insert/") + step);
    p->set_group("insert");
    p->set_ops(100);
  }
  v1::Phase* read = plan.add_phases();
  read->set_name("read");
  read->set_duration_ms(10000);
  auto add = [&](const char* phase, uint64_t at_ms, double pct, const char* action) {
    v1::Fault* f = plan.add_faults();
    f->set_phase(phase);
    f->set_at_ms(at_ms);
    f->set_at_percent(pct);
    f->set_action(action);
    f->set_node("db3");
  };
  add("insert", 2000, 0, "kill");
  add("insert", 0, 50, "start");  // 50% of the 300 ops of all three steps
  add("read", 1000, 0, "pause");
  return plan;
}

TEST(FaultScheduleTest, ATimedFaultIsDueFromThePlanPhasesStart) {
  v1::Plan plan = Plan();
  FaultSchedule s(plan);
  ASSERT_TRUE(s.StartsGroup(0));
  EXPECT_FALSE(s.StartsGroup(1));
  EXPECT_TRUE(s.EndsGroup(2));
  s.StartGroup(0, 5 * kNsPerSec);
  EXPECT_TRUE(s.TakeDue(6 * kNsPerSec, 0).empty());
  EXPECT_EQ(s.TakeDue(7 * kNsPerSec, 0), std::vector<int>{0});
  EXPECT_TRUE(s.TakeDue(8 * kNsPerSec, 0).empty());  // sent once
}

TEST(FaultScheduleTest, APercentFaultCountsEveryStepsOps) {
  v1::Plan plan = Plan();
  FaultSchedule s(plan);
  s.StartGroup(0, 0);
  EXPECT_EQ(s.TakeDue(0, 149), std::vector<int>{});
  EXPECT_EQ(s.TakeDue(0, 150), std::vector<int>{1});  // the kill is by time
  EXPECT_EQ(s.TakeDue(3 * kNsPerSec, 150), std::vector<int>{0});
}

TEST(FaultScheduleTest, UnsentFaultsAreReportedWhenThePhaseEnds) {
  v1::Plan plan = Plan();
  FaultSchedule s(plan);
  s.StartGroup(3, 0);
  EXPECT_EQ(s.TakeUnsent(), std::vector<int>{2});
  EXPECT_TRUE(s.empty());
}

TEST(FaultScheduleTest, AResumedRunSkipsFaultsAlreadySent) {
  v1::Plan plan = Plan();
  FaultSchedule s(plan);
  s.StartGroup(0, 0, {0});
  EXPECT_EQ(s.TakeDue(10 * kNsPerSec, 300), std::vector<int>{1});
}

// A rolling restart's later steps wait for the one before to take effect
// and for the cluster to be healthy again (K polls), or for max_wait.
TEST(FaultScheduleTest, ARollingRestartStepWaitsForHealthyOrMaxWait) {
  v1::Plan plan;
  v1::Phase* p = plan.add_phases();
  p->set_name("load");
  p->set_duration_ms(600000);
  for (uint32_t k = 0; k < 3; ++k) {
    v1::Fault* f = plan.add_faults();
    f->set_phase("load");
    f->set_at_ms(10000);
    f->set_action("restart");
    f->set_node("node" + std::to_string(k + 1));
    f->mutable_roll()->set_step(k);
    f->mutable_roll()->set_steps(3);
    f->mutable_roll()->set_max_wait_ms(60000);
  }
  FaultSchedule s(plan);
  s.StartGroup(0, 0);
  FaultSchedule::Progress progress;
  progress.healthy_polls_needed = 3;
  int healthy = 0;
  progress.healthy_polls_since = [&](int64_t) { return healthy; };
  EXPECT_EQ(s.TakeDue(10 * kNsPerSec, 0, progress), std::vector<int>{0});
  EXPECT_TRUE(s.TakeDue(30 * kNsPerSec, 0, progress).empty());  // step 0 has not taken effect
  progress.done_ns[0] = 31 * kNsPerSec;
  healthy = 2;
  EXPECT_TRUE(s.TakeDue(33 * kNsPerSec, 0, progress).empty());
  healthy = 3;
  EXPECT_EQ(s.TakeDue(34 * kNsPerSec, 0, progress), std::vector<int>{1});
  // Never healthy again: the next step goes at max_wait.
  progress.done_ns[1] = 40 * kNsPerSec;
  healthy = 0;
  EXPECT_TRUE(s.TakeDue(99 * kNsPerSec, 0, progress).empty());
  EXPECT_EQ(s.TakeDue(100 * kNsPerSec, 0, progress), std::vector<int>{2});
}

// A step that failed (no done time) stops the roll: the rest are unsent.
TEST(FaultScheduleTest, AFailedRollStepStopsTheRoll) {
  v1::Plan plan;
  plan.add_phases()->set_name("load");
  for (uint32_t k = 0; k < 2; ++k) {
    v1::Fault* f = plan.add_faults();
    f->set_phase("load");
    f->set_action("restart");
    f->mutable_roll()->set_step(k);
    f->mutable_roll()->set_steps(2);
    f->mutable_roll()->set_max_wait_ms(1000);
  }
  FaultSchedule s(plan);
  s.StartGroup(0, 0);
  FaultSchedule::Progress progress;
  EXPECT_EQ(s.TakeDue(0, 0, progress), std::vector<int>{0});
  EXPECT_TRUE(s.TakeDue(100 * kNsPerSec, 0, progress).empty());
  EXPECT_EQ(s.TakeUnsent(), std::vector<int>{1});
}

}  // namespace
}  // namespace stampede::coordinator

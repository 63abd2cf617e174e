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

}  // namespace
}  // namespace stampede::coordinator

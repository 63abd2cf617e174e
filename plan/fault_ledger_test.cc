#include "plan/fault_ledger.h"

#include <gtest/gtest.h>

namespace stampede::plan {
namespace {

v1::Plan PlanWith(std::initializer_list<std::pair<const char*, const char*>> faults) {
  v1::Plan p;
  for (const auto& [action, node] : faults) {
    v1::Fault* f = p.add_faults();
    f->set_action(action);
    f->set_node(node);
  }
  return p;
}

TEST(FaultLedgerTest, APausedNodeIsResumedWhenTheRunEndsEarly) {
  v1::Plan plan = PlanWith({{"pause", "db1"}, {"resume", "db1"}});
  FaultLedger l(plan);
  l.Sent(0);
  l.TookEffect("pause", "db1");
  auto undo = l.Pending();
  ASSERT_EQ(undo.size(), 1u);
  EXPECT_EQ(undo[0].action, "resume");
  EXPECT_EQ(undo[0].node, "db1");
  l.Sent(1);
  l.TookEffect("resume", "db1");
  EXPECT_TRUE(l.Pending().empty());
}

TEST(FaultLedgerTest, AKilledNodeIsStartedOnlyIfThePlanMeantTo) {
  v1::Plan plan = PlanWith({{"kill", "db1"}, {"start", "db1"}, {"kill", "db2"}});
  FaultLedger l(plan);
  l.Sent(0);
  l.TookEffect("kill", "db1");
  l.Sent(2);
  l.TookEffect("kill", "db2");  // the plan leaves db2 down
  auto undo = l.Pending();
  ASSERT_EQ(undo.size(), 1u);
  EXPECT_EQ(undo[0].action, "start");
  EXPECT_EQ(undo[0].node, "db1");
  // Its planned start was sent already: not twice.
  l.Sent(1);
  EXPECT_TRUE(l.Pending().empty());
}

TEST(FaultLedgerTest, NothingToUndoWhenNothingTookEffect) {
  v1::Plan plan = PlanWith({{"pause", "db1"}, {"resume", "db1"}});
  FaultLedger l(plan);
  l.Sent(0);  // sent, but the agent refused it
  EXPECT_TRUE(l.Pending().empty());
}

}  // namespace
}  // namespace stampede::plan

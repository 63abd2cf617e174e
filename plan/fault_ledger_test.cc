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

TEST(FaultLedgerTest, ANetworkFaultIsAlwaysHealedAndFirst) {
  // Whether or not the plan heals later: a cut-off node is never kept.
  v1::Plan plan = PlanWith({{"pause", "db1"}, {"partition", "db2"}, {"loss", "db2"}, {"delay", "db3"}});
  FaultLedger l(plan);
  for (int i = 0; i < 4; ++i) l.Sent(i);
  l.TookEffect("pause", "db1");
  l.TookEffect("partition", "db2");
  l.TookEffect("loss", "db2");
  l.TookEffect("delay", "db3");
  auto undo = l.Pending();
  ASSERT_EQ(undo.size(), 3u);
  EXPECT_EQ(undo[0].action + " " + undo[0].node, "heal db2");
  EXPECT_EQ(undo[1].action + " " + undo[1].node, "heal db3");
  EXPECT_EQ(undo[2].action + " " + undo[2].node, "resume db1");
  l.TookEffect("heal", "db2");
  l.TookEffect("heal", "db3");
  l.TookEffect("resume", "db1");
  EXPECT_TRUE(l.Pending().empty());
}

TEST(FaultLedgerTest, AFullDiskIsHealedToo) {
  v1::Plan plan = PlanWith({{"fill", "db1"}});
  FaultLedger l(plan);
  l.Sent(0);
  l.TookEffect("fill", "db1");
  auto undo = l.Pending();
  ASSERT_EQ(undo.size(), 1u);
  EXPECT_EQ(undo[0].action + " " + undo[0].node, "heal db1");
  l.TookEffect("heal", "db1");
  EXPECT_TRUE(l.Pending().empty());
}

}  // namespace
}  // namespace stampede::plan

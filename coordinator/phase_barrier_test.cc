#include "coordinator/phase_barrier.h"

#include <gtest/gtest.h>

namespace stampede::coordinator {
namespace {

using Mark = PhaseBarrier::Mark;

TEST(PhaseBarrierTest, AGroupIsReadyWhenEachOfItsAgentsIs) {
  PhaseBarrier b;
  EXPECT_TRUE(b.All(Mark::kReady, 0, {}));
  EXPECT_FALSE(b.All(Mark::kReady, 0, {"a", "b"}));
  b.Ready(0, "a", 100, 10);
  EXPECT_TRUE(b.Has(Mark::kReady, 0, "a"));
  EXPECT_FALSE(b.Has(Mark::kDone, 0, "a"));
  EXPECT_FALSE(b.All(Mark::kReady, 0, {"a", "b"}));
  b.Ready(1, "b", 100, 10);  // another phase's mark does not count
  EXPECT_FALSE(b.All(Mark::kReady, 0, {"a", "b"}));
  b.Ready(0, "b", 0, 10);  // time 0 still marks
  EXPECT_TRUE(b.All(Mark::kReady, 0, {"a", "b"}));
}

TEST(PhaseBarrierTest, WhatAGroupOwesIsUnknownIfOneShareHasNoSchedule) {
  PhaseBarrier b;
  b.Ready(2, "a", 1, 300);
  b.Ready(2, "b", 1, 200);
  EXPECT_EQ(b.Owed(2, {"a", "b"}), 500);
  EXPECT_EQ(b.Owed(2, {"a", "c"}), -1);  // c has not said
  b.Ready(2, "c", 1, -1);
  EXPECT_EQ(b.Owed(2, {"a", "b", "c"}), -1);
  EXPECT_EQ(b.Owed(2, {}), 0);
}

TEST(PhaseBarrierTest, APhaseEndsWithItsLastAgentAndTimesOutIfAnyDid) {
  PhaseBarrier b;
  EXPECT_EQ(b.EndOf(1).last_done_ns, 0);
  b.Done(1, "a", 5000, false);
  b.Done(1, "b", 7000, true);
  b.Done(2, "a", 9000, false);  // the next phase is not this one's end
  b.Done(0, "z", 9500, true);
  PhaseBarrier::End end = b.EndOf(1);
  EXPECT_EQ(end.last_done_ns, 7000);
  EXPECT_TRUE(end.timed_out);
  EXPECT_FALSE(b.EndOf(2).timed_out);
  b.Done(1, "a", 8000, false);  // a spool handed in again keeps the timeout
  EXPECT_TRUE(b.EndOf(1).timed_out);
  EXPECT_EQ(b.EndOf(1).last_done_ns, 8000);
}

}  // namespace
}  // namespace stampede::coordinator

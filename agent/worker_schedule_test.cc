#include "agent/worker_schedule.h"

#include <gtest/gtest.h>

#include <cmath>

namespace stampede::agent {
namespace {

v1::Phase OpenLoop(uint32_t workers, double rate, uint64_t duration_ms) {
  v1::Phase p;
  p.set_workers(workers);
  p.set_rate(rate);
  p.set_duration_ms(duration_ms);
  return p;
}

uint64_t Issued(const v1::Phase& p, uint32_t g, uint64_t seed = 1) {
  WorkerSchedule s(p, seed, 0, g, WorkerSchedule::BudgetOf(p, g));
  int64_t due;
  while (s.Next(&due)) {
  }
  return s.issued();
}

// ok + errors + missed must equal rate x duration exactly, so the workers'
// owed operations add up to it.
TEST(WorkerScheduleTest, ConstantRateOwesRateTimesDuration) {
  for (uint32_t workers : {1u, 7u, 12u, 50u}) {
    for (double rate : {500.0, 600.0, 333.0, 1.5}) {
      v1::Phase p = OpenLoop(workers, rate, 10000);
      int64_t total = 0;
      for (uint32_t g = 0; g < workers; ++g) {
        const int64_t owed = WorkerSchedule::Owed(p, 1, 0, g, 0);
        EXPECT_EQ(uint64_t(owed), Issued(p, g)) << workers << " workers, rate " << rate;
        total += owed;
      }
      EXPECT_EQ(total, int64_t(std::ceil(rate * 10 - 1e-9))) << workers << " workers, rate " << rate;
    }
  }
}

TEST(WorkerScheduleTest, DueTimesAreSpacedByTheRate) {
  v1::Phase p = OpenLoop(4, 400, 1000);
  WorkerSchedule s(p, 1, 0, 2, 0);
  int64_t due = -1;
  ASSERT_TRUE(s.Next(&due));
  EXPECT_EQ(due, 5000000);  // op 2 of the phase at 400/s
  ASSERT_TRUE(s.Next(&due));
  EXPECT_EQ(due, 15000000);  // op 6
}

TEST(WorkerScheduleTest, PoissonOwedMatchesWhatNextHandsOut) {
  v1::Phase p = OpenLoop(8, 1000, 3000);
  p.set_arrival("poisson");
  int64_t total = 0;
  for (uint32_t g = 0; g < 8; ++g) {
    const int64_t owed = WorkerSchedule::Owed(p, 42, 3, g, 0);
    WorkerSchedule s(p, 42, 3, g, 0);
    int64_t due;
    while (s.Next(&due)) {
    }
    EXPECT_EQ(uint64_t(owed), s.issued());
    total += owed;
  }
  EXPECT_NEAR(double(total), 3000.0, 3 * std::sqrt(3000.0));
}

TEST(WorkerScheduleTest, OpsBoundedPhasesOweTheirBudget) {
  v1::Phase p;
  p.set_workers(3);
  p.set_ops(10);
  EXPECT_TRUE(WorkerSchedule::Owes(p));
  EXPECT_EQ(WorkerSchedule::BudgetOf(p, 0), 4u);
  EXPECT_EQ(WorkerSchedule::BudgetOf(p, 2), 3u);
  EXPECT_EQ(WorkerSchedule::Owed(p, 1, 0, 0, 4), 4);
  EXPECT_EQ(Issued(p, 0), 4u);
  // Rate-paced steps (rebalance2021 with rate:) owe their ops too.
  p.set_rate(100);
  EXPECT_EQ(WorkerSchedule::Owed(p, 1, 0, 1, 3), 3);
}

TEST(WorkerScheduleTest, ClosedLoopWithADurationOwesNothing) {
  v1::Phase p;
  p.set_workers(3);
  p.set_duration_ms(5000);
  EXPECT_FALSE(WorkerSchedule::Owes(p));
  EXPECT_EQ(WorkerSchedule::Owed(p, 1, 0, 0, 0), -1);
}

TEST(WorkerScheduleTest, RateRampOwesTheStagesIntegral) {
  v1::Phase p;
  p.set_workers(5);
  auto* ramp = p.add_stages();
  ramp->set_duration_ms(4000);
  ramp->set_rate(400);
  auto* hold = p.add_stages();
  hold->set_duration_ms(2000);
  hold->set_rate(400);
  p.set_duration_ms(6000);
  int64_t total = 0;
  for (uint32_t g = 0; g < 5; ++g) total += WorkerSchedule::Owed(p, 1, 0, g, 0);
  EXPECT_EQ(total, 1600);  // 0 -> 400/s over 4 s, then 2 s at 400/s
}

}  // namespace
}  // namespace stampede::agent

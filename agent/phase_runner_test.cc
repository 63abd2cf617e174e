#include "agent/phase_runner.h"

#include <gtest/gtest.h>

namespace stampede::agent {
namespace {

TEST(ShareOfTest, SplitsWorkersContiguouslyAndCompletely) {
  for (uint32_t total : {1u, 7u, 8u, 1000u}) {
    for (uint32_t agents : {1u, 2u, 3u, 5u}) {
      uint32_t next = 0;
      for (uint32_t a = 0; a < agents; ++a) {
        WorkerShare s = ShareOf(total, a, agents);
        EXPECT_EQ(s.first, next);
        next += s.count;
      }
      EXPECT_EQ(next, total);
    }
  }
}

TEST(ShareOfTest, WeightedSharesFollowTheWeightsAndCoverEveryWorker) {
  EXPECT_EQ(ShareOf(8, 0, 2, {300, 100}).count, 6u);
  EXPECT_EQ(ShareOf(8, 1, 2, {300, 100}).first, 6u);
  EXPECT_EQ(ShareOf(8, 1, 2, {300, 100}).count, 2u);
  EXPECT_EQ(ShareOf(8, 1, 2, {300}).count, 4u);  // weights that do not fit the shares: even
  EXPECT_EQ(ShareOf(8, 1, 2, {0, 0}).count, 4u);
  for (uint32_t total : {1u, 7u, 100000u}) {
    const std::vector<uint32_t> weights = {1, 1'000'000, 0, 3, 999'999};
    uint32_t next = 0;
    for (uint32_t a = 0; a < weights.size(); ++a) {
      WorkerShare s = ShareOf(total, a, uint32_t(weights.size()), weights);
      EXPECT_EQ(s.first, next);
      if (weights[a] == 0) {
        EXPECT_EQ(s.count, 0u);
      }
      next += s.count;
    }
    EXPECT_EQ(next, total);
  }
}

// Operations served per endpoint, with the first and last of them in the
// interval; the next drain starts afresh.
TEST(WorkerStatsTest, OperationsServedPerEndpoint) {
  WorkerStats stats(1, 3);
  stats.endpoint(1).RecordOk(100);
  stats.endpoint(1).RecordOk(250);
  stats.endpoint(2).RecordOk(180);
  std::vector<OpTotals> ops(1);
  std::vector<Histogram> latency(1);
  std::vector<EndpointTotals> eps(3);
  OpTimes times;
  stats.DrainInto(&ops, &latency, &eps, &times);
  EXPECT_EQ(eps[0].ok, 0u);
  EXPECT_EQ(eps[0].times.first_ok, 0);
  EXPECT_EQ(eps[1].ok, 2u);
  EXPECT_EQ(eps[1].times.first_ok, 100);
  EXPECT_EQ(eps[1].times.last_ok, 250);
  EXPECT_EQ(eps[2].times.first_ok, 180);
  std::vector<EndpointTotals> next(3);
  stats.DrainInto(&ops, &latency, &next, &times);
  EXPECT_EQ(next[1].ok, 0u);
  EXPECT_EQ(next[1].times.last_ok, 0);
}

}  // namespace
}  // namespace stampede::agent

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

}  // namespace
}  // namespace stampede::agent

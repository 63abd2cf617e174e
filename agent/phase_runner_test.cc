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

}  // namespace
}  // namespace stampede::agent

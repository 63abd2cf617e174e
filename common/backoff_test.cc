#include "common/backoff.h"

#include <gtest/gtest.h>

namespace stampede {
namespace {

TEST(BackoffTest, DoublesToTheCapAndStartsOverOnReset) {
  Backoff b(100 * kNsPerMs);
  EXPECT_EQ(b.Next(), 100 * kNsPerMs);
  EXPECT_EQ(b.Next(), 200 * kNsPerMs);
  EXPECT_EQ(b.Next(), 400 * kNsPerMs);
  for (int i = 0; i < 10; ++i) b.Next();
  EXPECT_EQ(b.Next(), kMaxBackoffNs);
  b.Reset();
  EXPECT_EQ(b.Next(), 100 * kNsPerMs);
}

TEST(BackoffTest, NthIsWhatTheNthNextWouldBe) {
  Backoff b(20 * kNsPerMs);
  for (uint32_t n = 1; n < 12; ++n) EXPECT_EQ(NthBackoffNs(20 * kNsPerMs, n), b.Next()) << n;
  EXPECT_EQ(NthBackoffNs(0, 5), 0);
}

TEST(BackoffTest, JitterStaysBetweenHalfAndAll) {
  Rng rng(7);
  int64_t lo = INT64_MAX, hi = 0;
  for (int i = 0; i < 10000; ++i) {
    const int64_t j = Jittered(1000, &rng);
    lo = std::min(lo, j);
    hi = std::max(hi, j);
  }
  EXPECT_GE(lo, 500);
  EXPECT_LE(hi, 1000);
  EXPECT_LT(lo, 510);
  EXPECT_GT(hi, 990);
  EXPECT_EQ(Jittered(0, &rng), 0);
}

}  // namespace
}  // namespace stampede

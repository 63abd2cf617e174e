#include "agent/clock_sync.h"

#include <gtest/gtest.h>

namespace stampede::agent {
namespace {

TEST(ClockSyncTest, PicksTheSmallestRoundTrip) {
  ClockSync c;
  EXPECT_EQ(c.OffsetNs(), 0);
  // True offset +1000; a slow exchange with an asymmetric delay misleads.
  c.AddSample(0, 1000 + 900, 1000);      // rtt 1000, estimate 1400
  c.AddSample(5000, 1000 + 5010, 5020);  // rtt 20, estimate 1000
  c.AddSample(9000, 1000 + 9400, 9500);  // rtt 500
  EXPECT_EQ(c.OffsetNs(), 1000);
  EXPECT_EQ(c.UncertaintyNs(), 10);
}

TEST(ClockSyncTest, IgnoresBackwardsSamples) {
  ClockSync c;
  c.AddSample(100, 50, 10);
  EXPECT_EQ(c.OffsetNs(), 0);
}

}  // namespace
}  // namespace stampede::agent

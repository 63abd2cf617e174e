#include "common/clock.h"

#include <gtest/gtest.h>

namespace stampede {
namespace {

// A skewed, drifting clock and its inverse, for the steady clock's timers.
TEST(ClockTest, ASkewedDriftingClockMapsBackToTheSteadyClock) {
  const ClockSkew saved = g_clock_skew;
  const int64_t base = SteadyNowNs();
  g_clock_skew = ClockSkew{3 * kNsPerSec, 1000, base};
  const int64_t raw = SteadyNowNs(), mono = MonoNowNs();
  EXPECT_NEAR(double(mono - raw), 3e9, 1e6);  // ahead by 3 s (and a few µs of drift)
  EXPECT_NEAR(double(SteadyNsOfMono(mono)), double(raw), 1e5);
  // 10 s of steady time later, the drift has added 10 ms.
  const int64_t later = base + 10 * kNsPerSec;
  const int64_t mono_later = later + 3 * kNsPerSec + 10 * kNsPerMs;
  EXPECT_NEAR(double(SteadyNsOfMono(mono_later)), double(later), 10);
  g_clock_skew = saved;
  EXPECT_EQ(SteadyNsOfMono(12345), 12345);
}

}  // namespace
}  // namespace stampede

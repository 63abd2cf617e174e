#include "common/duration.h"

#include <gtest/gtest.h>

namespace stampede {
namespace {

TEST(DurationTest, ParsesUnits) {
  EXPECT_EQ(*ParseDurationNs("10s"), 10'000'000'000);
  EXPECT_EQ(*ParseDurationNs("1m30s"), 90'000'000'000);
  EXPECT_EQ(*ParseDurationNs("250ms"), 250'000'000);
  EXPECT_EQ(*ParseDurationNs("2h"), 7200'000'000'000);
  EXPECT_EQ(*ParseDurationNs("1.5s"), 1'500'000'000);
}

TEST(DurationTest, RejectsNonsense) {
  for (const char* bad : {"", "10", "10 parsecs", "s", "10parsecs", "-1s", "1..2s"}) {
    auto r = ParseDurationNs(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("expected a duration"), std::string::npos);
    }
  }
}

TEST(DurationTest, FormatsRoundTrip) {
  for (const char* s : {"10s", "2m", "250ms", "1h", "90s"}) {
    EXPECT_EQ(*ParseDurationNs(FormatDurationNs(*ParseDurationNs(s))), *ParseDurationNs(s));
  }
  EXPECT_EQ(FormatDurationNs(120'000'000'000), "2m");
}

}  // namespace
}  // namespace stampede

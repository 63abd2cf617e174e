#include "record/expectation.h"

#include <gtest/gtest.h>

namespace stampede::record {
namespace {

TEST(ExpectationTest, ParsesMetricComparisonAndValueInTheMetricsUnit) {
  auto e = ParseExpectation("phase", "insert", "  p99 < 20ms ");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->metric, "p99");
  EXPECT_EQ(e->cmp, "<");
  EXPECT_DOUBLE_EQ(e->value, 0.020);
  EXPECT_EQ(e->text, "p99 < 20ms");
  EXPECT_EQ(e->op, "");
  e = ParseExpectation("phase", "*", "errors.fatal==0");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->metric, "errors.fatal");
  EXPECT_EQ(e->cmp, "==");
  e = ParseExpectation("phase", "mixed", "read.p999 <= 500us");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->op, "read");
  EXPECT_EQ(e->metric, "p999");
  EXPECT_DOUBLE_EQ(e->value, 0.0005);
  e = ParseExpectation("phase", "mixed", "get.user.errors.fatal == 0");  // op names may have dots
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->op, "get.user");
  EXPECT_EQ(e->metric, "errors.fatal");
  e = ParseExpectation("fault", "kill", "lowest_throughput >= 50%");
  ASSERT_TRUE(e.ok());
  EXPECT_DOUBLE_EQ(e->value, 0.5);
  e = ParseExpectation("phase", "p", "ops_per_s > 1000.5");
  ASSERT_TRUE(e.ok());
  EXPECT_DOUBLE_EQ(e->value, 1000.5);
}

TEST(ExpectationTest, SaysWhatWasExpected) {
  auto e = ParseExpectation("phase", "p", "p99 20ms");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("expected '[OP.]METRIC CMP VALUE' like 'p99 < 20ms'"), std::string::npos)
      << e.status().message();
  e = ParseExpectation("fault", "kill", "p99 < 20ms");  // not a fault metric
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("expected a metric (unavailability, "), std::string::npos);
  e = ParseExpectation("phase", "p", "errors < 0.5");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("expected a whole number like 0 for errors"), std::string::npos);
  e = ParseExpectation("fault", "kill", "lowest_throughput > 50");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("expected a percentage like 50%"), std::string::npos);
  EXPECT_FALSE(ParseExpectation("phase", "p", "p99 < ").ok());
  EXPECT_FALSE(ParseExpectation("phase", "p", "p99 =< 1s").ok());
  EXPECT_FALSE(ParseExpectation("phase", "p", "< 1s").ok());
  EXPECT_FALSE(ParseExpectation("phase", "p", "p99 < 1s 2").ok());
  EXPECT_FALSE(ParseExpectation("phase", "p", "ops_per_s > nan").ok());
}

TEST(ExpectationTest, RelativeToHistory) {
  auto e = ParseExpectation("fault", "kill", "unavailability < 1.5x history");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_TRUE(e->relative);
  EXPECT_EQ(e->value, 1.5);
  e = ParseExpectation("phase", "load", "read.p99 <= 2x  history");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->op, "read");
  EXPECT_TRUE(e->relative);
  EXPECT_FALSE(ParseExpectation("phase", "load", "p99 < 20ms")->relative);
  for (const char* bad : {"p99 < 1.5 history", "p99 < x history", "p99 < -1x history", "p99 < 2000x history"}) {
    auto b = ParseExpectation("phase", "load", bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_NE(b.status().message().find("expected a factor like 1.5x before 'history'"), std::string::npos)
        << b.status().message();
  }
}

TEST(ExpectationTest, ComparesAndFormats) {
  EXPECT_TRUE(Holds(1, "<", 2));
  EXPECT_FALSE(Holds(2, "<", 2));
  EXPECT_TRUE(Holds(2, "<=", 2));
  EXPECT_TRUE(Holds(0, "==", 0));
  EXPECT_TRUE(Holds(1, "!=", 0));
  EXPECT_FALSE(Holds(1, "~", 0));
  EXPECT_EQ(FormatMetricValue(MetricUnit::kSeconds, 0.0125), "12.50 ms");
  EXPECT_EQ(FormatMetricValue(MetricUnit::kSeconds, 3.5), "3.50 s");
  EXPECT_EQ(FormatMetricValue(MetricUnit::kFraction, 0.5), "50.0%");
  EXPECT_EQ(FormatMetricValue(MetricUnit::kCount, 3), "3");
}

}  // namespace
}  // namespace stampede::record

#include "drivers/statement_template.h"

#include <gtest/gtest.h>

namespace stampede::drivers {
namespace {

TEST(StatementTemplateTest, QuestionMarksKeepParameterOrder) {
  std::vector<int> order;
  auto s = ToQuestionMarks("UPDATE t SET foo=$2 WHERE id=$1", 8, &order);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, "UPDATE t SET foo=? WHERE id=?");
  EXPECT_EQ(order, (std::vector<int>{1, 0}));
}

TEST(StatementTemplateTest, SegmentsForRedisWords) {
  auto s = ParsePlaceholders("crud:$1", 8);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[0].literal, "crud:");
  EXPECT_EQ((*s)[1].param, 0);
  EXPECT_FALSE(ParsePlaceholders("x $9", 8).ok());
  EXPECT_FALSE(ParsePlaceholders("x $0", 8).ok());
  // A placeholder of any length is refused without overflowing.
  auto huge = ParsePlaceholders("x $11111111111111111111111111111115", 8);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().message(), "placeholder $11111111111111111111... out of range 1..8");
  auto dollars = ParsePlaceholders("a $$ b $", 8);
  ASSERT_TRUE(dollars.ok());
  EXPECT_EQ((*dollars)[0].literal, "a $ b $");
}

}  // namespace
}  // namespace stampede::drivers

#include "common/strings.h"

#include <gtest/gtest.h>

namespace stampede {
namespace {

TEST(StringsTest, NearestWord) {
  std::vector<std::string> keys = {"workers", "workload", "duration", "rate"};
  EXPECT_EQ(NearestWord("worker", keys), "workers");
  EXPECT_EQ(NearestWord("duraton", keys), "duration");
  EXPECT_EQ(NearestWord("zzzzzzzz", keys), "");
}

TEST(StringsTest, SplitHostPort) {
  std::string h;
  int p;
  ASSERT_TRUE(SplitHostPort("127.0.0.1:5432", &h, &p));
  EXPECT_EQ(h, "127.0.0.1");
  EXPECT_EQ(p, 5432);
  ASSERT_TRUE(SplitHostPort("[::1]:6379", &h, &p));
  EXPECT_EQ(h, "::1");
  EXPECT_FALSE(SplitHostPort("nohost", &h, &p));
  EXPECT_FALSE(SplitHostPort("h:99999", &h, &p));
}

TEST(StringsTest, OneLine) {
  EXPECT_EQ(OneLine("could not connect to server\n\tIs the server running?\n"),
            "could not connect to server Is the server running?");
  EXPECT_EQ(OneLine(""), "");
  EXPECT_EQ(OneLine("a\r\n\nb\n"), "a b");
}

TEST(StringsTest, SplitWords) {
  auto w = SplitWords(R"(EVAL "return 1" 0 a)");
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[1], "return 1");
}

}  // namespace
}  // namespace stampede

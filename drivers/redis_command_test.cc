#include "drivers/redis_command.h"

#include <gtest/gtest.h>

namespace stampede::drivers {
namespace {

TEST(RedisKeySlotTest, MatchesRedisClusterSpec) {
  // Values from the Redis Cluster specification and CLUSTER KEYSLOT.
  EXPECT_EQ(RedisKeySlot("123456789"), 0x31C3 & 16383);
  EXPECT_EQ(RedisKeySlot("foo"), 12182);
  EXPECT_EQ(RedisKeySlot("somekey"), 11058);
  EXPECT_EQ(RedisKeySlot("{user1000}.following"), RedisKeySlot("user1000"));
  EXPECT_EQ(RedisKeySlot("foo{}{bar}"), RedisKeySlot("foo{}{bar}"));
  EXPECT_EQ(RedisKeySlot("{}x"), RedisKeySlot("{}x"));
}

TEST(RedisLoginTest, AuthWithAUserThenSelectUnlessZero) {
  ConnectOptions o;
  EXPECT_TRUE(RedisLogin(o).empty());
  o.password = "pw";
  o.database = "0";
  auto steps = RedisLogin(o);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].words, (std::vector<std::string>{"AUTH", "pw"}));
  EXPECT_EQ(steps[0].what, "authentication");
  o.user = "app";
  o.database = "3";
  steps = RedisLogin(o);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].words, (std::vector<std::string>{"AUTH", "app", "pw"}));
  EXPECT_EQ(steps[1].words, (std::vector<std::string>{"SELECT", "3"}));
  EXPECT_EQ(steps[1].what, "SELECT 3");
}

TEST(RedisCommandsTest, RendersWords) {
  RedisCommands c;
  ASSERT_TRUE(c.Compile({{"SET t:$1 $2", true}}).ok());
  std::vector<std::string> args(RedisCommands::kMaxWords);
  OpRequest req;
  req.Set(0, Param::Int(42));
  req.Set(1, Param::Str("v"));
  ASSERT_EQ(c.Render(req, &args), 3);
  EXPECT_EQ(args[1], "t:42");
  EXPECT_EQ(args[2], "v");
  EXPECT_TRUE(c.write(0));
}

// A batched MSET has more words than kMaxWords and more parameters than an
// OpRequest holds: they come from the caller's array, args grows once.
TEST(RedisCommandsTest, RendersAWideCommandFromTheCallersParameters) {
  std::string text = "MSET";
  std::vector<Param> params;
  std::vector<std::string> values;
  for (int r = 0; r < 500; ++r) values.push_back("v" + std::to_string(r));
  for (int r = 0; r < 500; ++r) {
    text += " t:$" + std::to_string(2 * r + 1) + " $" + std::to_string(2 * r + 2);
    params.push_back(Param::Int(r));
    params.push_back(Param::Str(values[size_t(r)]));
  }
  RedisCommands c;
  ASSERT_TRUE(c.Compile({{text, true}}).ok());
  std::vector<std::string> args(RedisCommands::kMaxWords);
  OpRequest req;
  req.SetWide(params.data(), int(params.size()));
  ASSERT_EQ(c.Render(req, &args), 1001);
  EXPECT_EQ(args[999], "t:499");
  EXPECT_EQ(args[1000], "v499");
}

// Encode writes the same words as RESP in place, as EncodeResp writes the
// rendered ones.
TEST(RedisCommandsTest, EncodesAsTheRenderedWords) {
  RedisCommands c;
  ASSERT_TRUE(c.Compile({{"SET t:$1:x $2 XX", true}, {"GET $1", false}}).ok());
  OpRequest req;
  req.Set(0, Param::Int(-1234567));
  req.Set(1, Param::Str("v a l"));
  std::vector<std::string> args;
  std::string rendered, encoded = "prefix";
  EncodeResp(args, c.Render(req, &args), &rendered);
  c.Encode(req, &encoded);
  EXPECT_EQ(encoded, "prefix" + rendered);
  EXPECT_EQ(rendered, "*4\r\n$3\r\nSET\r\n$12\r\nt:-1234567:x\r\n$5\r\nv a l\r\n$2\r\nXX\r\n");
  req.stmt = 1;
  req.Set(0, Param::Str(""));
  encoded.clear();
  c.Encode(req, &encoded);
  EXPECT_EQ(encoded, "*2\r\n$3\r\nGET\r\n$0\r\n\r\n");
}

}  // namespace
}  // namespace stampede::drivers

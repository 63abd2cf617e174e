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

}  // namespace
}  // namespace stampede::drivers

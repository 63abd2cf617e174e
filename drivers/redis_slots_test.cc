#include "drivers/redis_slots.h"

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <string>

namespace stampede::drivers {
namespace {

// parse applied to the reply hiredis reads from resp.
template <typename Parse>
auto ParsedReply(const std::string& resp, Parse parse) {
  redisReader* reader = redisReaderCreate();
  EXPECT_EQ(redisReaderFeed(reader, resp.data(), resp.size()), REDIS_OK);
  void* reply = nullptr;
  EXPECT_EQ(redisReaderGetReply(reader, &reply), REDIS_OK);
  auto parsed = parse(static_cast<const redisReply*>(reply));
  freeReplyObject(reply);
  redisReaderFree(reader);
  return parsed;
}

TEST(RedisSlotsTest, ParsesRedirects) {
  Redirect r;
  ASSERT_TRUE(ParseRedirect("MOVED 3999 127.0.0.1:6381", &r));
  EXPECT_FALSE(r.ask);
  EXPECT_EQ(r.slot, 3999);
  EXPECT_EQ(r.endpoint, "127.0.0.1:6381");
  ASSERT_TRUE(ParseRedirect("ASK 3999 :6381", &r));
  EXPECT_TRUE(r.ask);
  EXPECT_EQ(r.endpoint, "127.0.0.1:6381");
  EXPECT_FALSE(ParseRedirect("CLUSTERDOWN The cluster is down", &r));
  EXPECT_FALSE(ParseRedirect("MOVED 99999 h:1", &r));
  EXPECT_FALSE(ParseRedirect("MOVED 12x h:1", &r));
  EXPECT_FALSE(ParseRedirect("MOVED 1", &r));
}

TEST(RedisSlotsTest, MapFollowsRangesAndMoves) {
  SlotMap map;
  EXPECT_EQ(map.NodeOf(0), -1);
  map.Assign({{0, 5460, "a:1"}, {5461, 10922, "b:2"}, {10923, 16383, "c:3"}, {16000, 16383, "a:1"}});
  ASSERT_EQ(map.nodes().size(), 3u);
  EXPECT_EQ(map.nodes()[size_t(map.NodeOf(0))], "a:1");
  EXPECT_EQ(map.nodes()[size_t(map.NodeOf(5461))], "b:2");
  EXPECT_EQ(map.nodes()[size_t(map.NodeOf(15999))], "c:3");
  EXPECT_EQ(map.nodes()[size_t(map.NodeOf(16383))], "a:1");
  // A MOVED to a node the map did not name adds it; to a known one reuses it.
  const int d = map.Moved(7, "d:4");
  EXPECT_EQ(map.nodes().size(), 4u);
  EXPECT_EQ(map.NodeOf(7), d);
  EXPECT_EQ(map.Moved(8, "b:2"), map.NodeOf(5461));
  // A new map forgets the old: a slot no range covers is not served.
  map.Assign({{0, 100, "b:2"}});
  EXPECT_EQ(map.nodes().size(), 1u);
  EXPECT_EQ(map.NodeOf(7), 0);
  EXPECT_EQ(map.NodeOf(101), -1);
}

// The recorded reply's shape (tests/fixtures/recorded/redis_cluster_slots.txt:
// master and replica with id and hostname metadata), one master announcing
// no host, as a node that does not know its own address does.
TEST(RedisSlotsTest, ReadsClusterSlotsReplies) {
  const std::string resp =
      "*2\r\n"
      "*4\r\n:0\r\n:5460\r\n"
      "*4\r\n$9\r\n127.0.0.1\r\n:30001\r\n$4\r\nid-1\r\n*2\r\n$8\r\nhostname\r\n$6\r\nhost-1\r\n"
      "*4\r\n$9\r\n127.0.0.1\r\n:30004\r\n$4\r\nid-4\r\n*2\r\n$8\r\nhostname\r\n$6\r\nhost-2\r\n"
      "*3\r\n:5461\r\n:16383\r\n*3\r\n$0\r\n\r\n:30002\r\n$4\r\nid-2\r\n";
  auto ranges = ParsedReply(resp, [](const redisReply* r) { return ParseClusterSlots(r, "10.0.0.9:30003"); });
  ASSERT_TRUE(ranges.ok()) << ranges.status().message();
  ASSERT_EQ(ranges->size(), 2u);
  EXPECT_EQ((*ranges)[0].master, "127.0.0.1:30001");
  EXPECT_EQ((*ranges)[0].last, 5460);
  EXPECT_EQ((*ranges)[1].master, "10.0.0.9:30002");
  EXPECT_EQ((*ranges)[1].first, 5461);
}

TEST(RedisSlotsTest, AnErrorReplyNamesTheNode) {
  redisReply reply{};
  std::string text = "ERR This instance has cluster support disabled";
  reply.type = REDIS_REPLY_ERROR;
  reply.str = text.data();
  reply.len = text.size();
  auto ranges = ParseClusterSlots(&reply, "127.0.0.1:6379");
  ASSERT_FALSE(ranges.ok());
  EXPECT_EQ(ranges.status().message(), "127.0.0.1:6379: CLUSTER SLOTS: " + text);
}

TEST(RedisSlotsTest, KeylessCommandsGoToEveryMaster) {
  std::vector<std::string> words = {"flushdb", "", ""};
  EXPECT_TRUE(HasNoKey(words, 1));
  words = {"EVAL", "return 1", "0"};
  EXPECT_TRUE(HasNoKey(words, 3));
  words = {"GET", "k", ""};
  EXPECT_FALSE(HasNoKey(words, 2));
  EXPECT_TRUE(HasNoKey(words, 1));
  EXPECT_EQ(KeyWord(words, 2), 1);
}

// A script with keys goes where its first key lives (bank's hash).
TEST(RedisSlotsTest, ScriptsWithKeysAreRoutedByTheirFirstKey) {
  std::vector<std::string> words = {"EVAL", "return 1", "1", "b:{accounts}", "3"};
  EXPECT_FALSE(HasNoKey(words, 5));
  EXPECT_EQ(KeyWord(words, 5), 3);
  words[0] = "evalsha";
  EXPECT_EQ(KeyWord(words, 5), 3);
  words[2] = "0";
  EXPECT_TRUE(HasNoKey(words, 5));
  EXPECT_EQ(KeyWord(words, 5), 1);
}

TEST(RedisSlotsTest, AddSeedPutsANewSeedFirstOnce) {
  std::vector<std::string> seeds;
  AddSeed(&seeds, "a:1");
  AddSeed(&seeds, "b:2");
  AddSeed(&seeds, "a:1");
  EXPECT_EQ(seeds, (std::vector<std::string>{"b:2", "a:1"}));
}

// ROLE as Redis 7.0 answers it on a replica (captured from
// deploy/local/redis-sentinel.sh) and on a master.
TEST(RedisSlotsTest, ReadsRoleReplies) {
  auto role_of = [](const std::string& resp) {
    return ParsedReply(resp, [](const redisReply* r) { return ParseRole(r, "127.0.0.1:7700"); });
  };
  auto replica = role_of("*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:7702\r\n$9\r\nconnected\r\n:79807\r\n");
  ASSERT_TRUE(replica.ok());
  EXPECT_EQ(*replica, "slave");
  EXPECT_EQ(RedisNotAMaster("127.0.0.1:7700", *replica),
            "127.0.0.1:7700: a replica, not a master (session: read-write)");
  auto master = role_of("*3\r\n$6\r\nmaster\r\n:3129\r\n*0\r\n");
  ASSERT_TRUE(master.ok());
  EXPECT_EQ(*master, "master");
  auto denied = role_of("-NOAUTH Authentication required.\r\n");
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().message(), "127.0.0.1:7700: ROLE: NOAUTH Authentication required.");
}

// SENTINEL get-master-addr-by-name as Redis 7.0's sentinel answers it
// (captured from deploy/local/redis-sentinel.sh): a known master, an
// unknown name, and a data node asked by mistake.
TEST(RedisSlotsTest, ReadsTheSentinelsMaster) {
  auto master_of = [](const std::string& resp) {
    return ParsedReply(resp, [](const redisReply* r) { return ParseSentinelMaster(r, "127.0.0.1:17410", "stampede"); });
  };
  auto known = master_of("*2\r\n$9\r\n127.0.0.1\r\n$5\r\n17400\r\n");
  ASSERT_TRUE(known.ok()) << known.status().message();
  EXPECT_EQ(*known, "127.0.0.1:17400");
  auto unknown = master_of("*-1\r\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "sentinel 127.0.0.1:17410: SENTINEL get-master-addr-by-name stampede: no master of that name");
  auto data_node =
      master_of("-ERR unknown command 'SENTINEL', with args beginning with: 'get-master-addr-by-name' 'stampede' \r\n");
  ASSERT_FALSE(data_node.ok());
  EXPECT_NE(data_node.status().message().find(": ERR unknown command 'SENTINEL'"), std::string::npos);
  auto odd = master_of("*1\r\n$9\r\n127.0.0.1\r\n");
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("not a host and a port"), std::string::npos);
  EXPECT_EQ(RedisNotTheSentinelsMaster("127.0.0.1:17401", "127.0.0.1:17400"),
            "127.0.0.1:17401: not the master the sentinels name (127.0.0.1:17400; session: read-write)");
}

}  // namespace
}  // namespace stampede::drivers

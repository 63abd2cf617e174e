#include "health/share_parsers.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace stampede::health {
namespace {

std::string ShareFixture(const std::string& name) {
  std::ifstream in(std::string(STAMPEDE_FIXTURES) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The cockroach CLI's table (a header, a rule, rows, "(N rows)") back into
// the rows the query returned: what the CLI printed is what the SQL answered.
SqlRows CliTable(const std::string& text) {
  auto cells = [](const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    std::string cell;
    while (std::getline(in, cell, '|')) {
      const size_t a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
      out.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
    }
    return out;
  };
  SqlRows t;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '(' || line.find("---") != std::string::npos) continue;
    if (t.columns.empty()) {
      t.columns = cells(line);
      continue;
    }
    std::vector<std::optional<std::string>> row;
    for (const std::string& c : cells(line)) row.emplace_back(c);
    t.rows.push_back(std::move(row));
  }
  return t;
}

const record::NodeShare* Node(const Shares& s, const std::string& name) {
  for (const auto& n : s.nodes) {
    if (n.node == name) return &n;
  }
  return nullptr;
}

TEST(ShareParsersTest, RedisClusterNodesCountsSlotsOfLiveMasters) {
  // A failed master (0-5461) is not serving; the two live masters are.
  auto s = ParseRedisClusterNodes(ShareFixture("redis_cluster_nodes_failed_master_and_replica.txt"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->unit, "slots");
  ASSERT_EQ(s->nodes.size(), 2u);
  EXPECT_EQ(Node(*s, "127.0.0.1:16384")->share, 5461);
  EXPECT_EQ(Node(*s, "127.0.0.1:16382")->share, 5461);
  // The 2014 format (no @cport): a live master without slots is listed
  // with 0, the failed one not at all.
  auto old = ParseRedisClusterNodes(ShareFixture("redis_cluster_nodes_failed_master.txt"));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->nodes.size(), 3u);
  ASSERT_NE(Node(*old, "192.168.56.51:7003"), nullptr);
  EXPECT_EQ(Node(*old, "192.168.56.51:7003")->share, 0);
  EXPECT_EQ(Node(*old, "192.168.56.51:7000"), nullptr);
}

// Recorded here: Debian 12's redis-server 7.0 during `redis-cli --cluster
// rebalance --cluster-use-empty-masters` onto a fourth master (see the
// fixture's README entry).
TEST(ShareParsersTest, RedisClusterNodesMidRebalance) {
  auto s = ParseRedisClusterNodes(ShareFixture("redis_cluster_nodes_rebalancing.txt"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->nodes.size(), 4u);
  double total = 0;
  int migrating = 0;
  for (const auto& n : s->nodes) {
    total += n.share;
    migrating += n.migrating;
  }
  EXPECT_EQ(total, 16384);
  EXPECT_EQ(migrating, 2);  // the two ends of the slot in flight
}

TEST(ShareParsersTest, PdStoresWithAStoreDraining) {
  auto s = ParsePdStoreShares(ShareFixture("pd_stores_with_offline.json"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->unit, "regions");
  ASSERT_EQ(s->nodes.size(), 4u);
  const auto* up = Node(*s, "store 4 (192.168.1.43:20160)");
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->share, 20);
  EXPECT_EQ(up->leaders, 9);
  EXPECT_EQ(up->bytes, int64_t(20) << 20);
  int offline = 0;
  for (const auto& n : s->nodes) offline += n.state == "Offline" && n.migrating;
  EXPECT_EQ(offline, 1);
}

TEST(ShareParsersTest, YbTabletServers) {
  auto s = ParseYbTabletServerShares(ShareFixture("yb_tablet_servers.json"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->nodes.size(), 1u);
  EXPECT_EQ(s->nodes[0].node, "yb-2.local:9000");
  EXPECT_EQ(s->nodes[0].share, 3);
  EXPECT_EQ(s->nodes[0].leaders, 1);
  EXPECT_EQ(s->nodes[0].bytes, 199735);
  EXPECT_EQ(s->nodes[0].state, "ALIVE");
}

TEST(ShareParsersTest, CockroachStoreFromStatusVars) {
  auto s = ParseCockroachStoreShares(ShareFixture("cockroachdb_status_vars.prom"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->nodes.size(), 1u);
  EXPECT_EQ(s->nodes[0].node, "store 1");
  EXPECT_EQ(s->nodes[0].share, 34);
  EXPECT_EQ(s->nodes[0].leaders, 7);
  EXPECT_EQ(s->nodes[0].bytes, 131897916);
}

// The whole cluster from one node, in CockroachDB's docs (v23.1
// node-shutdown.md): nodes 4 and 5 decommissioning with 39 and 34 replicas
// still to move; then done, three active nodes holding 73 each; and a dead
// node that still counts as a member.
TEST(ShareParsersTest, CockroachNodesMidDecommission) {
  auto moving = ParseCockroachNodeRows(CliTable(ShareFixture("cockroachdb_node_decommission_in_progress.txt")));
  ASSERT_TRUE(moving.ok()) << moving.status().message();
  EXPECT_EQ(moving->unit, "replicas");
  ASSERT_EQ(moving->nodes.size(), 2u);
  EXPECT_EQ(Node(*moving, "n4")->share, 39);
  EXPECT_EQ(Node(*moving, "n4")->state, "decommissioning");
  EXPECT_TRUE(Node(*moving, "n4")->migrating);
  EXPECT_EQ(Node(*moving, "n5")->share, 34);
  EXPECT_EQ(Node(*moving, "n5")->leaders, -1);  // this table has no leaseholders

  auto done = ParseCockroachNodeRows(CliTable(ShareFixture("cockroachdb_node_status_decommissioned.txt")));
  ASSERT_TRUE(done.ok()) << done.status().message();
  ASSERT_EQ(done->nodes.size(), 5u);
  const auto* one = Node(*done, "n1 (localhost:26257)");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->share, 73);
  EXPECT_EQ(one->state, "live");
  EXPECT_FALSE(one->migrating);
  EXPECT_EQ(Node(*done, "n5 (localhost:26261)")->state, "decommissioned");
  EXPECT_EQ(Node(*done, "n5 (localhost:26261)")->share, 0);
  EXPECT_FALSE(Node(*done, "n5 (localhost:26261)")->migrating);

  auto dead = ParseCockroachNodeRows(CliTable(ShareFixture("cockroachdb_node_status_dead_node.txt")));
  ASSERT_TRUE(dead.ok());
  EXPECT_EQ(Node(*dead, "n1 (localhost:26257)")->state, "dead");
  EXPECT_EQ(Node(*dead, "n4 (localhost:26260)")->share, 73);
}

// kCockroachNodesSql's own columns, as libpq hands them over: t/f booleans,
// NULL for what a dead node's stores no longer report.
TEST(ShareParsersTest, CockroachNodeRowsFromSql) {
  SqlRows t;
  t.columns = {"id",         "address",    "is_live",           "replicas_leaseholders",
               "ranges",     "live_bytes", "gossiped_replicas", "membership",
               "is_draining"};
  t.rows.push_back({"1", "db1:26257", "t", "20", "57", "1048576", "57", "active", "f"});
  t.rows.push_back({"2", "db2:26257", "f", std::nullopt, std::nullopt, std::nullopt, "57", "active", "f"});
  t.rows.push_back({"3", std::nullopt, "t", "0", "12", "8", "12", "decommissioning", "t"});
  auto s = ParseCockroachNodeRows(t);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(Node(*s, "n1 (db1:26257)")->leaders, 20);
  EXPECT_EQ(Node(*s, "n1 (db1:26257)")->bytes, 1048576);
  EXPECT_EQ(Node(*s, "n1 (db1:26257)")->state, "live");
  EXPECT_EQ(Node(*s, "n2 (db2:26257)")->share, 57);  // the gossiped count, its stores being silent
  EXPECT_EQ(Node(*s, "n2 (db2:26257)")->state, "dead");
  EXPECT_TRUE(Node(*s, "n3")->migrating);
  EXPECT_FALSE(ParseCockroachNodeRows(SqlRows{{"id", "address"}, {{"1", "x"}}}).ok());
  // Plain `cockroach node status` (v19.2 in the docs) has no replica count.
  EXPECT_FALSE(ParseCockroachNodeRows(CliTable(ShareFixture("cockroachdb_node_status_all_live.txt"))).ok());
  EXPECT_FALSE(ParseCockroachNodeRows(SqlRows{{"id", "ranges"}, {}}).ok());
  // Counts no node can hold are unknown, never converted.
  auto odd = ParseCockroachNodeRows(SqlRows{{"id", "ranges", "live_bytes"}, {{"7", "-3", "+Inf"}}});
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->nodes[0].share, 0);
  EXPECT_EQ(odd->nodes[0].bytes, -1);
}

TEST(ShareParsersTest, PatroniMembersWithACurrentCopy) {
  // Leader, sync standby and replica all running with lag 0: three shares.
  auto s = ParsePatroniShares(ShareFixture("patroni_3.0.2_cluster_healthy.json"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->unit, "members");
  ASSERT_EQ(s->nodes.size(), 3u);
  EXPECT_EQ(Node(*s, "node2")->state, "leader running");
  EXPECT_EQ(Node(*s, "node2")->share, 1);
  EXPECT_EQ(Node(*s, "node2")->lag_bytes, -1);  // a leader lags nothing
  EXPECT_EQ(Node(*s, "node3")->share, 1);
  EXPECT_EQ(Node(*s, "node3")->lag_bytes, 0);
  // A member starting again (lag "unknown") holds no current copy yet.
  auto starting = ParsePatroniShares(ShareFixture("patroni_3.0.2_cluster_member_starting.json"));
  ASSERT_TRUE(starting.ok());
  EXPECT_EQ(Node(*starting, "node1")->share, 0);
  EXPECT_TRUE(Node(*starting, "node1")->migrating);
  EXPECT_EQ(Node(*starting, "node1")->lag_bytes, -1);
  // A replica more than Patroni's maximum_lag_on_failover behind is not
  // current; one just under it is.
  auto lagging = ParsePatroniShares(R"({"members": [
      {"name": "a", "role": "leader", "state": "running"},
      {"name": "b", "role": "replica", "state": "streaming", "lag": 1048577},
      {"name": "c", "role": "replica", "state": "streaming", "lag": 1048576}]})");
  ASSERT_TRUE(lagging.ok());
  EXPECT_EQ(Node(*lagging, "b")->share, 0);
  EXPECT_EQ(Node(*lagging, "b")->lag_bytes, 1048577);
  EXPECT_EQ(Node(*lagging, "c")->share, 1);
}

TEST(ShareParsersTest, GarbageIsAnErrorNotACrash) {
  EXPECT_FALSE(ParseRedisClusterNodes("").ok());
  EXPECT_FALSE(ParsePdStoreShares("{\"stores\": 3}").ok());
  EXPECT_FALSE(ParseYbTabletServerShares("[").ok());
  EXPECT_FALSE(ParseCockroachStoreShares("# nothing\n").ok());
  // Numbers no count can hold (a fuzzer found +Inf): skipped or 0, never
  // converted.
  auto inf = ParseCockroachStoreShares("capacity_used{store=\"1\"} +Inf\nreplicas{store=\"1\"} 1e300\n");
  EXPECT_FALSE(inf.ok());
  auto huge =
      ParsePatroniShares(R"({"members": [{"name": "a", "role": "replica", "state": "running", "lag": 1e300}]})");
  ASSERT_TRUE(huge.ok());
  EXPECT_EQ(huge->nodes[0].lag_bytes, 0);
  EXPECT_EQ(
      ParsePdStoreShares(R"({"stores": [{"store": {"id": 1e300}, "status": {"region_count": -5}}]})")->nodes[0].share,
      0);
  EXPECT_FALSE(ParsePatroniShares("{\"members\": []}").ok());
  EXPECT_FALSE(ParsePatroniShares("{\"members\": 7}").ok());
  EXPECT_FALSE(ParsePatroniShares("{\"members\": [{\"name\": 7}]}").ok());
}

}  // namespace
}  // namespace stampede::health

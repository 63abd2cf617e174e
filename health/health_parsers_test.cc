// Health parsers on recorded responses (tests/fixtures/recorded, see its README
// for each file's source).
#include "health/health_parsers.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace stampede::health {
namespace {

std::string Fixture(const std::string& name) {
  std::string path = std::string(STAMPEDE_FIXTURES) + "/" + name;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class HealthParsersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The fixtures are part of the repository: missing is a failure, not a skip.
    ASSERT_TRUE(std::filesystem::exists(STAMPEDE_FIXTURES)) << "recorded fixtures not found at " << STAMPEDE_FIXTURES;
  }
};

TEST_F(HealthParsersTest, CockroachStatusVars) {
  auto r = ParseCockroachVars(Fixture("cockroachdb_status_vars.prom"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->healthy);
  EXPECT_EQ(r->underreplicated, 0);
  EXPECT_EQ(r->live_nodes, 3);
  // A node that sees under-replicated and unavailable ranges (v22 labels).
  auto bad = ParseCockroachVars(
      "# TYPE ranges_underreplicated gauge\n"
      "ranges_underreplicated{store=\"1\",node_id=\"1\"} 12\n"
      "ranges_unavailable{store=\"1\",node_id=\"1\"} 0\n"
      "liveness_livenodes{node_id=\"1\"} 2\n");
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE(bad->healthy);
  EXPECT_EQ(bad->underreplicated, 12);
  EXPECT_EQ(bad->live_nodes, 2);
  EXPECT_FALSE(ParseCockroachVars(Fixture("cockroachdb_status_vars_v22_labels.prom")).ok());
}

TEST_F(HealthParsersTest, PdStoresAndRegions) {
  auto up = ParsePdStores(Fixture("pd_stores.json"));
  ASSERT_TRUE(up.ok()) << up.status().message();
  EXPECT_TRUE(up->healthy);
  EXPECT_EQ(up->live_nodes, 4);
  auto down = ParsePdStores(Fixture("pd_stores_with_down.json"));
  ASSERT_TRUE(down.ok());
  EXPECT_FALSE(down->healthy);
  EXPECT_EQ(down->unavailable, 1);
  EXPECT_NE(down->detail.find("1 Down"), std::string::npos) << down->detail;
  auto offline = ParsePdStores(Fixture("pd_stores_with_offline.json"));
  ASSERT_TRUE(offline.ok());
  EXPECT_FALSE(offline->healthy);
  auto region = ParsePdRegionCheck(Fixture("pd_region_with_down_peer.json"), "down-peer");
  ASSERT_TRUE(region.ok()) << region.status().message();
  EXPECT_FALSE(region->healthy);
  auto none = ParsePdRegionCheck(R"({"count": 0, "regions": []})", "miss-peer");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->healthy);
}

TEST_F(HealthParsersTest, YugabyteMaster) {
  auto under = ParseYbUnderReplication(Fixture("yb_tablet_under_replication.json"));
  ASSERT_TRUE(under.ok()) << under.status().message();
  EXPECT_EQ(under->underreplicated, 16);
  EXPECT_FALSE(under->healthy);
  auto servers = ParseYbTabletServers(Fixture("yb_tablet_servers.json"));
  ASSERT_TRUE(servers.ok()) << servers.status().message();
  EXPECT_TRUE(servers->healthy);
  EXPECT_EQ(servers->live_nodes, 1);
  auto ok = ParseYbHealthCheck(Fixture("yb_health_check_ok.json"));
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->healthy);
  auto dead = ParseYbHealthCheck(Fixture("yb_health_check_dead_nodes.json"));
  ASSERT_TRUE(dead.ok());
  EXPECT_FALSE(dead->healthy);
  EXPECT_EQ(dead->unavailable, 2);
  EXPECT_EQ(dead->underreplicated, 12);
}

TEST_F(HealthParsersTest, RedisClusterInfo) {
  auto ok = ParseRedisClusterInfo(Fixture("redis_cluster_info_ok.txt"));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_TRUE(ok->healthy);
  auto fail = ParseRedisClusterInfo(Fixture("redis_cluster_info_fail.txt"));
  ASSERT_TRUE(fail.ok());
  EXPECT_FALSE(fail->healthy);
  EXPECT_EQ(fail->unavailable, 5461);
}

TEST_F(HealthParsersTest, GaleraStatus) {
  auto synced = ParseGaleraStatus(Fixture("galera_status_synced.txt"), 0);
  ASSERT_TRUE(synced.ok()) << synced.status().message();
  EXPECT_TRUE(synced->healthy) << synced->detail;
  auto np = ParseGaleraStatus(Fixture("galera_status_non_primary.txt"), 0);
  ASSERT_TRUE(np.ok()) << np.status().message();
  EXPECT_FALSE(np->healthy) << np->detail;
  auto small =
      ParseGaleraStatus("wsrep_cluster_size\t2\nwsrep_cluster_status\tPrimary\nwsrep_local_state_comment\tSynced\n", 3);
  ASSERT_TRUE(small.ok());
  EXPECT_FALSE(small->healthy);
  EXPECT_EQ(small->underreplicated, 1);
}

TEST_F(HealthParsersTest, PatroniCluster) {
  auto r = ParsePatroniCluster(Fixture("patroni_cluster.json"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->detail.find("leaders 1") != std::string::npos, true) << r->detail;
}

// Patroni 3.0.2 (Debian's), captured from deploy/local/patroni.sh.
TEST_F(HealthParsersTest, Patroni302ClusterHealthyStartingAndGone) {
  std::string leader;
  auto healthy = ParsePatroniCluster(Fixture("patroni_3.0.2_cluster_healthy.json"), 3, &leader);
  ASSERT_TRUE(healthy.ok()) << healthy.status().message();
  EXPECT_EQ(leader, "node2");
  EXPECT_TRUE(healthy->healthy) << healthy->detail;
  EXPECT_EQ(healthy->live_nodes, 3);
  // The killed leader back as a replica, still starting: not yet healthy.
  auto starting = ParsePatroniCluster(Fixture("patroni_3.0.2_cluster_member_starting.json"), 3);
  ASSERT_TRUE(starting.ok());
  EXPECT_FALSE(starting->healthy);
  EXPECT_EQ(starting->live_nodes, 2);
  EXPECT_EQ(starting->unavailable, 1);
  // A member whose key expired is not listed: only the expected count shows it.
  auto gone = ParsePatroniCluster(Fixture("patroni_3.0.2_cluster_member_gone.json"), 3);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->healthy);
  EXPECT_EQ(gone->unavailable, 1);
  EXPECT_NE(gone->detail.find("missing 1"), std::string::npos) << gone->detail;
  auto any = ParsePatroniCluster(Fixture("patroni_3.0.2_cluster_member_gone.json"));
  ASSERT_TRUE(any.ok());
  EXPECT_TRUE(any->healthy) << any->detail;
  // A fourth member that joined and left (stopped, its key not yet
  // expired): three of three expected still run.
  const std::string left = R"({"members": [{"name": "node1", "role": "leader", "state": "running"},
      {"name": "node2", "role": "sync_standby", "state": "running", "lag": 0},
      {"name": "node3", "role": "replica", "state": "running", "lag": 0},
      {"name": "node4", "role": "replica", "state": "stopped", "lag": "unknown"}]})";
  auto after_leave = ParsePatroniCluster(left, 3);
  ASSERT_TRUE(after_leave.ok());
  EXPECT_TRUE(after_leave->healthy) << after_leave->detail;
  EXPECT_EQ(after_leave->unavailable, 0);
  EXPECT_FALSE(ParsePatroniCluster(left, 4)->healthy);
}

TEST(HealthReportTest, MergeNeedsEveryViewHealthy) {
  HealthReport a, b;
  a.healthy = true;
  b.healthy = false;
  b.underreplicated = 3;
  a.Merge(b);
  EXPECT_FALSE(a.healthy);
  EXPECT_EQ(a.underreplicated, 3);
}

// Found by fuzz/health_fuzz in CI: a slot count of 2^63 and more was added
// to another count (signed overflow). Counts are clamped to [0, 10^12].
TEST(HealthParsersShapeTest, HugeCountsAreClampedNotOverflowed) {
  auto redis = ParseRedisClusterInfo(
      "cluster_state:fail\ncluster_slots_pfail:1\ncluster_slots_fail:0999999999999999999999999999967944\n"
      "cluster_slots_ok:-99999999999999999999999\ncluster_known_nodes:99999999999999999999\n");
  ASSERT_TRUE(redis.ok());
  EXPECT_EQ(redis->unavailable, 1'000'000'000'001);
  EXPECT_EQ(redis->underreplicated, 16384);
  EXPECT_EQ(redis->live_nodes, 1'000'000'000'000);
  EXPECT_FALSE(redis->healthy);
  auto galera = ParseGaleraStatus(
      "wsrep_cluster_size\t-9223372036854775808\nwsrep_cluster_status\tPrimary\n"
      "wsrep_local_state_comment\tSynced\n",
      3);
  ASSERT_TRUE(galera.ok());
  EXPECT_EQ(galera->live_nodes, 0);
  EXPECT_EQ(galera->underreplicated, 3);
  auto crdb = ParseCockroachVars("ranges_unavailable 1e300\nranges_underreplicated nan\nliveness_livenodes 1e400\n");
  ASSERT_TRUE(crdb.ok());
  EXPECT_EQ(crdb->unavailable, 1'000'000'000'000);
  EXPECT_EQ(crdb->underreplicated, 0);
  EXPECT_EQ(crdb->live_nodes, 1'000'000'000'000);
}

// Found by fuzz/health_fuzz: JSON of the wrong shape threw out of the parser
// (a PD region fed to the tablet-servers parser: a string where an object
// was expected). Every parser answers with an error instead.
TEST(HealthParsersShapeTest, WrongShapesAreErrorsNotExceptions) {
  EXPECT_FALSE(ParseYbTabletServers(R"({"zone": {"ts1": "ALIVE"}})").ok());
  EXPECT_FALSE(ParsePdRegionCheck(R"({"count": "three"})", "down-peer").ok());
  EXPECT_FALSE(ParsePdStores(R"({"stores": [1, "x", null]})").ok());
  EXPECT_FALSE(ParsePatroniCluster(R"({"members": [[1], 2]})").ok());
  (void)ParseYbHealthCheck(R"({"dead_nodes": 1, "under_replicated_tablets": "x"})");  // must not throw
  auto wrong = ParseYbTabletServers(R"({"zone": {"ts1": "ALIVE"}})");
  EXPECT_NE(wrong.status().message().find("yb-master tablet-servers: unexpected response"), std::string::npos)
      << wrong.status().message();
}

}  // namespace
}  // namespace stampede::health

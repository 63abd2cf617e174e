#include "agent/network_faults.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "agent/agent_config.h"
#include "common/strings.h"

namespace stampede::agent {
namespace {

NetworkSpec Spec(std::vector<std::string> peers4, std::vector<uint16_t> ports = {}, std::string interface = "") {
  NetworkSpec s;
  s.peers4 = std::move(peers4);
  s.ports = std::move(ports);
  s.interface = std::move(interface);
  return s;
}

v1::NetFault Net(const std::string& direction, double loss = 0, uint32_t delay = 0, uint32_t jitter = 0) {
  v1::NetFault n;
  n.set_direction(direction);
  n.set_loss_percent(loss);
  n.set_delay_ms(delay);
  n.set_jitter_ms(jitter);
  return n;
}

std::string ConfigError(const std::string& network) {
  auto c = AgentConfig::Parse("nodes:\n  db3:\n    network: " + network + "\n", "agent.yaml");
  return c.ok() ? "ok" : c.status().message();
}

TEST(NetworkFaultsTest, TheConfigIsCheckedWithPositions) {
  EXPECT_EQ(ConfigError("{peers: [10.0.0.4, 'fd00::5'], ports: [3306, 4567], interface: eth0}"), "ok");
  EXPECT_EQ(ConfigError("{peers: [10.0.0.300]}"),
            "agent.yaml:3:23: nodes.db3.network.peers: expected an IPv4 or IPv6 address, found '10.0.0.300'");
  EXPECT_EQ(ConfigError("{ports: [70000]}"),
            "agent.yaml:3:23: nodes.db3.network.ports: expected a port 1..65535, "
            "found '70000'");
  EXPECT_NE(ConfigError("{interface: 'eth0; reboot'}").find("expected a network interface name"), std::string::npos);
  EXPECT_NE(ConfigError("{peer: [10.0.0.4]}").find("unknown key"), std::string::npos);
  // Network faults only, or beside one process kind; never two kinds.
  auto two = AgentConfig::Parse("nodes:\n  db3: {process: {exe: /bin/x}, docker: {container: c}}\n", "a.yaml");
  EXPECT_FALSE(two.ok());
}

TEST(NetworkFaultsTest, ActionsCheckTheirBoundsAndWhatTheConfigDeclares) {
  const NetworkSpec spec = Spec({"10.0.0.4"}, {}, "eth0");
  EXPECT_FALSE(NextNetState({}, spec, "loss", Net("", 0)).ok());
  EXPECT_FALSE(NextNetState({}, spec, "loss", Net("", 100.5)).ok());
  EXPECT_EQ(NextNetState({}, spec, "loss", Net("", 0.001))->loss_in_bp, 1u);  // the smallest step, not none
  EXPECT_FALSE(NextNetState({}, spec, "delay", Net("", 0, 0)).ok());
  EXPECT_FALSE(NextNetState({}, spec, "delay", Net("", 0, 60001)).ok());
  EXPECT_FALSE(NextNetState({}, spec, "delay", Net("", 0, 100, 101)).ok());
  EXPECT_FALSE(NextNetState({}, spec, "partition", Net("sideways")).ok());
  EXPECT_FALSE(NextNetState({}, Spec({}), "partition", Net("")).ok());                // no peers
  EXPECT_FALSE(NextNetState({}, Spec({"10.0.0.4"}), "delay", Net("", 0, 100)).ok());  // no interface
  EXPECT_FALSE(NextNetState({}, spec, "kill", Net("")).ok());
  auto s = NextNetState({}, spec, "partition", Net("in"));
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->cut_in);
  EXPECT_FALSE(s->cut_out);
  s = NextNetState(*s, spec, "loss", Net("", 12.5));
  EXPECT_TRUE(s->cut_in);
  EXPECT_EQ(s->loss_in_bp, 1250u);
  EXPECT_EQ(s->loss_out_bp, 1250u);
  s = NextNetState(*s, spec, "heal", Net(""));
  EXPECT_FALSE(s->Filters());
}

TEST(NetworkFaultsTest, ThePartitionScriptCutsThePeersOnTheDeclaredPortsOnly) {
  NetState st;
  st.cut_in = st.cut_out = true;
  const std::string s = NftScript("stampede_db3", Spec({"10.0.0.4", "10.0.0.5"}, {4567}), st);
  EXPECT_EQ(
      s,
      "add table inet stampede_db3; delete table inet stampede_db3; add table inet stampede_db3; "
      "add chain inet stampede_db3 in { type filter hook input priority -10 ; policy accept ; }; "
      "add rule inet stampede_db3 in meta l4proto { tcp, udp } th dport { 4567 } ip saddr { 10.0.0.4, 10.0.0.5 } "
      "drop; "
      "add rule inet stampede_db3 in meta l4proto { tcp, udp } th sport { 4567 } ip saddr { 10.0.0.4, 10.0.0.5 } "
      "drop; "
      "add chain inet stampede_db3 out { type filter hook output priority -10 ; policy accept ; }; "
      "add rule inet stampede_db3 out meta l4proto { tcp, udp } th dport { 4567 } ip daddr { 10.0.0.4, 10.0.0.5 } "
      "drop; "
      "add rule inet stampede_db3 out meta l4proto { tcp, udp } th sport { 4567 } ip daddr { 10.0.0.4, 10.0.0.5 } "
      "drop");
  // Nothing applied: only the delete.
  EXPECT_EQ(NftScript("stampede_db3", Spec({"10.0.0.4"}), NetState{}),
            "add table inet stampede_db3; delete table inet stampede_db3");
  EXPECT_EQ(NetTable("db-3.eu"), "stampede_db_3_eu");
}

// Every shape of script is one nft accepts: checked by the real nft (-c:
// parsed and validated by the kernel, not applied) in a network namespace
// of its own.
TEST(NetworkFaultsTest, NftAcceptsEveryShapeOfScript) {
  NetworkSpec v6 = Spec({"10.0.0.4"}, {3306, 4567}, "eth0");
  v6.peers6 = {"fd00::5"};
  const NetworkSpec specs[] = {Spec({"10.0.0.4"}), v6, Spec({"127.0.0.1"}, {17001})};
  for (const NetworkSpec& spec : specs) {
    NetState st;
    st.cut_in = st.black_out = true;
    st.loss_in_bp = st.loss_out_bp = 2000;
    const std::string script = NftScript("stampede_t", spec, st);
    std::string quoted = script;
    for (size_t i = 0; (i = quoted.find('\'', i)) != std::string::npos; i += 4) quoted.replace(i, 1, "'\\''");
    const std::string cmd = "unshare --net nft -c '" + quoted + "' 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << script;
  }
}

TEST(NetworkFaultsTest, RunAppliesTheWholeStateAndKeepsItWhenACommandFails) {
  NetworkFaults nf;
  nf.Declare("db3", Spec({"10.0.0.4"}, {}, "eth0"));
  std::vector<std::string> ran;
  bool fail = false;
  auto exec = [&](const std::vector<std::string>& argv) {
    ran.push_back(Join(argv, " "));
    return fail ? Status::Error("exited with 1") : Status::Ok();
  };
  EXPECT_FALSE(nf.Check("partition", "db9").ok());
  ASSERT_TRUE(nf.Run("partition", "db3", Net("out"), exec).ok());
  ASSERT_EQ(ran.size(), 1u);
  EXPECT_NE(ran[0].find("ip daddr { 10.0.0.4 } drop"), std::string::npos);
  EXPECT_EQ(ran[0].find("ip saddr"), std::string::npos);  // out only
  ASSERT_TRUE(nf.Run("delay", "db3", Net("", 0, 100, 10), exec).ok());
  ASSERT_EQ(ran.size(), 3u);  // the filters again, then netem
  EXPECT_EQ(ran[2], "tc qdisc replace dev eth0 root netem delay 100ms 10ms");
  fail = true;
  EXPECT_FALSE(nf.Run("loss", "db3", Net("", 50), exec).ok());
  fail = false;
  ran.clear();
  ASSERT_TRUE(nf.Run("blackhole", "db3", Net("in"), exec).ok());
  EXPECT_EQ(ran[0].find("numgen"), std::string::npos) << "the failed loss is not applied: " << ran[0];
  EXPECT_NE(ran[0].find("ip daddr { 10.0.0.4 } drop"), std::string::npos);
  EXPECT_NE(ran[0].find("iifname \"eth0\" drop"), std::string::npos);
  ran.clear();
  ASSERT_TRUE(nf.Run("heal", "db3", Net(""), exec).ok());
  ASSERT_EQ(ran.size(), 2u);
  EXPECT_EQ(ran[0], "nft add table inet stampede_db3; delete table inet stampede_db3");
  EXPECT_EQ(ran[1], "tc qdisc del dev eth0 root");
}

TEST(NetworkFaultsTest, KernelBandwidthIsTbfAloneAndNetemsRateWithADelay) {
  NetworkSpec spec = Spec({"10.0.0.4"}, {}, "eth0");
  NetState st;
  st.rate = 100 * 1024;
  EXPECT_EQ(Join(QdiscArgv(spec, st), " "),
            "tc qdisc replace dev eth0 root tbf rate 102400bps burst 67036 latency 100ms");
  st.delay_ms = 50;
  EXPECT_EQ(Join(QdiscArgv(spec, st), " "), "tc qdisc replace dev eth0 root netem delay 50ms rate 102400bps");
  v1::NetFault in;
  in.set_direction("in");
  in.set_bandwidth_bytes_per_s(1 << 20);
  EXPECT_FALSE(NextNetState({}, spec, "bandwidth", in).ok()) << "the kernel shapes what leaves only";
  EXPECT_FALSE(NextNetState({}, spec, "reset", in).ok()) << "the proxy's";
}

}  // namespace
}  // namespace stampede::agent

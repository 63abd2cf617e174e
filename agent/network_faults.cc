#include "agent/network_faults.h"

#include <arpa/inet.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "agent/config_yaml.h"
#include "common/log.h"
#include "common/strings.h"
#include "proto/fault_action.h"

namespace stampede::agent {
namespace {

bool IsInterfaceName(const std::string& s) {
  return !s.empty() && s.size() <= 15 &&
         s.find_first_not_of(
             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
             "0123456789_.-") == std::string::npos;
}

Status ReadPeers(const YAML::Node& n, const std::string& file, const std::string& field, NetworkSpec* spec) {
  if (!n.IsSequence()) return Status::Error(ConfigAt(file, n) + field + ": expected a list of IP addresses");
  for (const auto& p : n) {
    unsigned char buf[16];
    const std::string a = p.IsScalar() ? p.Scalar() : "";
    if (inet_pton(AF_INET, a.c_str(), buf) == 1) {
      spec->peers4.push_back(a);
    } else if (inet_pton(AF_INET6, a.c_str(), buf) == 1) {
      spec->peers6.push_back(a);
    } else {
      return Status::Error(ConfigAt(file, p) + field + ": expected an IPv4 or IPv6 address, found '" + a + "'");
    }
  }
  return Status::Ok();
}

Status ReadPorts(const YAML::Node& n, const std::string& file, const std::string& field, NetworkSpec* spec) {
  if (!n.IsSequence()) return Status::Error(ConfigAt(file, n) + field + ": expected a list of ports");
  for (const auto& p : n) {
    const std::string text = p.IsScalar() ? p.Scalar() : "";
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || v < 1 || v > 65535) {
      return Status::Error(ConfigAt(file, p) + field + ": expected a port 1..65535, found '" + text + "'");
    }
    spec->ports.push_back(uint16_t(v));
  }
  return Status::Ok();
}

std::string Set(const std::vector<std::string>& items) { return "{ " + Join(items, ", ") + " }"; }

// The rules of one chain (in: input, out: output) for `state`.
std::vector<std::string> ChainRules(const NetworkSpec& spec, const NetState& st, bool in) {
  std::vector<std::string> ports;
  for (uint16_t p : spec.ports) ports.push_back(std::to_string(p));
  // With ports, a rule for each side of a connection: the node's server
  // port, or a peer's it connected to.
  std::vector<std::string> port_clauses = {""};
  if (!ports.empty()) {
    port_clauses = {"meta l4proto { tcp, udp } th dport " + Set(ports) + " ",
                    "meta l4proto { tcp, udp } th sport " + Set(ports) + " "};
  }
  const std::string ifname = in ? "iifname " : "oifname ";
  std::string everyone;
  if (!spec.interface.empty()) {
    everyone = ifname + "\"" + spec.interface + "\" ";
  } else if (ports.empty()) {
    everyone = ifname + "!= \"lo\" ";
  }
  std::vector<std::string> matches;
  if (in ? st.black_in : st.black_out) matches.push_back(everyone);
  const uint32_t loss = in ? st.loss_in_bp : st.loss_out_bp;
  if (loss) matches.push_back(everyone + "numgen random mod 10000 < " + std::to_string(loss) + " ");
  if (in ? st.cut_in : st.cut_out) {
    const std::string side = in ? "saddr " : "daddr ";
    if (!spec.peers4.empty()) matches.push_back("ip " + side + Set(spec.peers4) + " ");
    if (!spec.peers6.empty()) matches.push_back("ip6 " + side + Set(spec.peers6) + " ");
  }
  std::vector<std::string> rules;
  for (const std::string& m : matches) {
    for (const std::string& pc : port_clauses) rules.push_back(pc + m + "drop");
  }
  return rules;
}

}  // namespace

std::vector<std::string> QdiscArgv(const NetworkSpec& spec, const NetState& st) {
  std::vector<std::string> argv = {"tc", "qdisc", "replace", "dev", spec.interface, "root"};
  if (st.delay_ms) {
    for (const std::string& a : {std::string("netem"), std::string("delay"), std::to_string(st.delay_ms) + "ms"}) {
      argv.push_back(a);
    }
    if (st.jitter_ms) argv.push_back(std::to_string(st.jitter_ms) + "ms");
    // tc's bps is bytes per second.
    if (st.rate) argv.insert(argv.end(), {"rate", std::to_string(st.rate) + "bps"});
  } else if (st.rate) {
    // tbf without netem; its burst must hold the largest packet (lo's MTU
    // is 64 KiB) and a tenth of a second.
    const uint64_t burst = std::max<uint64_t>(st.rate / 10, 65536 + 1500);
    argv.insert(argv.end(),
                {"tbf", "rate", std::to_string(st.rate) + "bps", "burst", std::to_string(burst), "latency", "100ms"});
  } else {
    return {"tc", "qdisc", "del", "dev", spec.interface, "root"};
  }
  return argv;
}

NetworkSpec NetworkSpec::FromYaml(const YAML::Node& n, const std::string& field, ConfigProblems* problems) {
  const std::string& file = problems->file();
  NetworkSpec spec;
  if (!n.IsMap()) {
    problems->Add(n, field, "expected a mapping with peers, ports, interface");
    return spec;
  }
  problems->CheckKeys(n, field + ".", {"peers", "ports", "interface"});
  if (n["peers"]) problems->Take(ReadPeers(n["peers"], file, field + ".peers", &spec));
  if (n["ports"]) problems->Take(ReadPorts(n["ports"], file, field + ".ports", &spec));
  if (n["interface"]) {
    spec.interface = n["interface"].IsScalar() ? n["interface"].Scalar() : "";
    if (!IsInterfaceName(spec.interface)) {
      problems->Add(n["interface"], field + ".interface", "expected a network interface name like eth0");
      spec.interface.clear();
    }
  }
  return spec;
}

StatusOr<NetState> NextNetState(const NetState& now, const NetworkSpec& spec, const std::string& action,
                                const v1::NetFault& net) {
  const std::string& d = net.direction();
  if (!d.empty() && d != "in" && d != "out" && d != "both") {
    return Status::Error("direction must be in, out or both, not '" + d + "'");
  }
  const bool in = d != "out", out = d != "in";
  NetState next = now;
  if (action == "heal") {
    next = NetState{};
  } else if (action == "partition") {
    if (spec.peers4.empty() && spec.peers6.empty()) {
      return Status::Error("partition needs the node's peers (network.peers in the agent config)");
    }
    next.cut_in |= in;
    next.cut_out |= out;
  } else if (action == "blackhole") {
    next.black_in |= in;
    next.black_out |= out;
  } else if (action == "loss") {
    if (!(net.loss_percent() > 0 && net.loss_percent() <= 100)) {
      return Status::Error("loss must be above 0% and at most 100%");
    }
    const uint32_t bp = uint32_t(std::clamp(std::lround(net.loss_percent() * 100), 1L, 10000L));
    if (in) next.loss_in_bp = bp;
    if (out) next.loss_out_bp = bp;
  } else if (action == "delay" || action == "bandwidth") {
    if (spec.interface.empty()) return Status::Error(action + " needs the node's interface (network.interface)");
    if (d == "in" || d == "both") {
      return Status::Error("the kernel's " + action + " applies to what leaves the interface only (direction: out)");
    }
    if (action == "bandwidth") {
      if (net.bandwidth_bytes_per_s() < kMinBandwidth || net.bandwidth_bytes_per_s() > kMaxBandwidth) {
        return Status::Error("bandwidth must be 1KB/s .. 1024GB/s");
      }
      next.rate = net.bandwidth_bytes_per_s();
    } else if (net.delay_ms() < 1 || net.delay_ms() > kMaxNetDelayMs || net.jitter_ms() > net.delay_ms()) {
      return Status::Error("delay must be 1 .. 60000 ms with a jitter of at most the delay");
    } else {
      next.delay_ms = net.delay_ms();
      next.jitter_ms = net.jitter_ms();
    }
  } else if (action == "reset" || action == "timeout" || action == "slow-close") {
    return Status::Error(action + " needs the node's proxy (proxy: in the agent config)");
  } else {
    return Status::Error("'" + action + "' is not a network action");
  }
  return next;
}

std::string NetTable(const std::string& node) {
  std::string t = "stampede_" + node;
  for (char& c : t) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  return t;
}

std::string NftScript(const std::string& table, const NetworkSpec& spec, const NetState& state) {
  const std::string t = "inet " + table;
  // Adding an existing table is no error: the delete always has one.
  std::string s = "add table " + t + "; delete table " + t;
  if (!state.Filters()) return s;
  s += "; add table " + t;
  for (const bool in : {true, false}) {
    const std::string chain = in ? "in" : "out";
    s += "; add chain " + t + " " + chain + " { type filter hook " + (in ? "input" : "output") +
         " priority -10 ; policy accept ; }";
    for (const std::string& r : ChainRules(spec, state, in)) s += "; add rule " + t + " " + chain + " " + r;
  }
  return s;
}

Status NetworkFaults::Check(const std::string& action, const std::string& node, const std::string& direction) const {
  auto it = specs_.find(node);
  if (it == specs_.end()) {
    return Status::Error("node '" + node + "' declares no network: in this agent's config (needed for " + action + ")");
  }
  v1::NetFault any;  // numbers that pass: what only the config and the direction decide
  any.set_direction(direction);
  any.set_loss_percent(100);
  any.set_delay_ms(1);
  any.set_bandwidth_bytes_per_s(kMinBandwidth);
  return NextNetState({}, it->second, action, any).status();
}

Status NetworkFaults::Run(const std::string& action, const std::string& node, const v1::NetFault& net,
                          const Exec& exec) {
  auto it = specs_.find(node);
  if (it == specs_.end()) return Check(action, node);
  const NetworkSpec& spec = it->second;
  MutexLock lock(mu_);
  NetState& now = state_[node];
  auto next = NextNetState(now, spec, action, net);
  if (!next.ok()) return next.status();
  Status s = exec({"nft", NftScript(NetTable(node), spec, *next)});
  if (!s.ok()) return s;
  NetState applied = *next;
  applied.delay_ms = now.delay_ms;
  applied.jitter_ms = now.jitter_ms;
  applied.rate = now.rate;
  now = applied;
  if (next->delay_ms != now.delay_ms || next->jitter_ms != now.jitter_ms || next->rate != now.rate) {
    s = exec(QdiscArgv(spec, *next));
    if (!s.ok()) return s;
    now = *next;
  }
  return Status::Ok();
}

void NetworkFaults::Clear(const Exec& exec) {
  for (const auto& [node, spec] : specs_) {
    Status s = exec({"nft", NftScript(NetTable(node), spec, NetState{})});
    if (!s.ok()) SLOG(kWarn) << "could not clear network faults of " << node << ": " << s.message();
  }
  MutexLock lock(mu_);
  state_.clear();
}

}  // namespace stampede::agent

// Network faults on a node this agent owns: how is the node's `network:`
// in the agent's own config; the network brings only the action, the node
// and bounded numbers (v1::NetFault).
//
//   nodes:
//     db3:
//       process: {...}                     # optional: a node may have only network faults
//       network:
//         peers: [10.0.0.4, 10.0.0.5]      # the other cluster nodes: what partition cuts off
//         ports: [3306, 4567, 4568, 4444]  # optional: only traffic to or from these ports (the
//                                          #   cluster's: the node's own and those of its peers it
//                                          #   connects to), so the agent's own link stays
//         interface: eth0                  # optional: blackhole and loss only on it; delay and
//                                          #   bandwidth need it
//
//   partition  drops packets between this host and the peers (direction in:
//              from them, out: to them, both); clients still reach the node
//   blackhole  drops packets between this host and everyone (loopback only
//              when ports are declared)
//   loss       drops that percentage of them at random (blackhole's scope)
//   delay      delays what leaves the interface (tc netem, with jitter)
//   bandwidth  limits what leaves the interface (tc tbf; netem's rate
//              with a delay)
//   heal       undoes every network fault on the node
//
// A node with a proxy (agent/fault_proxy.h) has delay and bandwidth done
// there unless the plan says method: kernel.
//
// Faults combine (a partition and a loss). Each action rebuilds the node's
// own nftables table, `stampede_NODE`, in one transaction (`nft` from
// Debian's nftables); nothing else in the host's ruleset is touched, and
// heal deletes the table. An agent that starts removes a table a previous
// instance of itself left behind (it was killed before it could heal).
#ifndef STAMPEDE_AGENT_NETWORK_FAULTS_H_
#define STAMPEDE_AGENT_NETWORK_FAULTS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "proto/stampede.pb.h"

namespace YAML {
class Node;
}

namespace stampede::agent {

class ConfigProblems;

struct NetworkSpec {
  std::vector<std::string> peers4, peers6;  // checked addresses
  std::vector<uint16_t> ports;
  std::string interface;

  // The `network:` mapping at `field` (nodes.NAME.network); every problem
  // added to *problems.
  static NetworkSpec FromYaml(const YAML::Node& n, const std::string& field, ConfigProblems* problems);
};

// What is applied to a node now.
struct NetState {
  bool cut_in = false, cut_out = false;      // partition
  bool black_in = false, black_out = false;  // blackhole
  uint32_t loss_in_bp = 0, loss_out_bp = 0;  // loss, in 1/100 of a percent
  uint32_t delay_ms = 0, jitter_ms = 0;      // delay
  uint64_t rate = 0;                         // bandwidth, bytes per second
  bool Filters() const { return cut_in || cut_out || black_in || black_out || loss_in_bp || loss_out_bp; }
};

// The state after `action` (a network action) with `net` on `now`; an error
// for numbers out of bounds or an action the spec cannot do.
StatusOr<NetState> NextNetState(const NetState& now, const NetworkSpec& spec, const std::string& action,
                                const v1::NetFault& net);
// The node's table name: stampede_ and the node's name, other characters
// than [A-Za-z0-9_] as _.
std::string NetTable(const std::string& node);
// One nft command line that replaces the node's table with what `state`
// needs (or deletes it when nothing).
std::string NftScript(const std::string& table, const NetworkSpec& spec, const NetState& state);
// The tc command that gives the interface what `state` needs: netem for a
// delay (with its rate, if any), tbf for a bandwidth alone, none.
std::vector<std::string> QdiscArgv(const NetworkSpec& spec, const NetState& state);

// The nodes' specs and what is applied to each. Thread-safe.
class NetworkFaults {
 public:
  using Exec = std::function<Status(const std::vector<std::string>& argv)>;

  void Declare(const std::string& node, NetworkSpec spec) { specs_[node] = std::move(spec); }
  bool Has(const std::string& node) const { return specs_.count(node) > 0; }
  Status Check(const std::string& action, const std::string& node, const std::string& direction = "") const;
  // Carries out a network action through exec (argv, never a shell).
  Status Run(const std::string& action, const std::string& node, const v1::NetFault& net, const Exec& exec);
  // Deletes every declared node's table, applied or not (see above).
  void Clear(const Exec& exec);

 private:
  std::map<std::string, NetworkSpec> specs_;  // fixed once the config is read
  Mutex mu_;
  std::map<std::string, NetState> state_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_NETWORK_FAULTS_H_

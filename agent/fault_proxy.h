// A TCP proxy in the agent that faults can be applied to: network faults
// that need neither root nor netem (Toxiproxy's "toxics", in-process).
//
//   nodes:
//     db1:
//       proxy: {listen: 127.0.0.1:16379, upstream: 127.0.0.1:6379}
//     db2:
//       proxy:                                   # several: one per client or peer port
//         - {listen: 10.0.0.2:13306, upstream: 10.0.0.2:3306}
//         - {listen: 10.0.0.2:14567, upstream: 10.0.0.2:4567}
//
// The plan's endpoints (or the cluster's peer addresses) point at `listen`;
// every connection accepted there is forwarded to `upstream`. While nothing
// is applied the bytes go straight through. Directions are the node's: in
// is what is sent to it (requests), out what it sends (responses).
//
//   delay       holds what passes for delay ± jitter ms (default: out only,
//               so an operation's round trip grows by the delay once)
//   bandwidth   at most that many bytes per second, over all of the node's
//               connections (default: each direction)
//   reset       resets every connection (RST both ways), and every new one
//               at once, until healed
//   timeout     forwards nothing but keeps every connection open, and holds
//               new ones unanswered: the application-level blackhole; heal
//               lets what waited through
//   slow-close  a side's close reaches the other side delay ms later
//   heal        undoes all of them
//
// One thread serves every proxy of the agent. Thread-safe.
#ifndef STAMPEDE_AGENT_FAULT_PROXY_H_
#define STAMPEDE_AGENT_FAULT_PROXY_H_

#include <cstdint>
#include <map>
#include <memory>
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

struct ProxySpec {
  std::string listen_host, upstream_host;
  uint16_t listen_port = 0, upstream_port = 0;

  // A node's `proxy:`, one mapping or a list of them, at `field`
  // (nodes.NAME.proxy); every problem added to *problems.
  static std::vector<ProxySpec> FromYaml(const YAML::Node& n, const std::string& field, ConfigProblems* problems);
};

// What applies to a node's proxies now. Index 0: in, 1: out.
struct ProxyState {
  uint32_t delay_ms[2] = {0, 0}, jitter_ms[2] = {0, 0};
  uint64_t bandwidth[2] = {0, 0};  // bytes per second, 0: unlimited
  bool reset = false, timeout = false;
  uint32_t slow_close_ms = 0;
};

// Whether the proxy does this action.
bool IsProxyAction(const std::string& action);
// The state after `action` with `net` on `now`; an error for numbers out of
// bounds.
StatusOr<ProxyState> NextProxyState(const ProxyState& now, const std::string& action, const v1::NetFault& net);

class FaultProxy {
 public:
  FaultProxy();
  ~FaultProxy();  // closes every listener and connection
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // Before Start.
  void Declare(const std::string& node, std::vector<ProxySpec> specs);
  bool Has(const std::string& node) const { return specs_.count(node) > 0; }
  bool empty() const { return specs_.empty(); }
  // Listens on every declared address; the first that fails, as one line
  // ("node db1: proxy 127.0.0.1:16379: Address already in use").
  Status Start();
  // Applies a proxy action to the node's proxies; returns once it is in
  // place (reset: every connection is reset).
  Status Apply(const std::string& node, const std::string& action, const v1::NetFault& net);
  // Connections the node's proxies hold now (tests and logs).
  int Connections(const std::string& node);

 private:
  struct Impl;
  std::map<std::string, std::vector<ProxySpec>> specs_;  // fixed once started
  Mutex mu_;
  std::map<std::string, ProxyState> state_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_FAULT_PROXY_H_

// What this agent may do to which node, from the `nodes:` section of its own
// local configuration (agent/agent_config.h). The network only ever names an
// action and a node; a request for anything not declared here is refused.
//
//   nodes:
//     db3:
//       process: {pidfile: /var/run/mysqld/mysqld.pid,       # or exe: /usr/sbin/mariadbd
//                 start: [systemctl, start, mariadb]}         # argv, never a shell string
//     db4: {systemd: {unit: mariadb.service}}
//     db5: {docker: {container: roach3}}
//     db6: {command: {kill: [/usr/local/bin/kill-db], start: [/usr/local/bin/start-db]}}
//     db7: {process: {...}, network: {peers: [10.0.0.8, 10.0.0.9], ports: [3306, 4567]}}
//     db8: {process: {...}, data_dir: /var/lib/mysql}        # sampled once a second
//     db9: {proxy: {listen: 127.0.0.1:13306, upstream: 127.0.0.1:3306}}
//
// Actions: kill (SIGKILL), stop (graceful), pause / resume (SIGSTOP /
// SIGCONT), start, restart (stop, then start); with `network:`
// (agent/network_faults.h) partition, blackhole, delay, loss, bandwidth and
// heal; with `proxy:` (agent/fault_proxy.h) delay, bandwidth, reset,
// timeout, slow-close and heal, the proxy's unless the plan asks for
// method: kernel; with `data_dir:` fill (agent/disk_faults.h), which heal
// undoes too. A
// command that has not finished after the timeout (default 60 s) is killed
// with its process group and the action fails.
#ifndef STAMPEDE_AGENT_FAULT_ACTIONS_H_
#define STAMPEDE_AGENT_FAULT_ACTIONS_H_

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/config_yaml.h"
#include "agent/fault_proxy.h"
#include "agent/network_faults.h"
#include "common/status.h"
#include "proto/fault_action.h"

namespace YAML {
class Node;
}

namespace stampede::agent {

struct NodeActions {
  enum class Kind { kNone, kProcess, kSystemd, kDocker, kCommand };  // kNone: network faults only
  Kind kind = Kind::kProcess;
  std::string pidfile;                                       // process
  std::string exe;                                           // process: exact executable path
  std::vector<std::string> start;                            // process: start argv
  std::string unit;                                          // systemd
  std::string container;                                     // docker
  std::map<std::string, std::vector<std::string>> commands;  // command: action -> argv
  std::string data_dir;  // the node's data directory: its disk usage is sampled (agent/node_sampler.h)
};

// The processes of a `process` node: its pidfile's, or every one running
// its exe.
StatusOr<std::vector<pid_t>> FindPids(const NodeActions& n);

class FaultActions {
 public:
  // The `nodes:` mapping of an agent config: the nodes it declares, every
  // problem added to *problems.
  static FaultActions FromYaml(const YAML::Node& nodes, ConfigProblems* problems);

  void set_timeout_ms(int64_t ms) { timeout_ms_ = ms; }
  int64_t timeout_ms() const { return timeout_ms_; }

  std::vector<std::string> nodes() const;
  const NodeActions* Find(const std::string& node) const;  // null if not declared
  // Whether (action, node) is declared; the reason if not. net: the fault's
  // numbers (its method decides between the proxy and the kernel).
  // probe_host: also whether this host can do it (slow-disk's cgroup);
  // false for a config checked away from its host (`stampede validate`).
  Status Check(const std::string& action, const std::string& node, const v1::NetFault& net = {},
               bool probe_host = true) const;
  // Performs it (blocking, up to the timeout: run it off the gRPC threads);
  // net: a network action's numbers.
  Status Run(const std::string& action, const std::string& node, const v1::NetFault& net = {},
             const v1::DiskFault& disk = {}) const;
  // Removes what network faults and disk fills a previous agent left on the
  // declared nodes.
  void ClearLeftovers() const;
  // Starts the nodes' proxies (agent/fault_proxy.h): they forward from
  // then on, for the agent's life. One clear line if one cannot listen.
  Status StartProxies() const { return proxy_->Start(); }

 private:
  // Runs argv (never a shell) up to the timeout; a failure ends with the
  // last line the command wrote to stderr.
  Status Exec(const std::vector<std::string>& argv) const;
  Status Wait(pid_t pid, const std::vector<std::string>& argv) const;
  Status RunProcess(const std::string& action, const NodeActions& n) const;
  // Whether the node's proxy does this fault.
  bool ByProxy(const std::string& action, const std::string& node, const v1::NetFault& net) const;

  std::map<std::string, NodeActions> nodes_;
  // Shared by copies of this (the config is copied); thread-safe.
  std::shared_ptr<NetworkFaults> network_ = std::make_shared<NetworkFaults>();
  std::shared_ptr<FaultProxy> proxy_ = std::make_shared<FaultProxy>();
  int64_t timeout_ms_ = 60000;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_FAULT_ACTIONS_H_

// An agent's own local configuration (`stampede agent --config agent.yaml`):
// what it may do to which node, and how it behaves when its coordinator is
// gone. Nothing here ever comes over the network.
//
//   nodes:                          # agent/fault_actions.h
//     db3: {process: {pidfile: /var/run/mysqld/mysqld.pid, start: [systemctl, start, mariadb]}}
//   fault_timeout: 60s              # a fault command still running then is killed
//   coordinator_lost:
//     resume_paused_after: 30s      # resume the nodes this agent paused, heal its network faults
//     stop_run_after: 120s          # stop the run, undo its faults, keep the spool
//   spool: {dir: /var/lib/stampede/spool, max_size: 256MB}
//   allow: {targets: [{endpoints: [10.0.0.0/24], password_env: [DB_PASSWORD]}], setup: true, custom: true}
//                                   # agent/allow_list.h
#ifndef STAMPEDE_AGENT_AGENT_CONFIG_H_
#define STAMPEDE_AGENT_AGENT_CONFIG_H_

#include <cstdint>
#include <string>

#include "agent/allow_list.h"
#include "agent/config_yaml.h"
#include "agent/fault_actions.h"
#include "common/status.h"

namespace stampede::agent {

struct AgentConfig {
  FaultActions faults;
  int64_t resume_paused_after_ms = 30000;
  int64_t stop_run_after_ms = 120000;
  std::string spool_dir;  // empty: the agent's default
  uint64_t spool_max_bytes = 256ull << 20;
  AllowList allow;  // what plans may make this agent do

  // Every problem, one per line, each at FILE:LINE:COL like a plan's.
  static StatusOr<AgentConfig> Load(const std::string& path);
  static StatusOr<AgentConfig> Parse(const std::string& text, const std::string& file);

 private:
  void ReadCoordinatorLost(const YAML::Node& lost, ConfigProblems* problems);
  void ReadSpool(const YAML::Node& spool, ConfigProblems* problems);
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_AGENT_CONFIG_H_

// The pre-flight of `stampede validate` and `stampede run`: whether the
// agents' own configs let a plan's faults be done, found before anything
// touches a target rather than when the run reaches its first fault.
#ifndef STAMPEDE_CLI_PREFLIGHT_H_
#define STAMPEDE_CLI_PREFLIGHT_H_

#include <string>
#include <vector>

#include "agent/agent_config.h"
#include "plan/plan_validator.h"
#include "proto/stampede.pb.h"

namespace stampede::cli {

struct NamedAgentConfig {
  std::string file;
  agent::AgentConfig config;
};

// One problem per fault that no given config can carry out: its node
// declared by none of them (at faults[i].node), or declared without the
// means for its action (at faults[i].action). Without configs, every
// fault's node is a problem that names --agent-config. The configs may belong to
// other hosts: nothing on this host is probed.
std::vector<plan::PlanProblem> FaultOwnerProblems(const v1::Plan& plan, const std::vector<NamedAgentConfig>& configs);

// What agents must declare for the plan's faults: "node4: join, leave",
// one entry per node in the plan's order; empty without faults.
std::vector<std::string> FaultNeeds(const v1::Plan& plan);

}  // namespace stampede::cli

#endif  // STAMPEDE_CLI_PREFLIGHT_H_

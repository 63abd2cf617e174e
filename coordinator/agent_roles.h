// Which agents generate load (agents.load in the plan, docs/plan.md): by
// default those that own no database node, so load does not come from the
// hosts being measured, nor from the host of a node being killed; all of
// them when every agent owns a node (one machine, `stampede run`).
#ifndef STAMPEDE_COORDINATOR_AGENT_ROLES_H_
#define STAMPEDE_COORDINATOR_AGENT_ROLES_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "proto/stampede.pb.h"

namespace stampede::coordinator {

// Whether an agent with this hello matches the plan's choice (before the
// default's fallback).
bool MatchesLoad(const v1::AgentsSpec& spec, const v1::Hello& hello);

// Of the agents (names[i] said hellos[i]), those that generate load, in
// order; an error when labels choose none.
StatusOr<std::vector<std::string>> LoadAgents(const v1::AgentsSpec& spec, const std::vector<std::string>& names,
                                              const std::vector<const v1::Hello*>& hellos);

// agents.split: capacity. Each load agent's share weight from its declared
// capacity (--capacity): an agent that declares none weighs as the mean of
// those that do; empty (even shares) when none does. At most 10^6 each.
std::vector<uint32_t> ShareWeights(const std::vector<uint32_t>& capacity);

// "load", "nodes node1 node2", "load, nodes node1" and labels, for the
// journal and the report.
std::string RoleOf(const v1::Hello& hello, bool load);

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_AGENT_ROLES_H_

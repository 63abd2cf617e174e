#include "cli/preflight.h"

#include <algorithm>

#include "common/strings.h"

namespace stampede::cli {

std::vector<plan::PlanProblem> FaultOwnerProblems(const v1::Plan& plan, const std::vector<NamedAgentConfig>& configs) {
  std::vector<plan::PlanProblem> problems;
  for (int i = 0; i < plan.faults_size(); ++i) {
    const v1::Fault& f = plan.faults(i);
    const std::string at = "faults[" + std::to_string(i) + "]";
    auto owner = std::find_if(configs.begin(), configs.end(),
                              [&](const NamedAgentConfig& c) { return c.config.faults.Find(f.node()) != nullptr; });
    if (owner == configs.end() && configs.empty()) {
      problems.push_back({at + ".node", "node '" + f.node() +
                                            "' needs an agent whose config declares it: give that config with "
                                            "--agent-config AGENT.yaml"});
      continue;
    }
    if (owner == configs.end()) {
      std::vector<std::string> declared;
      for (const NamedAgentConfig& c : configs) {
        const std::vector<std::string> nodes = c.config.faults.nodes();
        declared.push_back(c.file + " declares " + (nodes.empty() ? "no node" : Join(nodes, ", ")));
      }
      problems.push_back({at + ".node", "node '" + f.node() + "' is not declared by the agent config" +
                                            (configs.size() > 1 ? "s" : "") + " given (" + Join(declared, "; ") + ")"});
      continue;
    }
    if (Status s = owner->config.faults.Check(f.action(), f.node(), f.net(), /*probe_host=*/false); !s.ok()) {
      problems.push_back({at + ".action", owner->file + ": " + s.message()});
    }
  }
  return problems;
}

std::vector<std::string> FaultNeeds(const v1::Plan& plan) {
  std::vector<std::pair<std::string, std::vector<std::string>>> needs;
  for (const v1::Fault& f : plan.faults()) {
    auto it = std::find_if(needs.begin(), needs.end(), [&](const auto& n) { return n.first == f.node(); });
    if (it == needs.end()) it = needs.insert(needs.end(), {f.node(), {}});
    if (std::find(it->second.begin(), it->second.end(), f.action()) == it->second.end()) {
      it->second.push_back(f.action());
    }
  }
  std::vector<std::string> lines;
  for (const auto& [node, actions] : needs) lines.push_back(node + ": " + Join(actions, ", "));
  return lines;
}

}  // namespace stampede::cli

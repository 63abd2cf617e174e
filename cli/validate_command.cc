#include <algorithm>
#include <iostream>
#include <set>

#include "agent/agent_config.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "plan/plan_loader.h"
#include "workloads/workload_registry.h"

namespace stampede::cli {
namespace po = boost::program_options;

namespace {

// What an agent would refuse when the run starts, found now: the plan
// against each given agent config's allow list. A fault's node that none of
// them declares is only noted (another agent may own it).
bool CheckAgainstConfigs(const std::string& file, const v1::Plan& plan,
                         const std::vector<std::pair<std::string, agent::AgentConfig>>& configs) {
  bool ok = true;
  for (const auto& [config_file, config] : configs) {
    if (Status s = config.allow.Check(plan); !s.ok()) {
      std::cerr << file << ": " << s.message() << "\n";
      ok = false;
    }
  }
  if (configs.empty()) return ok;
  std::set<std::string> noted;
  for (const v1::Fault& f : plan.faults()) {
    const bool declared = std::any_of(configs.begin(), configs.end(),
                                      [&](const auto& c) { return c.second.faults.Find(f.node()) != nullptr; });
    if (!declared && noted.insert(f.node()).second) {
      std::cerr << file << ": note: no given agent config declares node " << f.node()
                << " (the run needs an agent that does)\n";
    }
  }
  return ok;
}

}  // namespace

int ValidateCommand(const Args& args) {
  std::vector<std::string> files, agent_configs;
  po::options_description desc("validate options");
  desc.add_options()("plan", po::value(&files)->composing(), "plan files")(
      "agent-config", po::value(&agent_configs)->composing(),
      "an agent's local config (its --config) to check instead of, or as well as, plans (repeatable)");
  po::positional_options_description pos;
  pos.add("plan", -1);
  po::variables_map vm;
  const std::string usage = "usage: stampede validate PLAN.yaml... [--agent-config AGENT.yaml]";
  if (auto code = ParseFlags(usage, desc, pos, args, &vm)) return *code;
  if (files.empty() && agent_configs.empty()) {
    std::cerr << usage << "\n";
    return kExitBadInput;
  }
  int rc = kExitOk;
  std::vector<std::pair<std::string, agent::AgentConfig>> configs;
  for (const std::string& f : agent_configs) {
    auto c = agent::AgentConfig::Load(f);
    if (!c.ok()) {
      std::cerr << c.status().message() << "\n";
      rc = kExitBadInput;
      continue;
    }
    std::cout << f << ": ok (agent config: " << c->faults.nodes().size() << " node(s)"
              << (c->allow.configured() ? ", with allow:" : ", no allow: (any target)") << ")\n";
    configs.emplace_back(f, std::move(*c));
  }
  for (const std::string& f : files) {
    auto r = plan::LoadPlanFile(f);
    if (!r.ok()) {
      for (const std::string& e : r.errors) std::cerr << e << "\n";
      rc = kExitBadInput;
      continue;
    }
    if (!CheckAgainstConfigs(f, r.plan, configs)) {
      rc = kExitBadInput;
      continue;
    }
    uint64_t workers = 0;
    for (const auto& p : r.plan.phases()) workers = std::max<uint64_t>(workers, p.workers());
    std::cout << f << ": ok (" << r.plan.phases_size() << " phase(s), up to " << workers << " workers, "
              << r.plan.target().driver() << "/" << r.plan.target().flavor() << ", " << r.plan.agents().min()
              << " agent(s))\n";
  }
  return rc;
}

int WorkloadsCommand(const Args& args) {
  std::string name;
  po::options_description desc("workloads options");
  desc.add_options()("name", po::value(&name), "a workload's name: show its parameters");
  po::positional_options_description pos;
  pos.add("name", 1);
  po::variables_map vm;
  const std::string usage = "usage: stampede workloads [NAME]\nLists the built-in workloads, or one's parameters.";
  if (auto code = ParseFlags(usage, desc, pos, args, &vm)) return *code;
  if (name.empty()) {
    for (const workloads::WorkloadInfo& w : workloads::Workloads()) {
      std::cout << w.name << "\t" << w.description << "\n";
    }
    return kExitOk;
  }
  const workloads::WorkloadInfo* w = workloads::FindWorkload(name);
  if (!w) {
    std::cerr << "stampede: unknown workload '" << name << "' (`stampede workloads` lists them)\n";
    return kExitBadInput;
  }
  std::cout << w->name << ": " << w->description << "\n\nparams:\n";
  for (const workloads::ParamSpec& p : w->param_specs()) {
    std::cout << "  " << p.name << " (default " << (p.default_value.empty() ? "none" : p.default_value) << ")  "
              << p.description << "\n";
  }
  return kExitOk;
}

}  // namespace stampede::cli

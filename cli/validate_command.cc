#include <algorithm>
#include <iostream>

#include "agent/agent_config.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/preflight.h"
#include "common/strings.h"
#include "plan/plan_loader.h"
#include "workloads/workload_registry.h"

namespace stampede::cli {
namespace po = boost::program_options;

namespace {

// What the given agents' allow lists would refuse when the run starts.
bool AllowedByConfigs(const std::string& file, const v1::Plan& plan, const std::vector<NamedAgentConfig>& configs) {
  bool ok = true;
  for (const NamedAgentConfig& c : configs) {
    if (Status s = c.config.allow.Check(plan); !s.ok()) {
      std::cerr << file << ": " << s.message() << "\n";
      ok = false;
    }
  }
  return ok;
}

// The ops a workload reports, over its steps, as built with its defaults on
// PostgreSQL (custom's come from the plan: none).
std::vector<std::string> DefaultOps(const workloads::WorkloadInfo& w) {
  std::vector<std::string> ops;
  if (w.name == "custom") return ops;
  std::vector<std::string> steps;
  if (w.steps) {
    for (const workloads::StepSpec& s : w.steps(workloads::Params(w.param_specs(), {}), 1)) steps.push_back(s.name);
  }
  if (steps.empty()) steps.push_back("");  // not stepped, or not with these params
  for (const std::string& step : steps) {
    workloads::WorkloadContext ctx;
    ctx.step = step;
    ctx.group_workers = 1;
    auto created = workloads::CreateWorkload(w.name, ctx, {});
    if (!created.ok()) continue;
    for (const std::string& op : (*created)->ops()) {
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
    }
  }
  return ops;
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
  std::vector<NamedAgentConfig> configs;
  for (const std::string& f : agent_configs) {
    auto c = agent::AgentConfig::Load(f);
    if (!c.ok()) {
      std::cerr << c.status().message() << "\n";
      rc = kExitBadInput;
      continue;
    }
    std::cout << f << ": ok (agent config: " << c->faults.nodes().size() << " node(s)"
              << (c->allow.configured() ? ", with allow:" : ", no allow: (any target)") << ")\n";
    configs.push_back({f, std::move(*c)});
  }
  // With agent configs, every fault must be theirs to do: checked at the
  // fault's line like the plan's own rules.
  plan::PlanCheck owners;
  if (!agent_configs.empty()) owners = [&](const v1::Plan& plan) { return FaultOwnerProblems(plan, configs); };
  for (const std::string& f : files) {
    auto r = plan::LoadPlanFile(f, owners);
    if (!r.ok()) {
      for (const std::string& e : r.errors) std::cerr << e << "\n";
      rc = kExitBadInput;
      continue;
    }
    if (!AllowedByConfigs(f, r.plan, configs)) {
      rc = kExitBadInput;
      continue;
    }
    uint64_t workers = 0;
    for (const auto& p : r.plan.phases()) workers = std::max<uint64_t>(workers, p.workers());
    std::cout << f << ": ok (" << r.plan.phases_size() << " phase(s), up to " << workers << " workers, "
              << r.plan.target().driver() << "/" << r.plan.target().flavor() << ", " << r.plan.agents().min()
              << " agent(s))\n";
    if (const std::vector<std::string> needs = FaultNeeds(r.plan); !needs.empty() && agent_configs.empty()) {
      std::cout << f << ": note: its faults need an agent whose config declares " << Join(needs, "; ")
                << " (check that config too: --agent-config AGENT.yaml)\n";
    }
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
    const std::string near = NearestWord(name, workloads::WorkloadNames());
    std::cerr << "stampede: unknown workload '" << name << "'"
              << (near.empty() ? "" : " (did you mean '" + near + "'?)") << "; `stampede workloads` lists them\n";
    return kExitBadInput;
  }
  std::cout << w->name << ": " << w->description << "\n";
  if (const std::vector<std::string> ops = DefaultOps(*w); !ops.empty()) {
    std::cout << "\nops (as the report names them): " << Join(ops, ", ") << "\n";
  }
  std::cout << "\nparams:\n";
  for (const workloads::ParamSpec& p : w->param_specs()) {
    std::cout << "  " << p.name << " (default " << (p.default_value.empty() ? "none" : p.default_value) << ")  "
              << p.description << "\n";
  }
  return kExitOk;
}

}  // namespace stampede::cli

#include <iostream>

#include "cli/commands.h"
#include "cli/flags.h"
#include "plan/plan_loader.h"
#include "workloads/workload_registry.h"

namespace stampede::cli {
namespace po = boost::program_options;

int ValidateCommand(const Args& args) {
  std::vector<std::string> files;
  po::options_description desc("validate options");
  desc.add_options()("plan", po::value(&files)->composing(), "plan files");
  po::positional_options_description pos;
  pos.add("plan", -1);
  po::variables_map vm;
  const std::string usage = "usage: stampede validate PLAN.yaml...";
  if (auto code = ParseFlags(usage, desc, pos, args, &vm)) return *code;
  if (files.empty()) {
    std::cerr << usage << "\n";
    return kExitBadInput;
  }
  int rc = kExitOk;
  for (const std::string& f : files) {
    auto r = plan::LoadPlanFile(f);
    if (!r.ok()) {
      for (const std::string& e : r.errors) std::cerr << e << "\n";
      rc = kExitBadInput;
      continue;
    }
    uint64_t workers = 0;
    for (const auto& p : r.plan.phases()) workers = std::max<uint64_t>(workers, p.workers());
    std::cout << f << ": ok (" << r.plan.phases_size() << " phase(s), up to " << workers
              << " workers, " << r.plan.target().driver() << "/" << r.plan.target().flavor()
              << ", " << r.plan.agents().min() << " agent(s))\n";
  }
  return rc;
}

int WorkloadsCommand(const Args& args) {
  if (args.empty()) {
    for (const workloads::WorkloadInfo& w : workloads::Workloads()) {
      std::cout << w.name << "\t" << w.description << "\n";
    }
    return kExitOk;
  }
  const workloads::WorkloadInfo* w = workloads::FindWorkload(args[0]);
  if (!w) {
    std::cerr << "stampede: unknown workload '" << args[0] << "' (`stampede workloads` lists them)\n";
    return kExitBadInput;
  }
  std::cout << w->name << ": " << w->description << "\n\nparams:\n";
  for (const workloads::ParamSpec& p : w->param_specs()) {
    std::cout << "  " << p.name << " (default " << (p.default_value.empty() ? "none" : p.default_value)
              << ")  " << p.description << "\n";
  }
  return kExitOk;
}

}  // namespace stampede::cli

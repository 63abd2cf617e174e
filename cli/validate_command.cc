#include <iostream>

#include "cli/commands.h"
#include "cli/flags.h"
#include "plan/plan_loader.h"

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

}  // namespace stampede::cli

#include "plan/plan_expander.h"

#include <map>

#include "workloads/workload_registry.h"

namespace stampede::plan {

v1::Plan ExpandSteps(const v1::Plan& plan) {
  v1::Plan out = plan;
  out.clear_phases();
  for (const v1::Phase& phase : plan.phases()) {
    const workloads::WorkloadInfo* info = workloads::FindWorkload(phase.workload());
    std::vector<workloads::StepSpec> steps;
    if (info && info->steps) {
      std::map<std::string, std::string> values(phase.params().begin(), phase.params().end());
      steps = info->steps(workloads::Params(info->param_specs(), values), phase.workers());
    }
    if (steps.empty()) {
      *out.add_phases() = phase;
      continue;
    }
    if (steps.size() == 1 && steps[0].name.empty()) {
      // Not steps, just an operation count from the params (crud's iter).
      v1::Phase* p = out.add_phases();
      *p = phase;
      p->set_workers(steps[0].workers);
      p->set_ops(steps[0].ops);
      continue;
    }
    std::map<std::string, int> seen;
    for (size_t i = 0; i < steps.size(); ++i) {
      const workloads::StepSpec& step = steps[i];
      v1::Phase* p = out.add_phases();
      *p = phase;
      // The plan phase's setup before its first step, cleanup after its last.
      if (i > 0) p->clear_setup();
      if (i + 1 < steps.size()) p->clear_cleanup();
      const int n = ++seen[step.name];
      p->set_name(phase.name() + "/" + step.name + (n > 1 ? "-" + std::to_string(n) : ""));
      p->set_group(phase.name());
      p->set_step(step.name);
      p->set_group_workers(phase.workers());
      p->set_workers(step.workers);
      // check_writes: after the steps that insert (rebalance2021's InsertOne).
      p->set_check_writes(phase.check_writes() && step.writes);
      if (step.ops > 0) {  // else the plan phase's ops / duration
        p->set_ops(step.ops);
        p->set_duration_ms(0);
      }
    }
  }
  return out;
}

}  // namespace stampede::plan

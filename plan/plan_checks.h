// The validator's parts (plan_validator.cc, phase_checks.cc,
// custom_checks.cc, fault_checks.cc) and what they share: the plan under
// check, its problems, and the range checks worded as the YAML reader words
// them. Internal to plan/.
#ifndef STAMPEDE_PLAN_PLAN_CHECKS_H_
#define STAMPEDE_PLAN_PLAN_CHECKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "plan/plan_validator.h"
#include "proto/stampede.pb.h"
#include "workloads/workload_registry.h"

namespace stampede::plan {

class PlanChecks {
 public:
  PlanChecks(const v1::Plan& plan, std::vector<PlanProblem>* out) : plan_(plan), out_(out) {}

  const v1::Plan& plan() const { return plan_; }
  size_t count() const { return out_->size(); }
  void Add(const std::string& field, const std::string& message) { out_->push_back({field, message}); }

  // False (and a problem) outside [min, max].
  bool UInt(uint64_t v, const std::string& field, double min, double max);
  bool Double(double v, const std::string& field, double min, double max, bool exclusive_min);
  // A duration set: above zero, at most kMaxDurationMs.
  bool Duration(uint64_t ms, const std::string& field);
  // One of `allowed`.
  bool OneOf(const std::string& v, const std::string& field, const std::vector<std::string>& allowed);

 private:
  const v1::Plan& plan_;
  std::vector<PlanProblem>* out_;
};

// Every param of the phase is one of its workload's and parses within its
// range: only then may the workload's steps be computed from them.
bool ParamsUsable(const workloads::WorkloadInfo& info, const v1::Phase& phase);

void CheckPhases(PlanChecks& c);
void CheckCustom(PlanChecks& c, const v1::CustomWorkload& custom, const std::string& at);
void CheckFaults(PlanChecks& c);
void CheckHealth(PlanChecks& c);
void CheckExpect(PlanChecks& c);

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_PLAN_CHECKS_H_

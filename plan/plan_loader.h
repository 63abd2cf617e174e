// Loads a YAML plan into the protobuf Plan, validating everything before
// anything touches a target.
//
// Every problem is reported as "FILE:LINE:COL: FIELD: what was expected, what
// was found" (unknown keys with the nearest valid key), all at once.
#ifndef STAMPEDE_PLAN_PLAN_LOADER_H_
#define STAMPEDE_PLAN_PLAN_LOADER_H_

#include <functional>
#include <string>
#include <vector>

#include "plan/plan_validator.h"
#include "proto/stampede.pb.h"

namespace stampede::plan {

struct PlanLoadResult {
  bool ok() const { return errors.empty(); }
  v1::Plan plan;
  std::vector<std::string> errors;
};

// A check beyond the plan's own rules (what the agents' configs allow),
// run on a plan that keeps them; its problems are placed at the plan's
// FILE:LINE:COL like the rest.
using PlanCheck = std::function<std::vector<PlanProblem>(const v1::Plan&)>;

// `file_name` is used in messages only.
PlanLoadResult LoadPlanText(const std::string& text, const std::string& file_name, const PlanCheck& extra = nullptr);
PlanLoadResult LoadPlanFile(const std::string& path, const PlanCheck& extra = nullptr);

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_PLAN_LOADER_H_

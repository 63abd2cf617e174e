// Loads a YAML plan into the protobuf Plan, validating everything before
// anything touches a target.
//
// Every problem is reported as "FILE:LINE:COL: FIELD: what was expected, what
// was found" (unknown keys with the nearest valid key), all at once.
#ifndef STAMPEDE_PLAN_PLAN_LOADER_H_
#define STAMPEDE_PLAN_PLAN_LOADER_H_

#include <string>
#include <vector>

#include "proto/stampede.pb.h"

namespace stampede::plan {

struct PlanLoadResult {
  bool ok() const { return errors.empty(); }
  v1::Plan plan;
  std::vector<std::string> errors;
};

// `file_name` is used in messages only.
PlanLoadResult LoadPlanText(const std::string& text, const std::string& file_name);
PlanLoadResult LoadPlanFile(const std::string& path);

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_PLAN_LOADER_H_

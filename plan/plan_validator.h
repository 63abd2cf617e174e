// Every rule a plan must keep, checked on the protobuf plan itself: the one
// the loader built from YAML (which then places each problem at its
// FILE:LINE:COL) and the one a client submits over gRPC alike, so that what
// is checked is exactly what runs. The YAML reader checks only what YAML
// can get wrong (types, shapes, unknown and missing keys).
#ifndef STAMPEDE_PLAN_PLAN_VALIDATOR_H_
#define STAMPEDE_PLAN_PLAN_VALIDATOR_H_

#include <string>
#include <vector>

#include "proto/stampede.pb.h"

namespace stampede::plan {

struct PlanProblem {
  std::string field;  // phases[0].workers, faults[2].at, expect[1], ...
  std::string message;
};

// Problems in the order of the plan's fields; empty if the plan may run.
std::vector<PlanProblem> ValidatePlan(const v1::Plan& plan);

// "field: message" lines, for an RPC status or a log line.
std::string FormatProblems(const std::vector<PlanProblem>& problems);

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_PLAN_VALIDATOR_H_

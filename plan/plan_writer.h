// A plan message back to the YAML a user would write: the normalized
// plan.yaml every run keeps in its results. Holds no secrets: plans only
// ever name the environment variable of a password.
#ifndef STAMPEDE_PLAN_PLAN_WRITER_H_
#define STAMPEDE_PLAN_PLAN_WRITER_H_

#include <string>

#include "proto/stampede.pb.h"

namespace stampede::plan {

// The plan as run, as YAML (normalized, comments dropped); it loads back
// to the same plan.
std::string PlanToYaml(const v1::Plan& plan);

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_PLAN_WRITER_H_

// Expands stepped workloads (rebalance2021) into one phase per step.
//
// The coordinator runs the expanded plan: every step is a phase of its own,
// so all agents finish a step before any starts the next (the original ran
// InsertOne to completion before Count). Each expanded phase is named
// "PHASE/Step" ("insert/InsertOne"; a repeated step gets "-2"), and keeps
// the plan's phase name in `group`, so faults scheduled on "insert" and the
// report's per-group recap still refer to what the user wrote.
#ifndef STAMPEDE_PLAN_PLAN_EXPANDER_H_
#define STAMPEDE_PLAN_PLAN_EXPANDER_H_

#include "proto/stampede.pb.h"

namespace stampede::plan {

v1::Plan ExpandSteps(const v1::Plan& plan);

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_PLAN_EXPANDER_H_

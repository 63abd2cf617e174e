// The shape of a phase's load, as the runner and the coordinator both need
// to know it: open loop (paced by a rate) or closed loop (workers as fast as
// they go), timed (a duration) or ops-bounded.
#ifndef STAMPEDE_PLAN_PHASE_SHAPE_H_
#define STAMPEDE_PLAN_PHASE_SHAPE_H_

#include "proto/stampede.pb.h"

namespace stampede::plan {

inline bool IsOpenLoop(const v1::Phase& p) {
  if (p.stages_size() == 0) return p.rate() > 0;
  return p.stages(0).rate() > 0 || p.stages(0).workers() == 0;
}

// Whether a worker's operations can be taken up by another agent mid-phase:
// in a timed open-loop phase operation k of a worker is defined by its due
// time, so a new holder skips to now and nothing is done twice.
inline bool SharesMoveMidPhase(const v1::Phase& p) { return p.duration_ms() > 0 && IsOpenLoop(p); }

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_PHASE_SHAPE_H_

// The load shape of a phase over time: a constant rate or worker count, or
// k6-style stages (piecewise-linear ramps between targets, from 0).
//
// Open loop: operation n of the phase (n = 0, 1, ...) is due when the
// integral of the rate reaches n; TimeOfOp inverts that integral, so ramps
// and constant rates share one code path and need no per-op state beyond n.
// Closed loop: WorkersAt says how many workers should be running.
#ifndef STAMPEDE_PLAN_STAGE_SCHEDULE_H_
#define STAMPEDE_PLAN_STAGE_SCHEDULE_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "proto/stampede.pb.h"

namespace stampede::plan {

class StageSchedule {
 public:
  // From a phase: its stages, or its constant rate (0: closed loop).
  explicit StageSchedule(const v1::Phase& phase);

  bool open_loop() const { return open_loop_; }
  bool staged_workers() const { return !open_loop_ && !points_.empty(); }
  // The target (ops/s or workers) at t seconds into the phase.
  double ValueAt(double t) const;
  // Seconds from the phase start at which operation n (fractional allowed)
  // is due; a negative value if the schedule ends first.
  double TimeOfOp(double n) const;
  // Open loop: the operations due by t seconds into the phase (the rate's
  // integral; TimeOfOp's inverse), not bounded by the phase's ops or
  // duration.
  double OpsBy(double t) const;

 private:
  struct Point {
    double t;      // end of a stage, seconds from the phase start
    double value;  // target at that time
  };
  bool open_loop_ = false;
  double constant_rate_ = 0;   // open loop without stages
  std::vector<Point> points_;  // stages, starting from (0, 0)
};

// What a phase's schedule owes over time, for the coordinator to set
// beside what was done: operations due in [0, t] seconds of the phase,
// bounded by its ops and its duration. Closed loop owes no rate: null.
std::function<double(double)> ScheduledOpsBy(const v1::Phase& phase);

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_STAGE_SCHEDULE_H_

// The load shape of a phase over time: a constant rate or worker count, or
// k6-style stages (piecewise-linear ramps between targets, from 0).
//
// Open loop: operation n of the phase (n = 0, 1, ...) is due when the
// integral of the rate reaches n; TimeOfOp inverts that integral, so ramps
// and constant rates share one code path and need no per-op state beyond n.
// Closed loop: WorkersAt says how many workers should be running.
#ifndef STAMPEDE_AGENT_STAGE_SCHEDULE_H_
#define STAMPEDE_AGENT_STAGE_SCHEDULE_H_

#include <cstdint>
#include <vector>

#include "proto/stampede.pb.h"

namespace stampede::agent {

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

 private:
  struct Point {
    double t;      // end of a stage, seconds from the phase start
    double value;  // target at that time
  };
  bool open_loop_ = false;
  double constant_rate_ = 0;   // open loop without stages
  std::vector<Point> points_;  // stages, starting from (0, 0)
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_STAGE_SCHEDULE_H_

// When the faults of the plan phase in progress are due: PHASE+DURATION on
// the coordinator clock from the plan phase's start (a stepped phase's first
// step), or PHASE@PERCENT of the plan phase's operations (all its steps).
//
// Not thread-safe: the run controller's thread only.
#ifndef STAMPEDE_COORDINATOR_FAULT_SCHEDULE_H_
#define STAMPEDE_COORDINATOR_FAULT_SCHEDULE_H_

#include <cstdint>
#include <set>
#include <vector>

#include "proto/stampede.pb.h"

namespace stampede::coordinator {

class FaultSchedule {
 public:
  // plan: expanded (one phase per step); outlives this.
  explicit FaultSchedule(const v1::Plan& plan) : plan_(plan) {}

  // Whether phase p starts a plan phase (its first step, or an unstepped
  // phase), and the name its faults are scheduled on.
  bool StartsGroup(int p) const;
  bool EndsGroup(int p) const;
  // Schedules the faults of the plan phase that phase p starts, whose first
  // step starts at start_ns. Faults in `skip` were sent already (a resumed
  // run).
  void StartGroup(int p, int64_t start_ns, const std::set<int>& skip = {});
  // The faults due at now_ns after ops operations of the plan phase, in plan
  // order; they are no longer pending.
  std::vector<int> TakeDue(int64_t now_ns, uint64_t ops);
  // The faults still pending (their plan phase ended first); cleared.
  std::vector<int> TakeUnsent();
  bool empty() const { return due_.empty(); }

 private:
  struct Due {
    int index;
    int64_t at_ns;    // PHASE+DURATION: coordinator clock
    uint64_t at_ops;  // PHASE@PERCENT: operations of the plan phase (0: by time)
  };
  const v1::Plan& plan_;
  std::vector<Due> due_;
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_FAULT_SCHEDULE_H_

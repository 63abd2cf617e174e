// When the faults of the plan phase in progress are due: PHASE+DURATION on
// the coordinator clock from the plan phase's start (a stepped phase's first
// step), or PHASE@PERCENT of the plan phase's operations (all its steps).
//
// Not thread-safe: the run controller's thread only.
#ifndef STAMPEDE_COORDINATOR_FAULT_SCHEDULE_H_
#define STAMPEDE_COORDINATOR_FAULT_SCHEDULE_H_

#include <cstdint>
#include <functional>
#include <map>
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
  // What a rolling restart's next step waits for: when each fault's result
  // came (coordinator clock), and how many health polls in a row, started
  // after a given time, said healthy up to now.
  struct Progress {
    std::map<int, int64_t> done_ns;
    std::function<int(int64_t since_ns)> healthy_polls_since;
    int healthy_polls_needed = 3;
  };
  // The faults due at now_ns after ops operations of the plan phase, in plan
  // order; they are no longer pending. A rolling restart's step k is due
  // once step k-1's result came and the cluster was then healthy for
  // healthy_polls_needed polls in a row, or its max_wait passed.
  std::vector<int> TakeDue(int64_t now_ns, uint64_t ops, const Progress& progress);
  std::vector<int> TakeDue(int64_t now_ns, uint64_t ops);  // no rolling restart under way
  // The faults still pending (their plan phase ended first); cleared.
  std::vector<int> TakeUnsent();
  bool empty() const { return due_.empty(); }

 private:
  struct Due {
    int index;
    int64_t at_ns;         // PHASE+DURATION: coordinator clock
    uint64_t at_ops;       // PHASE@PERCENT: operations of the plan phase (0: by time)
    bool chained = false;  // a rolling restart's later step: after the one before it
  };
  bool ChainDue(const Due& d, int64_t now_ns, const Progress& progress) const;
  const v1::Plan& plan_;
  std::vector<Due> due_;
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_FAULT_SCHEDULE_H_

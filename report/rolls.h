// A rolling restart as a whole (the plan's `action: rolling-restart` over a
// list of nodes: each step is a restart fault with its own recovery
// numbers): how long the roll took, the lowest throughput during it
// against the baseline before it, and whether throughput stayed above the
// plan's throughput_floor throughout (docs/recovery.md, "Rolling
// restarts"). Not thread-safe.
#ifndef STAMPEDE_REPORT_ROLLS_H_
#define STAMPEDE_REPORT_ROLLS_H_

#include <map>
#include <string>
#include <vector>

#include "record/records.h"
#include "report/journal.h"
#include "report/recovery.h"

namespace stampede::report {

struct RollNumbers {
  int id = 0;
  std::vector<std::string> nodes;  // in step order, as far as steps were sent
  uint32_t steps = 0;              // planned
  uint32_t steps_done = 0;         // that took effect
  double start_t = -1;             // the first step asked for (s since run start)
  double end_t = -1;               // the last step's cluster healthy again (or its result)
  double duration_s = -1;
  double baseline_ops_per_s = 0;  // the first step's
  double lowest = -1;             // lowest 1 s ok rate over what it was expected to carry
  double floor = 0;               // the plan's throughput_floor (0: none)
  bool floor_held = true;         // every rated second at or above floor x expected
};

class RollTracker {
 public:
  void Add(const record::Record& r);
  // With the faults' recovery numbers (baseline, time to healthy).
  std::vector<RollNumbers> Result(const std::vector<FaultRecovery>& faults) const;

 private:
  struct Step {
    int roll;
    uint32_t step, steps;
    double floor;
    std::string node;
    int index;
  };
  struct Sec {
    double start, end;
    uint64_t ok;
    double scheduled;
  };
  std::vector<Step> steps_;
  std::vector<Sec> seconds_;
};

Json RollToJson(const RollNumbers& r);
std::string RenderRollsMarkdown(const std::vector<RollNumbers>& rolls);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_ROLLS_H_

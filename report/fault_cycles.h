// Repeated faults of the same kind on the same node (a plan's
// `repeat: N, every: D`, or the same action written several times) as one
// distribution: how many cycles, min / median / p90 / max of each recovery
// number, and the cycles themselves. docs/recovery.md has the definitions.
#ifndef STAMPEDE_REPORT_FAULT_CYCLES_H_
#define STAMPEDE_REPORT_FAULT_CYCLES_H_

#include <string>
#include <vector>

#include "report/journal.h"
#include "report/recovery.h"

namespace stampede::report {

// One recovery number over the cycles where it was observed. Percentiles
// are nearest-rank: each is one cycle's value.
struct CycleStat {
  int n = 0;  // cycles with a value
  double min = 0, median = 0, p90 = 0, max = 0;
  static CycleStat Of(std::vector<double> values);  // the observed values
};

struct FaultCycles {
  std::string action, node;
  std::string detail;       // a network fault's numbers ("": none)
  std::vector<int> faults;  // the cycles: indices into the run's faults, in time order
  int took_effect = 0;      // cycles whose action took effect (the rest are not in the numbers)
  int not_recovered = 0;    // cycles whose throughput did not come back within their window
  int not_healthy = 0;      // cycles the health probe never called healthy after
  CycleStat unavailable, recovered, healthy, gap, lowest;
  CycleStat balanced;  // time to balanced (report/rebalance.h), where the probe says where the data is
};

// The groups of two or more faults with the same action, numbers and node, in order
// of their first fault.
std::vector<FaultCycles> GroupFaultCycles(const std::vector<FaultRecovery>& faults);

Json FaultCyclesToJson(const FaultCycles& c);
// "## Repeated faults": the distributions, then each group's cycle table.
std::string RenderFaultCyclesMarkdown(const std::vector<FaultCycles>& cycles, const std::vector<FaultRecovery>& faults);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_FAULT_CYCLES_H_

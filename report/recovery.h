// Recovery numbers per fault, computed from the journal's per-second lines
// (definitions in docs/recovery.md). Times are seconds; -1 means "not
// observed". Resolution is the journal's: one second.
#ifndef STAMPEDE_REPORT_RECOVERY_H_
#define STAMPEDE_REPORT_RECOVERY_H_

#include <array>
#include <string>
#include <vector>

#include "common/outcome.h"
#include "report/journal.h"

namespace stampede::report {

struct LatencyWindow {
  double p99_us = 0;
  double max_us = 0;
  uint64_t count = 0;
};

struct FaultRecovery {
  int index = 0;
  std::string phase, action, node, agent, message;
  bool ok = false;                                // the action took effect
  double t = -1;                                  // when (s since run start)
  double baseline_ops_per_s = 0;                  // successful ops/s before the fault
  double first_failure_s = -1;                    // fault -> first second with a failed op
  double unavailable_s = 0;                       // longest run of seconds with no successful op
  double error_window_s = 0;                      // first to last second with errors
  std::array<uint64_t, kNumOutcomes> outcomes{};  // after the fault (index 0: ok)
  double dip = -1;                                // lowest successful ops/s / baseline
  double recovered_s = -1;                        // fault -> throughput >= fraction x baseline, held
  double healthy_s = -1;                          // fault -> health probe healthy, held (not yet probed)
  bool probed = false;                            // the health probe polled after the fault
  // The journal went on after the fault without the throughput recovering
  // (or the probe reporting healthy): "not recovered within the run".
  bool observed = false;    // any second after the fault was journalled
  bool next_fault = false;  // a later fault ended the window first
  LatencyWindow before, during, after;
};

struct RecoveryOptions {
  double baseline_s = 10;
  double recovered_fraction = 0.9;
  double hold_s = 5;
};

std::vector<FaultRecovery> ComputeRecovery(const std::vector<Json>& journal);
Json RecoveryToJson(const FaultRecovery& r);
std::string RenderRecoveryMarkdown(const std::vector<FaultRecovery>& faults);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_RECOVERY_H_

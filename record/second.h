// One second of one phase, as the coordinator's merger makes it from every
// agent's snapshot: the journal's "second" line as a C++ type. The merger
// emits it; the run controller, Prometheus exporter, live view, summary and
// recovery numbers read it; JSON only where it is written to or read from
// journal.jsonl (record/record_codec.h). Fields and units: docs/results.md.
//
// A Second holds one dense histogram per op (about 30 KB each): it is
// passed along and folded into running totals, not kept.
#ifndef STAMPEDE_RECORD_SECOND_H_
#define STAMPEDE_RECORD_SECOND_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/histogram.h"
#include "common/outcome.h"

namespace stampede::record {

struct OpSecond {
  std::array<uint64_t, kNumOutcomes> outcomes{};  // index: Outcome (0: ok)
  uint64_t retries = 0;
  uint64_t missed = 0;  // due in this second but never started
  Histogram latency;

  uint64_t count() const;  // ok + errors (not missed)
  uint64_t errors() const { return count() - outcomes[0]; }
};

struct EndpointSecond {
  uint64_t lost = 0, reconnects = 0, connect_failures = 0;
};

struct Second {
  std::string phase;
  uint32_t index = 0;  // the phase's index in the plan
  uint32_t seq = 0;    // the agents' snapshot number within the phase
  double t = 0;        // end of the second, s since the run started
  double phase_t = 0;  // the same, since the phase started
  double interval_s = 0;
  uint32_t agents = 0;  // how many agents' snapshots it holds
  uint32_t active_workers = 0;
  std::map<std::string, OpSecond> ops;
  std::map<std::string, uint64_t> agent_ops;  // operations per agent
  std::vector<std::string> from;              // the agents whose snapshot `seq` it holds
  std::map<std::string, double> agent_cpu_s;  // CPU each agent's process used
  std::map<std::string, EndpointSecond> endpoints;
  // When operations first and last ended ok and in error within the second
  // (s since the run started, -1: none; each from some agent's clock mapped
  // to the coordinator's, within clock_uncertainty_s, the largest of the
  // agents' offset uncertainties): sub-second recovery numbers.
  double first_ok_t = -1, last_ok_t = -1, first_err_t = -1, last_err_t = -1;
  double clock_uncertainty_s = 0;
  bool late = false;       // a snapshot that came after its second was written
  std::string from_spool;  // merged by `stampede report --spool` from this spool file

  // Over every op.
  uint64_t Count() const;
  uint64_t Errors() const;
  uint64_t Missed() const;
  std::array<uint64_t, kNumOutcomes> Outcomes() const;
  Histogram Latency() const;
  // Whether its interval is long enough for a rate to say something: a
  // phase's last second is the sliver after its last whole one.
  bool HasRate() const { return interval_s >= kShortestRateIntervalS; }
  static constexpr double kShortestRateIntervalS = 0.2;
};

}  // namespace stampede::record

#endif  // STAMPEDE_RECORD_SECOND_H_

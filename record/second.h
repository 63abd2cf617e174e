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
  uint64_t missed = 0;     // due in this second but never started
  uint64_t rollbacks = 0;  // ok, rolled back by the workload
  uint64_t disk_full = 0;  // in error: refused for a full disk
  uint64_t rows = 0;       // rows a load's ok operations put in
  Histogram latency;

  uint64_t count() const;  // ok + errors (not missed)
  uint64_t errors() const { return count() - outcomes[0]; }
};

// One agent's load in one second: whether the client itself was the
// bottleneck (docs/metrics.md, "Client saturation").
struct AgentLoad {
  double cpu = -1;         // its process's CPU over the cores it may use (0..1 and above; -1: not known)
  double lag_p99_ms = -1;  // p99 of how late its event loops ran a timer (-1: not measured)

  // Over 90% of its CPU, or its loops' timers late by more than 10 ms at
  // the p99: its latency and throughput then measure the agent, not the
  // database.
  static constexpr double kSaturatedCpu = 0.9;
  static constexpr double kSaturatedLagMs = 10;
  bool Saturated() const { return cpu > kSaturatedCpu || lag_p99_ms > kSaturatedLagMs; }
};

// One consistency anomaly a workload's check found (docs/consistency.md).
struct AnomalyExample {
  std::string kind;  // common/anomaly.h: wrong_total, stale_read, lost, ...
  double t = 0;      // when it was seen, s since the run started
  std::string agent, endpoint, op;
  int64_t key = -1;  // -1: every key (a bank total)
  int64_t expected = 0, got = 0;
  double lag_s = 0;    // stale reads: how old the missed write was
  bool final = false;  // the final read after the phase
  std::string detail;  // what a history check saw ("read [1,2,4] where [1,2,3] was read")
};

// A journal line's examples beyond this are not read (agents send at most
// 10 per event loop and phase).
inline constexpr size_t kMaxAnomalyExamples = 1000;

struct EndpointSecond {
  uint64_t lost = 0, reconnects = 0, connect_failures = 0;
  // Operations that ended ok on it, and when the first and last of them did
  // (s since the run started, -1: none). Redis Cluster: by the master that
  // answered, named as its slot map names it.
  uint64_t ok = 0;
  double first_ok_t = -1, last_ok_t = -1;
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
  std::map<std::string, double> agent_cpu_s;  // CPU each agent's own threads used
  // CPU of the agents' processes that no agent owns (an embedded
  // coordinator, gRPC's threads): each process's less its agents'.
  double other_cpu_s = 0;
  // How far the phase is at the second's end (-1: unknown): of the
  // operations its schedule owes (progress_done of progress_total), else of
  // its duration; left_s, the time left at its pace so far.
  double progress = -1;
  uint64_t progress_done = 0, progress_total = 0;
  std::string progress_unit;  // of what: "ops", or "rows" for a load
  double left_s = -1;
  std::map<std::string, AgentLoad> agent_load;  // each agent's saturation measures (newer agents)
  std::map<std::string, EndpointSecond> endpoints;
  // When operations first and last ended ok and in error within the second
  // (s since the run started, -1: none; each from some agent's clock mapped
  // to the coordinator's, within clock_uncertainty_s, the largest of the
  // agents' offset uncertainties): sub-second recovery numbers.
  double first_ok_t = -1, last_ok_t = -1, first_err_t = -1, last_err_t = -1;
  double clock_uncertainty_s = 0;
  // Open loop: the operations the phase's schedule owed in this second, at
  // its planned rate over every agent (-1: closed loop, or a journal from
  // before it was recorded). What a catch-up burst is measured against.
  double scheduled = -1;
  // Consistency anomalies found in this second, by kind, and examples of
  // them (each agent's first few in the phase).
  std::map<std::string, uint64_t> anomalies;
  std::vector<AnomalyExample> anomaly_examples;
  bool late = false;       // a snapshot that came after its second was written
  std::string from_spool;  // merged by `stampede report --spool` from this spool file

  // Over every op.
  uint64_t Count() const;
  uint64_t Errors() const;
  uint64_t Missed() const;
  // The agents saturated in this second, by name.
  std::vector<std::string> SaturatedAgents() const;
  std::array<uint64_t, kNumOutcomes> Outcomes() const;
  Histogram Latency() const;
  // Whether its interval is long enough for a rate to say something: a
  // phase's last second is the sliver after its last whole one.
  bool HasRate() const { return interval_s >= kShortestRateIntervalS; }
  static constexpr double kShortestRateIntervalS = 0.2;
};

}  // namespace stampede::record

#endif  // STAMPEDE_RECORD_SECOND_H_

// Builds a run's summary from its journal and renders summary.json,
// report.md and timeline.csv from it. Percentiles always come from merged
// histograms, never from averaged percentiles.
#ifndef STAMPEDE_REPORT_RUN_SUMMARY_H_
#define STAMPEDE_REPORT_RUN_SUMMARY_H_

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/histogram.h"
#include "common/outcome.h"
#include "record/records.h"
#include "report/anomalies.h"
#include "report/endpoint_summary.h"
#include "report/journal.h"
#include "report/node_usage.h"
#include "report/recovery.h"
#include "report/rolls.h"

namespace stampede::report {

struct OpSummary {
  std::string name;
  std::array<uint64_t, kNumOutcomes> outcomes{};
  uint64_t retries = 0;
  uint64_t missed = 0;     // due but never started (not in count())
  uint64_t rollbacks = 0;  // ok, rolled back by the workload (in count())
  uint64_t disk_full = 0;  // in error: refused for a full disk (in errors())
  Histogram latency;

  uint64_t count() const;
  uint64_t errors() const { return count() - outcomes[0]; }
};

struct PhaseSummary {
  std::string name;
  std::string workload;
  std::string group;  // stepped workloads: the plan's phase ("insert")
  std::string step;   // and this step ("InsertOne")
  uint32_t workers = 0;
  uint32_t pipeline = 1;                      // operations in flight per connection
  uint32_t batch = 1;                         // rows per statement of the op named "insert"
  std::map<std::string, std::string> params;  // the plan phase's workload parameters as written
  double duration_s = 0;
  bool ended = false;  // a phase_end line was read
  bool completed = false;
  bool timed_out = false;
  // Operations the phase's schedule owed (-1: none, closed loop with a
  // duration); of those, the ones no agent reported (lost agents' shares).
  int64_t owed = -1;
  uint64_t unaccounted = 0;
  std::vector<OpSummary> ops;                 // in order of first appearance
  std::map<std::string, uint64_t> agent_ops;  // operations per agent
  std::map<std::string, double> agent_cpu_s;  // CPU each agent's own threads used
  double other_cpu_s = 0;                     // of their processes, what no agent owns
  // The agents' CPU over the phase's operations, in µs (-1: none done).
  double CpuUsPerOp() const;
  // Client saturation (record::AgentLoad): seconds each agent was
  // saturated, seconds any agent was, and seconds measured at all (lines
  // carrying agent_load; 0 in a journal from before it was measured).
  std::map<std::string, double> agent_saturated_s;
  double saturated_s = 0;
  double load_measured_s = 0;
  // A line for the top of the phase's section when its client was
  // saturated in some second ("" otherwise).
  std::string SaturationNote() const;
  std::map<std::string, EndpointSummary> endpoints;
  std::optional<record::WritesChecked> writes;  // check_writes: the read-back
  PhaseAnomalies anomalies;                     // what the workload's consistency checks found

  OpSummary* FindOrAdd(const std::string& op);
  const OpSummary* BatchedOp() const;  // batch > 1: the op named "insert"
  uint64_t done() const;               // ok + errors
  uint64_t missed() const;
};

// What happened to stampede's own parts: an agent lost, back, taking over
// another's share; the coordinator restarted.
struct RunEvent {
  double t = 0;
  std::string who, event, detail;
};

// A node put back when the run ended before its plan did.
struct UndoneFault {
  std::string action, node, agent, message;
  bool ok = false;
  double t = 0;
};

struct RunSummary {
  std::string run_id;
  std::string plan_name;
  std::string started_at;
  std::string target;  // "postgres (postgres) 127.0.0.1:5432"
  std::vector<std::string> agents;
  std::map<std::string, std::string> roles;  // agent -> "load", "nodes node3", labels
  std::vector<PhaseSummary> phases;
  std::vector<std::string> logs;
  std::vector<FaultRecovery> faults;
  // A tpcc run: each fault's numbers for New-Order alone, the throughput
  // that defines tpmC (report/new_order_recovery.h).
  std::vector<FaultRecovery> new_order_faults;
  std::vector<RollNumbers> rolls;  // rolling restarts as a whole
  NodeUsages nodes;                // the database nodes' resources (report/node_usage.h)
  bool ns_per_op = false;          // plan's report.ns_per_op: show dbbench's column
  bool hdr_log = false;            // plan's report.hdr_log: write latency.hlog
  bool finished = false;           // an "end" line was written
  bool ok = false;
  std::string error;
  std::string degraded;  // the run completed, but not all of it was measured: why
  std::vector<RunEvent> events;
  std::vector<UndoneFault> undone;
  std::vector<record::Expectation> expect;  // the plan's expect: block (report/verdict)
  // For expectations relative to history: the run history read at the
  // start ("" if none) and the medians of the plan's earlier runs.
  std::string history;
  uint32_t history_window = 0;
  std::map<std::string, record::Baseline> baseline;
};

// Builds a RunSummary from a run's records as they come (the journal's
// lines in order). Not thread-safe.
class SummaryBuilder {
 public:
  void Add(const record::Record& r);
  void Add(const Json& line);  // decoded; a line of a kind not known is skipped
  RunSummary Result() const;   // faults' recovery numbers included

 private:
  PhaseSummary* PhaseOf(uint32_t index);
  void AddSecond(const record::Second& second);
  void AddPhaseEnd(const record::PhaseEnd& end);

  RunSummary s_;
  std::map<uint32_t, size_t> by_index_;  // phase index -> s_.phases
  std::map<int, UndoneFault> undone_;
  RecoveryTracker recovery_;
  RecoveryTracker new_orders_{"new_order"};
  RebalanceTracker rebalance_;
  RollTracker rolls_;
};

RunSummary BuildSummary(const std::vector<Json>& journal);

// Consecutive phases expanded from one stepped plan phase.
struct StepGroup {
  std::string name;
  std::vector<const PhaseSummary*> steps;
  double total_s = 0;  // sum of the steps' times (barriers between them excluded)
};
std::vector<StepGroup> StepGroups(const RunSummary& s);

Json SummaryToJson(const RunSummary& s);
std::string RenderReportMarkdown(const RunSummary& s);
// timeline.csv: one row per (second, op).
extern const char kTimelineCsvHeader[];
void AppendTimelineRows(const record::Second& second, std::string* csv);
std::string RenderTimelineCsv(const std::vector<Json>& journal);

// Writes summary.json, timeline.csv, report.md and report.html into dir,
// from dir/journal.jsonl read line by line. Lines it cannot read are
// skipped, each with a warning.
// With hdr_log (or the plan's report.hdr_log), latency.hlog as well
// (report/hdr_log.h).
Status WriteReports(const std::string& dir, RunSummary* summary_out, std::vector<std::string>* warnings,
                    bool hdr_log = false);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_RUN_SUMMARY_H_

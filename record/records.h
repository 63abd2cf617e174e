// The run record: every kind of journal line as a C++ type. The run
// controller makes them, the journal stores them (record/record_codec.h
// encodes and decodes, the only place that knows their JSON), and the
// Prometheus exporter, the live view, the summary and the recovery numbers
// read them. Fields and units: docs/results.md.
#ifndef STAMPEDE_RECORD_RECORDS_H_
#define STAMPEDE_RECORD_RECORDS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "record/expectation.h"
#include "record/second.h"

namespace stampede::record {

// The journal's format version, written in the run record. Journals
// without it are version 1.
inline constexpr int kJournalVersion = 1;

struct RecoverySettings {
  double baseline_s = 10;
  double recovered_fraction = 0.9;
  double hold_s = 5;
  int healthy_polls = 3;
  double balance_tolerance = 0.1;  // report/rebalance.h
};

// "run": the first line.
// A number of the plan's earlier runs, for expectations relative to
// history ("p99 < 1.2x history"): the median of its last runs.
struct Baseline {
  double median = 0;
  uint32_t runs = 0;  // how many earlier runs had it
};

// "run"
struct RunStart {
  int version = kJournalVersion;
  std::string run_id, plan_name, results_dir, started_at;
  std::string target;  // "postgres (postgres) 127.0.0.1:5432"
  RecoverySettings recovery;
  std::vector<std::string> agents;
  std::map<std::string, std::string> roles;  // agent -> "load", "nodes node3", labels
  bool ns_per_op = false;                    // the plan's report.ns_per_op
  bool hdr_log = false;                      // the plan's report.hdr_log: write latency.hlog
  bool resumable = false;                    // a restarted coordinator may take it back
  int64_t mono_start_ns = 0;                 // the coordinator's monotonic clock at the start
  std::string plan_json;                     // the plan as submitted, protobuf JSON text
  std::vector<Expectation> expect;           // the plan's expect: block, parsed
  // For relative expectations: whether a run history was read at the
  // start (empty: none was; else its file), and what it held: by check
  // key (report/verdict.h), over the plan's last history_window runs.
  std::string history;
  uint32_t history_window = 0;
  std::map<std::string, Baseline> baseline;
};

// "phase_start"
struct PhaseStart {
  std::string phase;
  uint32_t index = 0;
  std::string workload;
  uint32_t workers = 0;
  double t = 0;  // s since the run started
  int64_t start_ns = 0;
  std::vector<std::string> agents;  // taking part
  int64_t owed = -1;                // operations the schedule owes (-1: not known)
  std::string group, step;          // a step of a stepped workload
  uint32_t pipeline = 1;            // operations in flight per connection
  uint32_t batch = 1;               // rows per insert statement
  // The plan phase's workload parameters as written (tpcc's warehouses and
  // wait give its efficiency).
  std::map<std::string, std::string> params;
};

// "history_check": what the coordinator's check of a phase's history
// (history.jsonl; report/history_check.h) found, after the phase.
struct HistoryChecked {
  std::string phase;
  uint32_t index = 0;
  uint64_t transactions = 0;                         // completed (ok, failed, unknown), final reads aside
  uint64_t final_keys = 0;                           // keys the final reads read
  std::map<std::string, uint64_t> counts;            // anomalies by kind (those found)
  std::vector<std::pair<double, uint64_t>> seconds;  // (end of a second with any, s since the run started; how many)
  std::vector<AnomalyExample> examples;              // the first few of each kind
  std::string note;                                  // what could not be checked, or ""
  // History events the agents could not send: with any, what the check
  // found is a lower bound and "no anomalies" is not known.
  uint64_t missing = 0;
  // Why events may be missing that no one could count (an agent lost
  // mid-phase, a coordinator restarted), or "".
  std::string unknown;
  // The isolation level the history was judged against (common/isolation.h),
  // and the kinds found that it allows (not in counts).
  std::string isolation;
  std::map<std::string, uint64_t> allowed;
};

// "phase_end"
struct PhaseEnd {
  std::string phase;
  uint32_t index = 0;
  double duration_s = 0;
  bool completed = false;
  int64_t owed = -1;  // with unaccounted, when known
  uint64_t unaccounted = 0;
  bool timed_out = false;
};

// "writes": what the agents found reading back the phase's inserts
// (check_writes), summed over them.
struct WritesChecked {
  std::string phase;
  uint32_t index = 0;
  bool supported = true;
  uint64_t acked = 0, lost = 0, ambiguous = 0, ambiguous_found = 0, unchecked = 0;
  std::vector<int64_t> lost_ids;            // the first ones
  std::string note;                         // why some were not checked
  std::vector<std::string> agents_missing;  // taking part, never answered
  uint64_t failed = 0;                      // inserts that failed (any other outcome)
  uint64_t failed_found = 0;                // of those, found: rows beyond acked + ambiguous
  std::vector<int64_t> failed_found_ids;    // the first ones
};

// "fault": a fault sent to its node's agent; undo: a node put back when the
// run ended before its plan did.
struct FaultSent {
  uint32_t index = 0;
  std::string phase, action, node, agent;
  double requested_t = 0;
  bool undo = false;
  std::string detail;  // a network fault's numbers: "5%", "20 ms", "in" ("": none)
  // A rolling restart's step (v1::Roll): which roll (-1: none), this step,
  // how many, the roll's throughput floor.
  int roll = -1;
  uint32_t roll_step = 0, roll_steps = 0;
  double roll_floor = 0;
};

// "fault_result"
struct FaultDone {
  uint32_t index = 0;
  std::string agent;
  bool ok = false;
  double t = 0;  // when it took effect (or failed)
  std::string message;
  std::string from_spool;  // merged by `stampede report --spool`
};

// A journal line's shares beyond this are not read (a cluster has fewer).
inline constexpr size_t kMaxShareNodes = 1000;

// One node's part of the data, from the database's own view (health
// probes that can tell: docs/recovery.md, "Adding, removing and restarting
// nodes"). -1: not reported by this source.
struct NodeShare {
  std::string node;        // as the database names it: "127.0.0.1:7000", "store 4"
  double share = -1;       // what it holds, in the poll's share_unit (slots, ranges, regions, tablets)
  double leaders = -1;     // of those, the ones it leads (leases, leaders)
  int64_t keys = -1;       // keys or rows it holds
  int64_t bytes = -1;      // bytes it holds
  std::string state;       // the database's word for it: master, Up, Offline, Synced, Donor
  bool migrating = false;  // data is moving to or from it now
  int64_t lag_bytes = -1;  // how far its copy is behind the leader's (a PostgreSQL replica's WAL)
};

// "health": one poll of the cluster's own health.
struct HealthPoll {
  double t = 0;
  double poll_s = 0;  // how long the poll took
  bool healthy = false;
  bool answered = false;  // the cluster answered: the counts and detail hold
  uint64_t underreplicated = 0, unavailable = 0, live_nodes = 0;
  std::string detail;
  std::string error;  // when not answered
  // Where the data is, when the probe can tell (empty otherwise).
  std::string share_unit;  // "slots", "regions", "ranges", "tablets"
  std::vector<NodeShare> shares;
};

// "node": a database node's resources, sampled once a second by the agent
// that owns it (agent/node_sampler.h); -1: not known.
struct NodeSample {
  std::string node, agent;
  double t = 0;
  bool running = false;  // its process was found
  int64_t disk_bytes = -1;
  int64_t rss_bytes = -1;
  double cpu_s = -1;  // CPU its process used since it started
};

// "agent": lost (reason, last_heard_t), back (how), adopted (source).
struct AgentEvent {
  std::string event, agent;
  double t = 0;
  std::string reason, how, source;
  std::optional<double> last_heard_t;
};

// "coordinator": restarted.
struct CoordinatorEvent {
  std::string event;
  double t = 0;
  std::string detail;
};

// "log": an agent's message.
struct LogLine {
  std::string agent, message;
  std::string from_spool;
};

// "end": the last line.
struct RunEnd {
  bool ok = false;
  std::string error;
  std::optional<std::string> degraded;  // the run completed, but not all of it was measured: why
};

// For std::visit over a Record: Overloaded{[](const Second&) {...}, ...}.
template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

using Record = std::variant<RunStart, PhaseStart, Second, PhaseEnd, WritesChecked, HistoryChecked, FaultSent, FaultDone,
                            HealthPoll, NodeSample, AgentEvent, CoordinatorEvent, LogLine, RunEnd>;

}  // namespace stampede::record

#endif  // STAMPEDE_RECORD_RECORDS_H_

// Merges the agents' per-second snapshots of one phase into per-second
// records (record/second.h), one journal line each.
//
// Line k holds every agent's snapshot k. It is emitted once every expected
// agent has sent snapshot k (or its final snapshot at or before k), or when
// its grace period has passed; a snapshot that arrives after its line was
// emitted gets a line of its own marked "late", so the journal always sums
// to everything measured. (run, agent, phase, seq) is deduplicated.
//
// Not thread-safe: the run controller serializes access.
#ifndef STAMPEDE_COORDINATOR_PHASE_MERGER_H_
#define STAMPEDE_COORDINATOR_PHASE_MERGER_H_

#include <array>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/histogram.h"
#include "common/outcome.h"
#include "proto/stampede.pb.h"
#include "record/second.h"

namespace stampede::coordinator {

class PhaseMerger {
 public:
  PhaseMerger(std::string phase, uint32_t index, int64_t start_ns, int64_t run_start_ns, std::set<std::string> agents,
              int64_t grace_ns);

  // Returns a record of its own if the snapshot arrived too late to be merged.
  std::vector<record::Second> Add(const v1::Snapshot& snapshot);
  // Lines that are complete, or overdue at now_ns; everything if all.
  std::vector<record::Second> Flush(int64_t now_ns, bool all);
  // An agent that will send nothing more (lost).
  void DropAgent(const std::string& agent);
  // An agent (back, or a share taken up by another) whose snapshots are
  // expected from now on.
  void AddAgent(const std::string& agent);
  // A resumed run: (agent, seq) already in the journal; lines below
  // next_seq were written.
  void MarkJournalled(const std::string& agent, uint32_t seq);
  void SetNextSeq(int64_t next_seq) { next_seq_ = next_seq; }
  // Open loop: the operations due by t seconds into the phase
  // (plan::ScheduledOpsBy); each line then carries what its second owed.
  void SetSchedule(std::function<double(double)> ops_due_by) { ops_due_by_ = std::move(ops_due_by); }
  // The history events (append) of the lines emitted since the last call,
  // each line's in time order, into *out; returns the events the agents
  // said they dropped meanwhile.
  uint64_t TakeHistory(std::vector<v1::HistoryEvent>* out);

 private:
  struct Op {
    std::array<uint64_t, kNumOutcomes> outcomes{};
    uint64_t retries = 0;
    uint64_t missed = 0;
    uint64_t rollbacks = 0;
    uint64_t disk_full = 0;
    uint64_t rows = 0;
    Histogram latency;
  };
  struct Endpoint {
    uint64_t lost = 0, reconnects = 0, connect_failures = 0, ok = 0;
    int64_t first_ok_ns = 0, last_ok_ns = 0;  // coordinator clock, 0: none
  };
  struct Pending {
    std::set<std::string> agents;
    int64_t start_ns = INT64_MAX;
    int64_t end_ns = 0;
    uint32_t active_workers = 0;
    std::map<std::string, Op> ops;
    std::map<std::string, uint64_t> agent_ops;  // operations per agent
    std::map<std::string, uint64_t> agent_cpu_ns;
    // Per process ("HOST:PID"): its CPU in the second (the most any of its
    // agents saw: they measure the same interval) and its agents' own.
    std::map<std::string, std::pair<uint64_t, uint64_t>> process_cpu_ns;
    std::map<std::string, record::AgentLoad> agent_load;
    std::map<std::string, Endpoint> endpoints;
    // Coordinator clock, 0: none (v1::Snapshot).
    int64_t first_ok_ns = 0, last_ok_ns = 0, first_err_ns = 0, last_err_ns = 0;
    int64_t clock_uncertainty_ns = 0;
    std::map<std::string, uint64_t> anomalies;
    std::vector<record::AnomalyExample> anomaly_examples;
    std::vector<v1::HistoryEvent> history;
  };
  // A line's history, sorted, to history_.
  void ReleaseHistory(Pending* p);
  std::vector<v1::HistoryEvent> history_;
  uint64_t history_dropped_ = 0;
  void Merge(const v1::Snapshot& s, Pending* p);
  record::Second ToSecond(uint32_t seq, Pending* p, bool late) const;
  bool Complete(uint32_t seq, const Pending& p) const;

  std::string phase_;
  uint32_t index_;
  int64_t start_ns_;
  int64_t run_start_ns_;
  std::set<std::string> expected_;
  int64_t grace_ns_;
  std::map<uint32_t, Pending> pending_;
  std::function<double(double)> ops_due_by_;
  // (agent, seq) merged or journalled: a bit per second and agent (a
  // day-long phase: 11 KB an agent), a set past kSeenBits.
  bool MarkSeen(const std::string& agent, uint32_t seq);  // false: seen before
  bool Seen(const std::string& agent, uint32_t seq) const;
  // Parts of an interval's history (v1::Snapshot.part) merged: (agent,
  // seq, part).
  std::vector<record::Second> AddPart(const v1::Snapshot& s);
  std::set<std::tuple<std::string, uint32_t, uint32_t>> seen_parts_;
  static constexpr uint32_t kSeenBits = 1u << 24;
  std::map<std::string, std::vector<bool>> seen_bits_;
  std::set<std::pair<std::string, uint32_t>> seen_beyond_;
  std::map<std::string, uint32_t> final_seq_;
  int64_t next_seq_ = 0;  // lines below this were emitted
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_PHASE_MERGER_H_

// Recovery numbers per fault, computed from the journal's per-second records
// (definitions in docs/recovery.md). Times are seconds; -1 means "not
// observed". Resolution is the journal's: one second.
//
// RecoveryTracker takes the run's records one by one, as they are written,
// and keeps what the numbers need (a running state per fault and the last
// seconds for the next fault's baseline), not the seconds themselves: the
// live dashboard, summary.json and report.md all read it.
#ifndef STAMPEDE_REPORT_RECOVERY_H_
#define STAMPEDE_REPORT_RECOVERY_H_

#include <array>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "common/histogram.h"
#include "common/outcome.h"
#include "proto/fault_action.h"
#include "record/records.h"
#include "report/journal.h"
#include "report/rebalance.h"

namespace stampede::report {

struct LatencyWindow {
  double p99_us = 0;
  double max_us = 0;
  uint64_t count = 0;
};

struct FaultRecovery {
  int index = 0;
  std::string phase, action, node, agent, message;
  std::string detail;                             // a network fault's numbers ("": none)
  int roll = -1;                                  // a rolling restart's step: which roll (-1: none)
  bool ok = false;                                // the action took effect
  double t = -1;                                  // when it took effect (s since run start)
  double requested_t = -1;                        // when it was asked for (s since run start)
  double done_t = -1;                             // when its action returned (-1: no result)
  double phase_start_t = -1;                      // when the plan's phase it names began (-1: not known)
  double baseline_ops_per_s = 0;                  // successful ops/s before the fault
  double first_failure_s = -1;                    // fault -> first second with a failed op
  double unavailable_s = 0;                       // longest run of seconds with no successful op
  double error_window_s = -1;                     // first to last error (-1: no error)
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
  // Unavailability, time to first failure and error window come from when
  // operations ended (to the ms, on the coordinator's clock) rather than
  // whole seconds, within this uncertainty of the agents' clock offsets.
  bool sub_second = false;
  double clock_uncertainty_s = 0;

  // Where the data went (report/rebalance.h), when the health probe says
  // where it is.
  std::optional<RebalanceNumbers> rebalance;
  // How long after the database's own recovery (health probe healthy) the
  // clients' throughput came back: recovered_s - healthy_s, when both were
  // observed (negative: the clients were back first). Client-side topology
  // lag shows here.
  bool HasGap() const { return recovered_s >= 0 && healthy_s >= 0; }
  double Gap() const { return recovered_s - healthy_s; }
  // When it took effect on the plan's clock: "insert+5.0 s" (its phase's
  // start known), else seconds since the run started.
  std::string When() const;
  // When it was asked for, the same way.
  std::string Asked() const;
};

struct RecoveryOptions {
  double baseline_s = 10;
  double recovered_fraction = 0.9;
  double hold_s = 5;
};

// Not thread-safe.
class RecoveryTracker {
 public:
  RecoveryTracker() = default;
  // The numbers of one op alone (TPC-C's new_order: the throughput that
  // defines tpmC), at whole-second resolution (the journal's sub-second
  // times are the phase's, not the op's); seconds of a phase that has not
  // run the op yet are left out.
  explicit RecoveryTracker(std::string op) : op_(std::move(op)) {}

  // The run (its recovery settings), seconds, health polls, faults and
  // their results; other records are ignored.
  void Add(const record::Record& r);
  // The numbers as of the records so far; a fault still waiting for its
  // result is taken at its requested time.
  std::vector<FaultRecovery> Result() const;

  // Latencies in the sparse form: the non-empty buckets, by index (a
  // dense Histogram is 30 KB; a second's or a fault window's buckets are
  // usually a few hundred bytes).
  struct Latencies {
    std::vector<std::pair<int, uint64_t>> buckets;  // sorted by index, each once
    uint64_t sum_ns = 0, max_ns = 0;
    static Latencies Of(const Histogram& h);
    void Add(const Latencies& other);
    void MergeInto(Histogram* h) const;
  };

 private:
  struct Sec {
    double start = 0, end = 0;
    uint32_t phase = 0;     // its phase's index
    double scheduled = -1;  // open loop: ops its schedule owed (record::Second)
    double first_ok = -1, last_ok = -1, first_err = -1, last_err = -1, uncertainty = 0;  // record::Second
    uint64_t ok = 0, errors = 0;
    std::array<uint64_t, kNumOutcomes> outcomes{};
    Latencies latency;
  };
  struct Poll {
    double t = 0;
    bool healthy = false;
  };
  // A streak of healthy polls after the fault, reset by an unhealthy one.
  struct Streak {
    bool active = true, done = false;
    int n = 0;
    double start = -1, healthy_s = -1;
    void Add(const Poll& p, double fault_t, int needed);
  };
  struct Fault {
    FaultRecovery r;
    bool resolved = false;  // its result came (or the run ended without one)
    double base_ok = 0, base_time = 0;
    // Open loop: what the baseline's seconds owed (base_open: every one of
    // them was open loop), so a catch-up burst does not raise the bar.
    double base_scheduled = 0;
    bool base_open = true;
    int64_t last_phase = -1;  // the phase of the last second seen
    double min_ratio = -1;    // the lowest rated second's ok rate / what it was expected to carry
    bool rated = false;       // a second after the fault was long enough to rate
    double run_zero = 0, first_err = -1, last_err = -1, min_rate = -1, held_from = -1;
    // Sub-second: the last ok seen so far, the longest gap between oks
    // after the fault, the first and last error after it (-1: none).
    double prev_ok = -1, gap = -1, exact_first_err = -1, exact_last_err = -1, uncertainty = 0;
    double held_first_ok = -1;  // the first ok in the held stretch's first second
    bool timed = false;         // a second in the window had its times (not an older agent's journal)
    bool seen_times = false;    // any second so far had its times: this journal's agents send them
    bool dipped = false, saw_unhealthy = false;
    Streak any;                     // the first healthy run after the fault
    Streak after_unhealthy{false};  // the first after an unhealthy poll
    Latencies before, during, after;
    std::vector<Latencies> held;  // seconds since held_from, not yet during or after
  };
  struct Done {  // a fault_result line
    bool ok = false;
    double t = -1;
    std::string message;
  };
  void AddSecond(const record::Second& second);
  void AddPhase(const record::PhaseStart& p);
  // Successful ops/s before the fault; open loop: at most what the schedule
  // owed.
  static double Baseline(const Fault& f);
  void AddFault(const record::FaultSent& f);
  void AddDone(const record::FaultDone& d);
  void Process(const Sec& s);
  void Process(const Poll& p);
  void ApplySecond(Fault* f, const Sec& s, double next) const;
  void ApplyWindow(Fault* f, const Sec& s) const;
  static void ApplyTimes(Fault* f, const Sec& s);
  void ApplyPoll(Fault* f, const Poll& p, double next) const;
  void Resolve(Fault* f, const Done* done);
  bool Holding() const;
  void Drain();
  void FinishAll();
  double NextT(size_t k) const;
  FaultRecovery Numbers(const Fault& f, size_t k) const;

  bool OpSecond(const record::Second& second, Sec* s);

  std::string op_;                // "": every op
  std::set<uint32_t> op_phases_;  // phases in which op_ ran
  RecoveryOptions opt_;
  int healthy_polls_ = 3;
  std::vector<Fault> faults_;
  std::map<int, Done> results_;                  // by fault index, for a result read before its fault
  std::deque<Sec> recent_;                       // the last seconds: a new fault's baseline
  std::deque<std::variant<Sec, Poll>> waiting_;  // while a fault waits for its result
  std::map<std::string, double> phase_start_;    // the plan's phase (or stepped group) -> its first start
};

// Words shared by the report's tables and the verdict: what a recovery that
// never came is called (until the next fault, or the end of the run), and
// seconds with their sign ("+1.5 s").
// Whether a fault's rebalancing numbers say something: always for a
// topology change or a rolling restart's step, else only when data changed
// hands (a kill that promotes a replica), not when a node merely went
// missing.
inline bool ShowsRebalance(const FaultRecovery& f) {
  return f.rebalance && (IsTopologyAction(f.action) || f.roll >= 0 || f.rebalance->moved > 0);
}

std::string NotRecovered(bool next_fault);
std::string SignedSeconds(double v);

std::vector<FaultRecovery> ComputeRecovery(const std::vector<Json>& journal);
Json RecoveryToJson(const FaultRecovery& r);
std::string RenderRecoveryMarkdown(const std::vector<FaultRecovery>& faults);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_RECOVERY_H_

// Runs this agent's share of one phase: closed or open loop, deadline and
// op-count stop, cancellation, and a per-second snapshot of what was
// measured. agent/async_runner implements it: a few event loops
// (Boost.Asio, one per core by default), each worker a coroutine on one of
// them, its connection driven by socket readiness (drivers/async_driver.h).
// (A thread-per-worker engine ran beside it until 2026-12; see
// docs/design-notes.md.)
//
// The runner owns looping, rate, deadlines, retries, reconnects and counting; the
// workload only produces operations and the driver only executes them. A
// worker that loses its connection reconnects to the next endpoint that
// answers (exponential back-off with jitter between rounds). Deadlines are
// hard: no operation starts at or after the phase's deadline (its duration,
// or an ops-bounded phase's timeout), an operation in flight is cut off at
// op_timeout, and at deadline + op_timeout every connection still in use is
// cut. Operations the schedule owed but that never started are counted as
// missed (WorkerSchedule says what is owed).
//
// Lifecycle: Prepare() (connect every worker) -> Run() -> destroy. Cancel()
// may be called from any thread at any time.
#ifndef STAMPEDE_AGENT_PHASE_RUNNER_H_
#define STAMPEDE_AGENT_PHASE_RUNNER_H_

#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "agent/retry_policy.h"
#include "agent/worker_schedule.h"
#include "agent/worker_stats.h"
#include "common/backoff.h"
#include "common/mutex.h"
#include "common/rng.h"
#include "common/status.h"
#include "drivers/driver.h"
#include "drivers/driver_registry.h"
#include "drivers/endpoint_names.h"
#include "proto/stampede.pb.h"
#include "workloads/workload.h"

namespace stampede::agent {

struct PhaseRunnerOptions {
  v1::Plan plan;
  std::string run_id;
  std::string agent_name;
  uint32_t phase_index = 0;
  // This runner's share of the phase's workers: share agent_index of
  // agent_count.
  uint32_t agent_index = 0;
  uint32_t agent_count = 1;
  // Each share's weight (agents.split: capacity), agent_count of them;
  // empty: even shares.
  std::vector<uint32_t> weights;
  // Runs the setup before the phase (and the previous phase's cleanup).
  bool lead = false;
  std::string password;           // resolved from the agent's own environment
  std::string sentinel_password;  // target.sentinel.password_env, resolved the same way
  // Event loops; 0: one per core.
  int threads = 0;
  // Coordinator clock minus local monotonic clock, and its uncertainty.
  std::function<int64_t()> clock_offset_ns;
  std::function<int64_t()> clock_uncertainty_ns;
  // Called from the collector thread, once a second and once at the end.
  std::function<void(const v1::Snapshot&)> on_snapshot;
  // Called (from any thread) with a line worth telling the coordinator.
  std::function<void(const std::string&)> on_log;
};

// This agent's workers: global indexes [first, first + count).
struct WorkerShare {
  uint32_t first = 0;
  uint32_t count = 0;
};
// Share agent_index of agent_count: consecutive workers, as even as can be,
// or in proportion to `weights` when it has agent_count entries (not all 0).
WorkerShare ShareOf(uint32_t total, uint32_t agent_index, uint32_t agent_count,
                    const std::vector<uint32_t>& weights = {});

// What every worker has (agent/async_runner's Worker adds its event loop's
// parts). Its fields belong to the loop's thread; stats are drained by the
// collector.
struct WorkerState {
  uint32_t global = 0;
  int endpoint = 0;  // index into target.endpoints
  // Where it records: its event loop's, shared with the loop's other
  // workers (one writer thread).
  WorkerStats* stats = nullptr;
  std::unique_ptr<WorkerSchedule> schedule;
  std::unique_ptr<workloads::WorkerOps> ops;
  drivers::OpRequest req;
  // Between reconnects, from kReconnectBackoffNs (common/backoff.h).
  Backoff backoff{kReconnectBackoffNs};
  int failures = 0;  // connections lost since the last successful op
  Rng jitter{0};
  // A worker whose first endpoint is one of target.joining (a node that
  // joins mid-run): that endpoint, which it tries again every
  // kHomeRetryNs while on another one; -1: none.
  int home = -1;
  int64_t next_home_ns = 0;
  bool active = false;  // counted in active_
  // A history-keeping workload's (Workload::keeps_history): the worker
  // writes, the collector drains.
  std::unique_ptr<HistoryLog> history;
};

class PhaseRunner {
 public:
  // The runner for this phase.
  static std::unique_ptr<PhaseRunner> Create(PhaseRunnerOptions options);
  virtual ~PhaseRunner() = default;

  // Builds the workload, runs setup (the lead), and connects every worker.
  // Returns the first connection error ("127.0.0.1:5432: ..."), if any.
  virtual Status Prepare() = 0;
  // Starts at start_coord_ns (coordinator clock) and blocks until the phase
  // ends or is cancelled. Emits the final snapshot before returning. With
  // join_coord_ns (a share taken up mid-phase), operations due before it
  // are skipped: they belonged to an earlier holder of the share.
  virtual void Run(int64_t start_coord_ns, int64_t join_coord_ns = 0) = 0;
  // Aborts: nothing more is started or counted. Any thread, any time.
  virtual void Cancel() = 0;
  // After Run() (check_writes): reads back every insert the workers'
  // operations acknowledged or left ambiguous, within budget_ns
  // (agent/writes_check.cc). Cancel() ends it early.
  virtual v1::WritesCheck CheckWrites(int64_t budget_ns) = 0;
  // Adds one read-back's numbers to another's (a share taken over, read
  // back by the agent that took it); ids up to the first 20 of each kind.
  static void AddWritesCheck(const v1::WritesCheck& from, v1::WritesCheck* into);
  // The phase asks for CheckWrites, and was not aborted.
  bool check_writes() const { return phase_.check_writes() && !Aborted(); }
  // How long CheckWrites may take (docs/plan.md).
  static constexpr int64_t kWritesCheckBudgetNs = 60 * kNsPerSec;
  // Operations this agent's share owes over the phase (after Prepare); -1
  // when the phase has no schedule (closed loop with a duration).
  int64_t owed_ops() const { return owed_ops_; }
  // After Run(): the phase's timeout ended it with operations still owed.
  bool timed_out() const { return timed_out_.load(); }
  // When the phase's last worker stopped, on the coordinator's clock (0
  // until Run has returned): the phase's end, whatever closing its
  // connections takes after it.
  int64_t ended_coord_ns() const { return ended_coord_ns_; }
  // This agent's workers in the phase (after Prepare).
  uint32_t workers() const { return share_.count; }

 protected:
  explicit PhaseRunner(PhaseRunnerOptions options);

  // The engine-independent part of Prepare(): the workload, the lead's
  // setup, and the share's workers (from make()) with their schedules and
  // first endpoints; stats_for(i) says where worker i records (NewStats()).
  Status PrepareShare(const std::function<WorkerState*()>& make, const std::function<WorkerStats*(size_t)>& stats_for);
  WorkerStats* NewStats();
  // Run()'s clocks: start, join, deadline, hard stop (monotonic).
  void SetTimes(int64_t start_coord_ns, int64_t join_coord_ns);
  // Snapshots once a second until AllFinished() holds, then the final one.
  void CollectUntil(int64_t start_coord_ns);
  // CPU the engine's event-loop threads have used so far (-1: not known).
  virtual int64_t LoopsCpuNs() const { return -1; }
  // Whether the operations are all done and only the final read runs (which
  // may go on past the hard stop, up to its own limit).
  virtual bool OnlyFinalRead() const { return false; }
  // Every worker of the engine is done (cv_ is notified when one is).
  virtual bool AllFinished() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;
  bool Halted() const { return halt_.load(std::memory_order_relaxed) != kRunning; }
  bool Aborted() const { return halt_.load(std::memory_order_relaxed) == kAborted; }
  // Draws the next operation without running it (the workload's state
  // moves on as if it had run); returns its op index.
  int DrawOp(WorkerState* w);
  // Counts the operation just drawn and everything the worker still owes as
  // missed (unless the phase was aborted).
  void MissRest(WorkerState* w);
  // While the worker cannot run operations (reconnecting, backing off):
  // counts those overdue by more than the allowed lag as missed, as they
  // come due, so a stalled worker's misses show in the second they happen.
  void MissOverdue(WorkerState* w);
  void SetActive(WorkerState* w, bool active);
  // The back-off before the worker's next reconnect round; grows to 2 s.
  int64_t NextBackoffNs(WorkerState* w);
  void ReportError(int op, Outcome outcome, const std::string& message);
  // A failed reconnect: logged when its cause is new (up to
  // kMaxReconnectCauses a phase), since the first one rarely says why a
  // cluster that came back still refuses the workers.
  void ReportReconnectError(const std::string& message);
  static constexpr size_t kMaxReconnectCauses = 8;
  drivers::ConnectOptions OptionsFor(int endpoint);
  // What an operation the watchdog cut is told (before its driver's
  // message): op_timeout, or the phase's hard stop.
  std::string TimeoutNote() const;

  PhaseRunnerOptions options_;
  const v1::Phase& phase_;
  const RetryPolicy retry_;
  const bool cockroach_;  // transactions: the SAVEPOINT cockroach_restart protocol
  // Operations are counted per endpoint: the worker's own, or on Redis
  // Cluster (whose workers route by slot, their endpoint only seeding the
  // slot map) the master that answered (OpResult::endpoint), which may be
  // one the plan does not name: endpoint_names_ gives each its index.
  const bool per_endpoint_ok_;
  static constexpr size_t kMaxFoundEndpoints = 64;
  drivers::EndpointNames endpoint_names_;
  static constexpr int64_t kHomeRetryNs = kNsPerSec;
  // Whether an endpoint is in target.joining: it need not answer at the
  // start (a node a `join` fault brings).
  bool Joining(int endpoint) const;
  const drivers::DriverInfo* driver_info_ = nullptr;
  std::unique_ptr<workloads::Workload> workload_;
  WorkerShare share_;
  std::vector<WorkerState*> states_;  // the engine's workers
  std::vector<std::unique_ptr<WorkerStats>> stats_;

  int64_t start_mono_ns_ = 0;  // written by Run() before any worker starts
  int64_t deadline_mono_ns_ = INT64_MAX;
  int64_t hard_stop_mono_ns_ = INT64_MAX;  // deadline + op_timeout: connections are cut
  int64_t join_mono_ns_ = 0;               // ops due before this belong to someone else
  int64_t op_timeout_ns_ = 0;
  int64_t max_lag_ns_ = INT64_MAX;  // an op due longer ago than this is missed
  bool owes_ = false;               // the phase has a schedule to owe against
  int64_t owed_ops_ = -1;
  // The engine's event loops (set by Prepare): at most this many cores'
  // worth of CPU is what the agent can use for its workers.
  int event_loops_ = 1;

  enum Halt : int { kRunning = 0, kStopping = 1, kAborted = 2 };
  std::atomic<int> halt_{kRunning};
  std::atomic<bool> timed_out_{false};
  std::atomic<uint32_t> active_{0};
  Mutex mu_;
  std::condition_variable cv_;

 private:
  void Collect(uint32_t seq, int64_t start_ns, int64_t end_ns, bool final);
  // The interval's anomalies into its snapshot (coord: monotonic ns to the
  // coordinator's clock).
  void AddAnomalies(const std::function<int64_t(int64_t)>& coord, v1::Snapshot* snap) const;
  // The workers' history events since the last snapshot, up to
  // kMaxHistoryBytes (the rest waits for the next one; at the final
  // snapshot, it is counted as dropped).
  void AddHistory(const std::function<int64_t(int64_t)>& coord, bool final, v1::Snapshot* snap);
  static constexpr size_t kMaxHistoryBytes = size_t(3) << 20;

  std::vector<std::array<std::atomic<bool>, kNumOutcomes>> logged_;
  std::set<std::string> reconnect_causes_ ABSL_GUARDED_BY(mu_);
  // Collector accumulators (collector thread only).
  std::vector<OpTotals> acc_ops_;
  std::vector<Histogram> acc_latency_;
  std::vector<EndpointTotals> acc_endpoints_;
  int64_t coord_offset_ns_ = 0;  // coordinator clock minus start_mono_ns_'s clock, for the collector
  int64_t last_cpu_ns_ = 0;
  int64_t last_loops_cpu_ns_ = 0;
  Histogram acc_lag_;
  std::array<uint64_t, kNumAnomalies> acc_anomalies_{};
  std::vector<AnomalySeen> acc_examples_;
  double cpu_cores_ = 1;        // min(event loops, what the process may use), from CollectUntil
  int64_t ended_coord_ns_ = 0;  // written by CollectUntil, read after Run on its thread
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_PHASE_RUNNER_H_

// Runs this agent's share of one phase: closed or open loop, deadline and
// op-count stop, cancellation, and a per-second snapshot of what was
// measured.
//
// The engine: a few event loops (Boost.Asio io_contexts, one thread each;
// one per core by default), every worker a coroutine on one of them with
// its own connection (drivers/async_driver.h), driven by socket readiness,
// sleeping on timers, its operations cut by a per-operation timer at
// op_timeout (and at the phase's hard stop), and retried by
// agent/retry_policy.h. Nothing on the per-operation path takes a lock;
// memory for timers and coroutine frames is recycled by Asio.
//
// Its parts: phase_runner.cc (the share, the schedule, the per-second
// snapshots), phase_runner_loops.cc (the loops and a worker's life),
// phase_runner_connect.cc, phase_runner_pipeline.cc,
// phase_runner_transaction.cc and writes_check.cc. (A thread-per-worker
// engine ran beside it until 2026-12, as a second subclass; see
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

// Boost 1.74's awaitable.hpp needs <utility> before it (drivers/async_driver.h).
// clang-format off
#include <utility>
// clang-format on

#include <array>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agent/retry_policy.h"
#include "agent/thread_cpu.h"
#include "agent/worker_schedule.h"
#include "agent/worker_stats.h"
#include "common/backoff.h"
#include "common/mutex.h"
#include "common/rng.h"
#include "common/status.h"
#include "drivers/async_driver.h"
#include "drivers/driver.h"
#include "drivers/driver_registry.h"
#include "drivers/endpoint_names.h"
#include "drivers/readiness_set.h"
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
  // The agent's own threads (agent/thread_cpu.h): the event loops count
  // there too, and snapshots report its CPU. Null: the whole process's.
  ThreadCpu* cpu = nullptr;
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

// What every worker has (PhaseRunner's Worker adds its event loop's
// parts). Its fields belong to the loop's thread; stats are drained by the
// collector.
struct WorkerState {
  // What every operation reads comes first, in one cache line: at 1,000
  // workers each line of a worker is a cache miss per operation
  // (docs/PERFORMANCE.md, issue 35). The event loop's parts live here too
  // (PhaseRunner::Worker has the rest).
  uint32_t global = 0;
  int endpoint = 0;  // index into target.endpoints
  // Where it records: its event loop's, shared with the loop's other
  // workers (one writer thread).
  WorkerStats* stats = nullptr;
  std::unique_ptr<workloads::WorkerOps> ops;
  std::unique_ptr<drivers::AsyncDriver> driver;
  size_t loop = 0;
  size_t slot = 0;   // its place in its loop's cut_at
  int failures = 0;  // connections lost since the last successful op
  // A worker whose first endpoint is one of target.joining (a node that
  // joins mid-run): that endpoint, which it tries again every
  // kHomeRetryNs while on another one; -1: none.
  int home = -1;
  bool cut_fired = false;   // the watchdog cut its operation
  bool active = false;      // counted in active_
  bool backed_off = false;  // backoff has advanced since it was last reset
  // In the worker itself, not blocks of their own: every operation reads
  // them, the schedule's first line and the request's first line, which
  // lie within 256 bytes of the worker's start.
  std::optional<WorkerSchedule> schedule;
  drivers::OpRequest req;
  // Between reconnects, from kReconnectBackoffNs (common/backoff.h).
  Backoff backoff{kReconnectBackoffNs};
  Rng jitter{0};
  int64_t next_home_ns = 0;
  // A history-keeping workload's (Workload::keeps_history): the worker
  // writes, the collector drains.
  std::unique_ptr<HistoryLog> history;
};

class PhaseRunner {
 public:
  // The runner for this phase.
  static std::unique_ptr<PhaseRunner> Create(PhaseRunnerOptions options);
  explicit PhaseRunner(PhaseRunnerOptions options);
  ~PhaseRunner();

  // Builds the workload, runs setup (the lead), and connects every worker.
  // Returns the first connection error ("127.0.0.1:5432: ..."), if any.
  Status Prepare();
  // Starts at start_coord_ns (coordinator clock) and blocks until the phase
  // ends or is cancelled. Emits the final snapshot before returning. With
  // join_coord_ns (a share taken up mid-phase), operations due before it
  // are skipped: they belonged to an earlier holder of the share.
  void Run(int64_t start_coord_ns, int64_t join_coord_ns = 0);
  // Aborts: nothing more is started or counted. Any thread, any time.
  void Cancel();
  // After Run() (check_writes): reads back every insert the workers'
  // operations acknowledged or left ambiguous, within budget_ns
  // (agent/writes_check.cc). Cancel() ends it early.
  v1::WritesCheck CheckWrites(int64_t budget_ns);
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

 private:
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
  int64_t LoopsCpuNs() const;
  // The agent's own threads' CPU so far (options_.cpu), else the process's.
  int64_t AgentCpuNs() const { return options_.cpu ? options_.cpu->TotalNs() : ProcessCpuNs(); }
  // Every worker of the engine is done (cv_ is notified when one is).
  bool AllFinished() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
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

  void Collect(uint32_t seq, int64_t start_ns, int64_t end_ns, bool final);
  // The interval's anomalies into its snapshot (coord: monotonic ns to the
  // coordinator's clock).
  void AddAnomalies(const std::function<int64_t(int64_t)>& coord, v1::Snapshot* snap) const;
  // The workers' history events since the last snapshot, every one: up to
  // kMaxHistoryBytes in *snap, the rest in parts of the same interval
  // (returned; sent before *snap, so the interval is merged whole).
  std::vector<v1::Snapshot> AddHistory(const std::function<int64_t(int64_t)>& coord, bool final, v1::Snapshot* snap);
  static constexpr size_t kMaxHistoryBytes = size_t(3) << 20;

  std::vector<std::array<std::atomic<bool>, kNumOutcomes>> logged_;
  std::set<std::string> reconnect_causes_ ABSL_GUARDED_BY(mu_);
  // Collector accumulators (collector thread only).
  std::vector<OpTotals> acc_ops_;
  std::vector<Histogram> acc_latency_;
  std::vector<EndpointTotals> acc_endpoints_;
  int64_t coord_offset_ns_ = 0;  // coordinator clock minus start_mono_ns_'s clock, for the collector
  int64_t last_cpu_ns_ = 0;
  int64_t last_process_cpu_ns_ = 0;
  int64_t last_loops_cpu_ns_ = 0;
  Histogram acc_lag_;
  std::array<uint64_t, kNumAnomalies> acc_anomalies_{};
  std::vector<AnomalySeen> acc_examples_;
  double cpu_cores_ = 1;        // min(event loops, what the process may use), from CollectUntil
  int64_t ended_coord_ns_ = 0;  // written by CollectUntil, read after Run on its thread

  // The engine (phase_runner_loops.cc and the files beside it).
  template <typename T>
  using Task = drivers::Task<T>;
  static constexpr int kMaxTxnStatements = 16;
  struct Worker : WorkerState {
    std::unique_ptr<boost::asio::steady_timer> sleep;  // schedule, back-off, the start gate
    bool connect_turn = false;                         // handed a connection attempt's turn (EndConnectTurn)
    std::string error;
    // A transaction's statements, made the first time one runs.
    std::unique_ptr<std::array<drivers::OpRequest, kMaxTxnStatements>> calls;
    drivers::OpRequest next;  // an interactive operation's next statement (WorkerOps::Continue)
    // Pipelined (Phase.pipeline): a batch's ops and what came back, made
    // once, before the first batch.
    std::vector<int> batch_ops;
    std::vector<drivers::OpResult> batch_results;
    std::vector<int64_t> batch_ended_ns;
    std::vector<std::string> batch_errors;
    bool prepared = false;  // guarded by mu_: connected (or failed to)
    bool finished = false;  // guarded by mu_
  };
  // One event loop: its thread, and a watchdog timer that cuts its
  // workers' overdue operations.
  struct Loop {
    boost::asio::io_context context{1};  // hint 1: ReadinessSet::Run needs it
    // Runs fn on the loop, from another thread: the loop blocks in its
    // readiness set, which a post alone does not wake.
    template <typename Fn>
    void Post(Fn fn) {
      boost::asio::post(context, std::move(fn));
      Wake();
    }
    void Wake() { boost::asio::use_service<drivers::ReadinessSet>(context).Wake(); }
    std::unique_ptr<boost::asio::steady_timer> watchdog;
    // The lag probe: a timer every kProbeNs, recording how late it ran
    // into stats (the loop's, shared with its workers).
    std::unique_ptr<boost::asio::steady_timer> probe;
    int64_t probe_due = 0;
    WorkerStats* stats = nullptr;
    std::vector<Worker*> workers;
    // When each worker's operation in flight is cut (op_timeout, the hard
    // stop); 0: none. Kept together so the watchdog's scan of thousands of
    // workers reads one array: no timer per operation.
    std::vector<int64_t> cut_at;
    std::atomic<int> running{0};  // workers not yet finished
    // Per endpoint: connection attempts in flight from this loop, and the
    // workers waiting for a turn, first come first served (TakeConnectTurn).
    std::vector<int> connecting;
    std::vector<std::deque<Worker*>> waiting;
  };
  // What one worker's read-back found (agent/writes_check.cc).
  struct WorkerCheck {
    uint64_t acked = 0, lost = 0, ambiguous = 0, ambiguous_found = 0, unchecked = 0;
    uint64_t failed = 0, failed_found = 0;
    std::vector<int64_t> lost_ids, failed_found_ids;
    std::string why_unchecked;  // the first read that could not be done
    int unread_in_a_row = 0;    // reads that could not be done, in a row
  };
  enum class Found { kYes, kNo, kUnknown };
  Task<void> CheckWorker(Worker* w, WorkerCheck* check);
  Task<Found> ReadBack(Worker* w, int64_t id);
  Task<Found> ReadOrGiveUp(Worker* w, int64_t id, WorkerCheck* c);
  Task<void> RecheckWorker(Worker* w, const std::vector<uint64_t>& absent, WorkerCheck* c);
  Task<void> WorkerMain(Worker* w);
  Task<Status> ConnectFirst(Worker* w);
  Task<void> RunOps(Worker* w);
  // The workload's final read (WorkerOps::FinalRead), by the agent's first
  // worker; its anomalies are recorded as the phase's last.
  Task<void> FinalRead(Worker* w);
  // Whether the operations are all done and only the final read runs (which
  // may go on past the hard stop, up to its own limit).
  bool OnlyFinalRead() const { return ops_running_.load() == 0; }
  void FinalReadNote(const std::string& why) const;
  static constexpr int64_t kFinalReadNs = 10 * kNsPerSec;
  static constexpr int64_t kFinalReadPauseNs = 200 * kNsPerMs;  // between tries
  std::atomic<int> ops_running_{0};                             // workers not yet past their operations
  // Closed loop, Phase.pipeline operations at a time (phase_runner_pipeline.cc).
  Task<void> RunPipelined(Worker* w);
  // Counts an operation's outcome and tells the workload.
  void Settle(Worker* w, int op, const drivers::OpResult& r, int64_t intended, uint32_t retries, int64_t ended,
              const std::string& error);
  // After the connection was lost: backs off (from the second loss in a
  // row) and reconnects, until it does or the phase ends.
  Task<void> AfterLoss(Worker* w);
  // Draws the next operation into w->req, or a transaction's statements
  // into w->calls (*statements > 0); an interactive one leaves
  // *statements kInteractive (kSequence on Redis). Returns its op index.
  int NextOp(Worker* w, int* statements);
  // One statement: an attempt, then retries while the outcome is
  // retryable and the retry policy allows (RunOps writes the first attempt
  // out itself, a frame less per operation).
  Task<drivers::OpResult> ExecuteStatement(Worker* w, const drivers::OpRequest& req, uint32_t* retries);
  // The retries after attempt 1 ended in r, retryable.
  Task<drivers::OpResult> Retry(Worker* w, const drivers::OpRequest& req, drivers::OpResult r, uint32_t* retries);
  // After an attempt: disarms its timeout, noting in w->error if it cut it.
  void AfterAttempt(Worker* w);
  // n statements from calls, or an interactive one (n == kInteractive:
  // calls is its first statement) as one transaction
  // (phase_runner_transaction.cc).
  Task<drivers::OpResult> ExecuteTransaction(Worker* w, const drivers::OpRequest* calls, int n, uint32_t* retries);
  Task<drivers::OpResult> TransactionBody(Worker* w, const drivers::OpRequest* calls, int n, int64_t* rows,
                                          bool* rollback);
  // An interactive operation where there are no transactions (Redis).
  Task<drivers::OpResult> ExecuteSequence(Worker* w, uint32_t* retries);
  static constexpr int kInteractive = workloads::WorkerOps::kInteractive;
  static constexpr int kSequence = -2;
  // Tries every endpoint once, starting after the current one.
  // A connection attempt ends by `deadline` (the phase's hard stop, or the
  // final read's own end, which comes after it).
  Task<Status> Reconnect(Worker* w, int64_t deadline = 0);
  Task<Status> ConnectTo(Worker* w, int endpoint, int64_t deadline = 0);
  Task<Status> ConnectDriver(Worker* w, drivers::AsyncDriver* driver, int endpoint, int64_t deadline = 0);
  // At most kMaxConnecting connection attempts to one endpoint are in
  // flight per loop: a server authenticates them one by one, so hundreds
  // made at once would wait in its queue past connect_timeout, whose clock
  // starts with the attempt. (Per endpoint: a node that does not answer
  // holds up only the attempts to it.) A worker waits here for its turn
  // (or until `deadline`, or an abort: false), and hands the turn on when
  // its attempt ends.
  static constexpr int kMaxConnecting = 32;
  // How long a worker that may start elsewhere (ConnectFirst) keeps trying
  // every endpoint before the phase fails.
  static constexpr int64_t kConnectRoundsNs = 10 * kNsPerSec;
  std::atomic<bool> give_up_connecting_{false};  // Prepare has failed: no more turns
  Task<bool> TakeConnectTurn(Worker* w, int endpoint, int64_t deadline);
  void EndConnectTurn(Worker* w, int endpoint);
  // A worker away from its joining home endpoint (WorkerState::home), once
  // kHomeRetryNs has passed since the last try: a new connection to it,
  // which replaces the current one if it answers.
  Task<void> MaybeGoHome(Worker* w);
  // A monotonic time (common/clock.h) as the loops' timers take it.
  static std::chrono::steady_clock::time_point AtMono(int64_t mono_ns);
  // Sleeps until mono_ns; false if the phase halted meanwhile.
  Task<bool> SleepUntil(Worker* w, int64_t mono_ns);
  // Arms the cut for one operation (or a transaction with its retries);
  // Disarm() says whether it fired.
  void Arm(Worker* w);
  bool Disarm(Worker* w);
  // On each loop: cuts what is overdue, then sleeps until the next cut
  // could be due (at least kWatchdogTickNs); hard_stop is the one the
  // chain was started with (Run's, or the writes check's).
  void Watch(Loop* loop, int64_t hard_stop);
  // On each loop, from Run until its last worker ends: records how late
  // the previous probe ran, then sets the next one.
  void Probe(Loop* loop);
  // On the worker's loop, when its coroutine has ended.
  void Finished(Worker* w);
  // Closes every worker's connection, on its loop; returns when all are.
  void CloseConnections();
  // Runs fn(worker) on each worker's loop.
  template <typename Fn>
  void OnEachLoop(Fn fn);

  std::vector<std::unique_ptr<Loop>> loops_;
  std::vector<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guards_;
  std::vector<std::thread> threads_;
  std::vector<pthread_t> loop_threads_;  // threads_' handles, for their CPU clocks
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<bool> gate_{false};
  int prepared_ ABSL_GUARDED_BY(mu_) = 0;
  Status prepare_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_PHASE_RUNNER_H_

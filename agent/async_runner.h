// The asynchronous engine (see phase_runner.h): a few event loops
// (Boost.Asio io_contexts, one thread each; one per core by default), every
// worker a coroutine on one of them with its own connection
// (drivers/async_driver.h), sleeping on timers, its operations cut by a
// per-operation timer at op_timeout (and at the phase's hard stop), and
// retried by agent/retry_policy.h. Nothing on the per-operation path takes
// a lock; memory for timers and coroutine frames is recycled by Asio.
#ifndef STAMPEDE_AGENT_ASYNC_RUNNER_H_
#define STAMPEDE_AGENT_ASYNC_RUNNER_H_

#include <array>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "agent/phase_runner.h"
#include "agent/retry_policy.h"
#include "common/mutex.h"
#include "drivers/async_driver.h"

namespace stampede::agent {

class AsyncRunner : public PhaseRunner {
 public:
  explicit AsyncRunner(PhaseRunnerOptions options);
  ~AsyncRunner() override;

  Status Prepare() override;
  void Run(int64_t start_coord_ns, int64_t join_coord_ns = 0) override;
  void Cancel() override;
  v1::WritesCheck CheckWrites(int64_t budget_ns) override;

 private:
  template <typename T>
  using Task = drivers::Task<T>;
  static constexpr int kMaxTxnStatements = 16;
  struct Worker : WorkerState {
    size_t loop = 0;
    size_t slot = 0;  // its place in its loop's cut_at
    std::unique_ptr<drivers::AsyncDriver> driver;
    std::unique_ptr<boost::asio::steady_timer> sleep;  // schedule, back-off, the start gate
    bool cut_fired = false;                            // the watchdog cut its operation
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
    boost::asio::io_context context{1};
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
  bool OnlyFinalRead() const override { return ops_running_.load() == 0; }
  void FinalReadNote(const std::string& why) const;
  static constexpr int64_t kFinalReadNs = 10 * kNsPerSec;
  static constexpr int64_t kFinalReadPauseNs = 200 * kNsPerMs;  // between tries
  std::atomic<int> ops_running_{0};                             // workers not yet past their operations
  // Closed loop, Phase.pipeline operations at a time (agent/async_pipeline.cc).
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
  Task<drivers::OpResult> ExecuteStatement(Worker* w, const drivers::OpRequest& req, uint32_t* retries);
  // n statements from calls, or an interactive one (n == kInteractive:
  // calls is its first statement) as one transaction
  // (agent/async_transaction.cc).
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
  bool AllFinished() const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int64_t LoopsCpuNs() const override;
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

#endif  // STAMPEDE_AGENT_ASYNC_RUNNER_H_

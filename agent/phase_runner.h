// Runs this agent's share of one phase: one thread and one connection per
// worker, closed or open loop, deadline and op-count stop, cancellation, and
// a per-second snapshot of what was measured.
//
// Deadlines are hard: no operation starts at or after the phase's deadline
// (its duration, or an ops-bounded phase's timeout), an operation in flight
// is cut off at op_timeout, and at deadline + op_timeout every socket still
// in use is shut down. Operations the schedule owed but that never started
// are counted as missed (WorkerSchedule says what is owed).
//
// The runner owns looping, rate, deadlines, retries, reconnects and
// counting; the workload only produces operations and the driver only
// executes them. A worker that loses its connection reconnects to the next
// endpoint that answers (exponential back-off with jitter between rounds);
// an operation that overruns target.op_timeout is cut off by the driver's
// socket timeout or, for drivers without one, by the runner's watchdog.
//
// Lifecycle: Prepare() (connect every worker) -> Run() -> destroy. Cancel()
// may be called from any thread at any time.
#ifndef STAMPEDE_AGENT_PHASE_RUNNER_H_
#define STAMPEDE_AGENT_PHASE_RUNNER_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/worker_schedule.h"
#include "agent/worker_stats.h"
#include "common/status.h"
#include "drivers/driver.h"
#include "drivers/driver_registry.h"
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
  // Runs the setup before the phase (and the previous phase's cleanup).
  bool lead = false;
  std::string password;  // resolved from the agent's own environment
  // Coordinator clock minus local monotonic clock.
  std::function<int64_t()> clock_offset_ns;
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
WorkerShare ShareOf(uint32_t total, uint32_t agent_index, uint32_t agent_count);

class PhaseRunner {
 public:
  explicit PhaseRunner(PhaseRunnerOptions options);
  ~PhaseRunner();

  // Builds the workload, runs setup (agent 0), and connects every worker.
  // Returns the first connection error ("127.0.0.1:5432: ..."), if any.
  Status Prepare();
  // Operations this agent's share owes over the phase (after Prepare); -1
  // when the phase has no schedule (closed loop with a duration).
  int64_t owed_ops() const { return owed_ops_; }
  // Starts at start_coord_ns (coordinator clock) and blocks until the phase
  // ends or is cancelled. Emits the final snapshot before returning. With
  // join_coord_ns (a share taken up mid-phase), operations due before it
  // are skipped: they belonged to an earlier holder of the share.
  void Run(int64_t start_coord_ns, int64_t join_coord_ns = 0);
  // Aborts: nothing more is started or counted. Any thread, any time.
  void Cancel();
  // After Run(): the phase's timeout ended it with operations still owed.
  bool timed_out() const { return timed_out_.load(); }

 private:
  struct Worker;
  void WorkerMain(Worker* w);
  void RunLoop(Worker* w, drivers::Driver* driver);
  void RunOps(Worker* w, drivers::Driver* driver, workloads::WorkerOps* ops);
  // Draws the next operation without running it (the workload's state
  // moves on as if it had run); returns its op index.
  int DrawOp(workloads::WorkerOps* ops, drivers::OpRequest* req);
  // While the worker cannot run operations (reconnecting, backing off):
  // counts those overdue by more than the allowed lag as missed, as they
  // come due, so a stalled worker's misses show in the second they happen.
  void MissOverdue(Worker* w, workloads::WorkerOps* ops, drivers::OpRequest* req);
  // Counts the operation just drawn and everything the worker still owes as
  // missed (unless the phase was aborted).
  void MissRest(Worker* w, workloads::WorkerOps* ops, drivers::OpRequest* req);
  drivers::OpResult ExecuteOp(Worker* w, drivers::Driver* driver, workloads::WorkerOps* ops,
                              drivers::OpRequest* req, int* op, uint32_t* retries,
                              std::string* error);
  void SetActive(Worker* w, bool active);
  drivers::OpResult ExecuteWithRetries(Worker* w, drivers::Driver* driver,
                                       const drivers::OpRequest& req, uint32_t* retries,
                                       std::string* error);
  // Tries every endpoint once, starting after the current one.
  Status Reconnect(Worker* w, drivers::Driver* driver);
  void BackOff(Worker* w);
  bool SleepUntil(int64_t mono_ns);  // false if halted
  bool Halted() const { return halt_.load(std::memory_order_relaxed) != kRunning; }
  bool WaitForGate();
  void WatchdogMain();
  // Arms the watchdog for an operation on the worker's connection.
  void Arm(Worker* w, drivers::Driver* driver, int64_t timeout_ns);
  bool Disarm(Worker* w);  // true if the watchdog cut the operation
  void ReportError(int op, Outcome outcome, const std::string& message);
  void Collect(uint32_t seq, int64_t start_ns, int64_t end_ns, bool final);
  drivers::ConnectOptions OptionsFor(int endpoint) const;

  PhaseRunnerOptions options_;
  const v1::Phase& phase_;
  const drivers::DriverInfo* driver_info_ = nullptr;
  std::unique_ptr<workloads::Workload> workload_;
  WorkerShare share_;
  std::vector<std::unique_ptr<Worker>> workers_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool gate_open_ = false;      // guarded by mu_
  int prepared_ = 0;            // guarded by mu_
  Status prepare_error_;        // guarded by mu_
  int64_t start_mono_ns_ = 0;   // written before the gate opens
  int64_t deadline_mono_ns_ = INT64_MAX;
  int64_t hard_stop_mono_ns_ = INT64_MAX;  // deadline + op_timeout: sockets are cut
  int64_t join_mono_ns_ = 0;       // ops due before this belong to someone else
  int64_t op_timeout_ns_ = 0;
  int64_t max_lag_ns_ = INT64_MAX;  // an op due longer ago than this is missed
  bool owes_ = false;              // the phase has a schedule to owe against
  int64_t owed_ops_ = -1;

  enum Halt : int { kRunning = 0, kStopping = 1, kAborted = 2 };
  std::atomic<int> halt_{kRunning};
  std::atomic<bool> timed_out_{false};
  std::atomic<uint32_t> active_{0};
  std::vector<std::array<std::atomic<bool>, kNumOutcomes>> logged_;
  std::thread watchdog_;

  // Collector accumulators (collector thread only).
  std::vector<OpTotals> acc_ops_;
  std::vector<Histogram> acc_latency_;
  std::vector<EndpointTotals> acc_endpoints_;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_PHASE_RUNNER_H_

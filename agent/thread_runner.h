// The threaded engine (see phase_runner.h): one thread and one blocking
// connection per worker, an op_timeout watchdog thread that shuts down the
// socket of an overrunning operation. For the drivers without an
// asynchronous form.
#ifndef STAMPEDE_AGENT_THREAD_RUNNER_H_
#define STAMPEDE_AGENT_THREAD_RUNNER_H_

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "agent/phase_runner.h"
#include "common/mutex.h"

namespace stampede::agent {

class ThreadRunner : public PhaseRunner {
 public:
  explicit ThreadRunner(PhaseRunnerOptions options) : PhaseRunner(std::move(options)) {}
  ~ThreadRunner() override;

  Status Prepare() override;
  void Run(int64_t start_coord_ns, int64_t join_coord_ns = 0) override;
  void Cancel() override;
  const char* engine() const override { return "threads"; }

 private:
  struct Worker : WorkerState {
    std::thread thread;
    // Watchdog interface: the worker publishes the socket and the deadline
    // of the operation in flight (0: none); the watchdog shuts the socket
    // down when the deadline passes and sets timed_out.
    std::atomic<int> fd{-1};
    std::atomic<int64_t> op_deadline_ns{0};
    std::atomic<bool> timed_out{false};
    bool finished = false;  // guarded by mu_
  };
  void WorkerMain(Worker* w);
  void RunOps(Worker* w, drivers::Driver* driver);
  drivers::OpResult ExecuteOp(Worker* w, drivers::Driver* driver, int* op, uint32_t* retries, std::string* error);
  // w->req, retried as retry_ says.
  drivers::OpResult ExecuteStatement(Worker* w, drivers::Driver* driver, uint32_t* retries, std::string* error);
  drivers::OpResult ExecuteTransaction(Worker* w, drivers::Driver* driver, drivers::TransactionalDriver* txn,
                                       const drivers::OpRequest* calls, int n, uint32_t* retries, std::string* error);
  // Tries every endpoint once, starting after the current one.
  Status Reconnect(Worker* w, drivers::Driver* driver);
  void BackOff(Worker* w);
  bool SleepUntil(int64_t mono_ns);  // false if halted
  bool WaitForGate();
  void WatchdogMain();
  // Arms the watchdog for an operation on the worker's connection.
  void Arm(Worker* w, drivers::Driver* driver, int64_t timeout_ns);
  bool Disarm(Worker* w);  // true if the watchdog cut the operation
  bool AllFinished() const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<std::unique_ptr<Worker>> workers_;
  bool gate_open_ ABSL_GUARDED_BY(mu_) = false;
  int prepared_ ABSL_GUARDED_BY(mu_) = 0;
  Status prepare_error_ ABSL_GUARDED_BY(mu_);
  std::thread watchdog_;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_THREAD_RUNNER_H_

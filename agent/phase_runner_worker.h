// The runner's per-worker state and tuning, shared by phase_runner.cc (the
// phase's lifecycle, the watchdog, the collector) and worker_loop.cc (one
// worker's loop). Internal to agent/.
#ifndef STAMPEDE_AGENT_PHASE_RUNNER_WORKER_H_
#define STAMPEDE_AGENT_PHASE_RUNNER_WORKER_H_

#include <atomic>
#include <memory>
#include <thread>

#include "agent/phase_runner.h"
#include "common/clock.h"
#include "common/rng.h"

namespace stampede::agent {

constexpr int64_t kMaxSleepSliceNs = 50 * kNsPerMs;
constexpr int64_t kFirstBackoffNs = 100 * kNsPerMs;
constexpr int64_t kMaxBackoffNs = 2 * kNsPerSec;
constexpr int64_t kWatchdogTickNs = 20 * kNsPerMs;
constexpr int kMaxTxnStatements = 16;
constexpr int64_t kStageTickNs = 20 * kNsPerMs;  // ramp granularity for waiting workers
// Missed operations are attributed to ops by drawing them from the
// workload; past this many per worker the rest is split in proportion.
constexpr uint64_t kMaxAttributed = uint64_t{1} << 20;

struct PhaseRunner::Worker {
  uint32_t global = 0;
  int endpoint = 0;     // index into target.endpoints
  std::unique_ptr<WorkerStats> stats;
  std::unique_ptr<WorkerSchedule> schedule;
  std::thread thread;
  int64_t backoff_ns = kFirstBackoffNs;
  int failures = 0;  // connections lost since the last successful op
  Rng jitter{0};
  // Watchdog interface: the worker publishes the socket and the deadline of
  // the operation in flight (0: none); the watchdog shuts the socket down
  // when the deadline passes and sets timed_out.
  std::atomic<int> fd{-1};
  std::atomic<int64_t> op_deadline_ns{0};
  std::atomic<bool> timed_out{false};
  bool finished = false;  // guarded by PhaseRunner::mu_
  bool active = false;    // counted in active_ (worker thread only)
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_PHASE_RUNNER_WORKER_H_

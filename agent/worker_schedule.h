// When each of one worker's operations is due, and how many it owes.
//
// Open loop: operation k of global worker g is the phase's operation
// n = k * W + g (constant arrivals) or the worker's k-th Poisson arrival, due
// when the rate's integral reaches n (StageSchedule::TimeOfOp). Closed loop:
// operations have no due time; only the phase's ops budget bounds them.
// Everything is derived from (plan, seed, phase, global worker), so any
// agent (or the coordinator) computes the same schedule for the same worker.
//
// Not thread-safe: one per worker.
#ifndef STAMPEDE_AGENT_WORKER_SCHEDULE_H_
#define STAMPEDE_AGENT_WORKER_SCHEDULE_H_

#include <cstdint>

#include "common/rng.h"
#include "plan/stage_schedule.h"
#include "proto/stampede.pb.h"

namespace stampede::agent {

class WorkerSchedule {
 public:
  // budget: this worker's share of the phase's ops (0: unlimited).
  WorkerSchedule(const v1::Phase& phase, uint64_t seed, uint32_t phase_index, uint32_t global, uint64_t budget);

  bool open_loop() const { return open_loop_; }
  const plan::StageSchedule& stages() const { return schedule_; }

  // The next operation's due time in ns from the phase start (open loop;
  // closed loop: 0). False once the worker owes no more operations: its
  // budget is spent or the next one would be due at or after the phase's
  // duration.
  bool Next(int64_t* due_ns);
  // What Next() would return, without taking it.
  bool Peek(int64_t* due_ns);
  // Operations handed out by Next() so far.
  uint64_t issued() const { return k_; }

  // Whether the phase owes operations at all: open loop, or closed loop
  // bounded by ops alone. A closed-loop phase with a duration just ends.
  static bool Owes(const v1::Phase& phase);
  // Operations this worker owes over the whole phase; -1 when !Owes().
  static int64_t Owed(const v1::Phase& phase, uint64_t seed, uint32_t phase_index, uint32_t global, uint64_t budget);
  // Worker g's share of ops (0 when the phase sets none).
  static uint64_t BudgetOf(const v1::Phase& phase, uint32_t global);

 private:
  bool Compute(int64_t* due_ns);  // operation k_'s due time

  // What a closed loop's Next() reads comes first, in one cache line (at
  // 1,000 workers each line is a miss per operation).
  uint64_t k_ = 0;
  uint64_t budget_ = 0;
  int64_t peek_due_ = 0;
  bool peeked_ = false;  // peek_ holds Next()'s answer for k_
  bool peek_ok_ = false;
  bool open_loop_ = false;  // schedule_.open_loop()
  bool poisson_ = false;
  uint32_t global_ = 0;
  double workers_ = 1;
  int64_t duration_ns_ = 0;   // 0: none
  double poisson_clock_ = 0;  // this worker's arrivals, in units of global ops / W
  Rng arrivals_;
  plan::StageSchedule schedule_;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_WORKER_SCHEDULE_H_

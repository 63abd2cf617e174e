#include "agent/worker_schedule.h"

#include <cmath>

#include "common/clock.h"

namespace stampede::agent {
namespace {

constexpr uint64_t kArrivalSalt = 0xa771fa15;

}  // namespace

WorkerSchedule::WorkerSchedule(const v1::Phase& phase, uint64_t seed, uint32_t phase_index, uint32_t global,
                               uint64_t budget)
    : budget_(budget),
      poisson_(phase.arrival() == "poisson"),
      global_(global),
      workers_(phase.workers() > 0 ? double(phase.workers()) : 1.0),
      duration_ns_(int64_t(phase.duration_ms()) * kNsPerMs),
      arrivals_(MixSeed(MixSeed(seed ^ kArrivalSalt, phase_index), global)),
      schedule_(phase) {
  open_loop_ = schedule_.open_loop();
}

bool WorkerSchedule::Peek(int64_t* due_ns) {
  if (!peeked_) {
    peek_ok_ = Compute(&peek_due_);
    peeked_ = true;
  }
  *due_ns = peek_due_;
  return peek_ok_;
}

bool WorkerSchedule::Next(int64_t* due_ns) {
  if (!Peek(due_ns)) return false;
  peeked_ = false;
  ++k_;
  return true;
}

bool WorkerSchedule::Compute(int64_t* due_ns) {
  if (budget_ && k_ >= budget_) return false;
  if (!open_loop_) {
    *due_ns = 0;
    return true;
  }
  double n;
  if (poisson_) {
    poisson_clock_ -= std::log1p(-arrivals_.NextDouble());
    n = poisson_clock_ * workers_;
  } else {
    n = double(k_) * workers_ + double(global_);
  }
  const double t = schedule_.TimeOfOp(n);
  if (t < 0) return false;
  const int64_t due = static_cast<int64_t>(t * 1e9);
  if (duration_ns_ > 0 && due >= duration_ns_) return false;
  *due_ns = due;
  return true;
}

bool WorkerSchedule::Owes(const v1::Phase& phase) {
  return plan::StageSchedule(phase).open_loop() || (phase.ops() > 0 && phase.duration_ms() == 0);
}

uint64_t WorkerSchedule::BudgetOf(const v1::Phase& phase, uint32_t global) {
  if (phase.ops() == 0 || phase.workers() == 0) return 0;
  const uint64_t w = phase.workers();
  return phase.ops() / w + (global < phase.ops() % w ? 1 : 0);
}

int64_t WorkerSchedule::Owed(const v1::Phase& phase, uint64_t seed, uint32_t phase_index, uint32_t global,
                             uint64_t budget) {
  if (!Owes(phase)) return -1;
  WorkerSchedule s(phase, seed, phase_index, global, budget);
  if (!s.open_loop()) return int64_t(budget);
  // Without a duration an open-loop phase is bounded by its ops alone.
  if (s.duration_ns_ == 0) return int64_t(budget);
  if (s.poisson_) {
    // Poisson arrivals are drawn one by one.
    int64_t due;
    while (s.Next(&due)) {
    }
    return int64_t(s.issued());
  }
  // Constant arrivals: due times grow with k, so the owed operations are
  // k = 0 .. count-1; search for count.
  auto owed = [&](uint64_t k) {
    if (budget && k >= budget) return false;
    const double t = s.schedule_.TimeOfOp(double(k) * s.workers_ + double(global));
    return t >= 0 && static_cast<int64_t>(t * 1e9) < s.duration_ns_;
  };
  if (!owed(0)) return 0;
  uint64_t hi = 1;
  while (owed(hi)) hi *= 2;
  uint64_t lo = hi / 2;  // owed(lo), !owed(hi)
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (owed(mid) ? lo : hi) = mid;
  }
  return int64_t(lo + 1);
}

}  // namespace stampede::agent

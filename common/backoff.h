// Exponential back-off, decided once: a wait that doubles from `first` to
// `max` and starts over on Reset, and the jitter that spreads the clients
// that failed together. Used by a worker's reconnects to its database
// (agent/phase_runner_loops.cc), its retries of a retryable outcome
// (agent/retry_policy.h) and the agent's redials of its coordinator.
#ifndef STAMPEDE_COMMON_BACKOFF_H_
#define STAMPEDE_COMMON_BACKOFF_H_

#include <algorithm>
#include <cstdint>

#include "common/clock.h"
#include "common/rng.h"

namespace stampede {

// The longest any back-off waits: a node that comes back is found within it.
inline constexpr int64_t kMaxBackoffNs = 2 * kNsPerSec;
// A worker's first wait before reconnecting to its database.
inline constexpr int64_t kReconnectBackoffNs = 100 * kNsPerMs;

// Between half and all of wait_ns, uniformly.
inline int64_t Jittered(int64_t wait_ns, Rng* jitter) {
  return wait_ns / 2 + static_cast<int64_t>(jitter->Uniform(uint64_t(wait_ns / 2 + 1)));
}

// first x 2^(n-1), capped at max: the wait before the (n+1)th try.
inline int64_t NthBackoffNs(int64_t first_ns, uint32_t n, int64_t max_ns = kMaxBackoffNs) {
  int64_t b = first_ns;
  for (uint32_t i = 1; i < n && b < max_ns; ++i) b *= 2;
  return std::min(b, max_ns);
}

class Backoff {
 public:
  explicit Backoff(int64_t first_ns, int64_t max_ns = kMaxBackoffNs)
      : first_ns_(first_ns), max_ns_(max_ns), next_ns_(first_ns) {}
  // The wait now; the next one is twice as long, up to max.
  int64_t Next() {
    const int64_t now = next_ns_;
    next_ns_ = std::min(next_ns_ * 2, max_ns_);
    return now;
  }
  void Reset() { next_ns_ = first_ns_; }

 private:
  int64_t first_ns_, max_ns_, next_ns_;
};

}  // namespace stampede

#endif  // STAMPEDE_COMMON_BACKOFF_H_

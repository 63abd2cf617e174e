// Where retries are decided: how many attempts a retryable outcome gets and
// how long to wait between them (exponential, jittered, capped), for single
// statements and transactions alike. The wait itself is the runner's, so it
// can be cut short by a deadline or an abort.
#ifndef STAMPEDE_AGENT_RETRY_POLICY_H_
#define STAMPEDE_AGENT_RETRY_POLICY_H_

#include <algorithm>
#include <cstdint>

#include "common/backoff.h"
#include "common/clock.h"
#include "common/outcome.h"
#include "common/rng.h"
#include "proto/stampede.pb.h"

namespace stampede::agent {

class RetryPolicy {
 public:
  explicit RetryPolicy(const v1::Plan& plan)
      : max_attempts_(std::max<uint32_t>(1, plan.retry().max_attempts())),
        first_backoff_ns_(int64_t(plan.retry().backoff_ms()) * kNsPerMs) {}

  // After attempt `attempt` (1-based) ended in `outcome`: try again? Only a
  // retryable outcome on a live connection before the deadline is.
  bool Again(Outcome outcome, uint32_t attempt, bool connected, int64_t now_ns, int64_t deadline_ns) const {
    return outcome == Outcome::kRetryable && attempt < max_attempts_ && connected && now_ns < deadline_ns;
  }
  // The wait before attempt + 1: between half and all of first x 2^(attempt-1).
  int64_t BackoffNs(uint32_t attempt, Rng* jitter) const {
    return Jittered(NthBackoffNs(first_backoff_ns_, attempt), jitter);
  }
  uint32_t max_attempts() const { return max_attempts_; }

 private:
  uint32_t max_attempts_;
  int64_t first_backoff_ns_;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_RETRY_POLICY_H_

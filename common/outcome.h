// The five outcomes every operation ends in (see docs/metrics.md).
#ifndef STAMPEDE_COMMON_OUTCOME_H_
#define STAMPEDE_COMMON_OUTCOME_H_

#include <array>
#include <cstdint>
#include <string_view>

namespace stampede {

enum class Outcome : uint8_t {
  kOk = 0,
  kRetryable = 1,    // serialization failure, deadlock, conflict: safe to retry
  kUnavailable = 2,  // refused/lost connection before the op ran, timeouts
  kAmbiguous = 3,    // lost during commit: may or may not have applied
  kFatal = 4,        // syntax, auth, constraint: retrying will not help
};

constexpr int kNumOutcomes = 5;

constexpr std::array<std::string_view, kNumOutcomes> kOutcomeNames = {"ok", "retryable", "unavailable", "ambiguous",
                                                                      "fatal"};

constexpr std::string_view OutcomeName(Outcome o) { return kOutcomeNames[static_cast<int>(o)]; }

// A connection lost with an operation sent, or in doubt: a write may have
// been applied (ambiguous; its transaction's COMMIT included), a read did
// nothing that counts (unavailable). The one place every driver decides it.
constexpr Outcome LostInFlight(bool write) { return write ? Outcome::kAmbiguous : Outcome::kUnavailable; }

// A statement inside an explicit transaction that ended in `o` before
// COMMIT was sent: nothing of the transaction can have committed, so a
// write lost on the way is unavailable, not ambiguous.
constexpr Outcome BeforeCommit(Outcome o) { return o == Outcome::kAmbiguous ? Outcome::kUnavailable : o; }

}  // namespace stampede

#endif  // STAMPEDE_COMMON_OUTCOME_H_

// Time sources. Durations in the measurement path are int64 nanoseconds of
// the monotonic clock; wall time is used only for run ids and report headers.
#ifndef STAMPEDE_COMMON_CLOCK_H_
#define STAMPEDE_COMMON_CLOCK_H_

#include <chrono>
#include <cstdint>
#include <thread>

namespace stampede {

inline int64_t MonoNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline int64_t WallNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Sleeps until the monotonic clock reaches deadline_ns (no-op if past).
inline void SleepUntilMonoNs(int64_t deadline_ns) {
  int64_t now = MonoNowNs();
  if (deadline_ns > now) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(deadline_ns - now));
  }
}

constexpr int64_t kNsPerUs = 1000;
constexpr int64_t kNsPerMs = 1000 * 1000;
constexpr int64_t kNsPerSec = 1000 * 1000 * 1000;

}  // namespace stampede

#endif  // STAMPEDE_COMMON_CLOCK_H_

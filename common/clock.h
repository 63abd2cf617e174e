// Time sources. Durations in the measurement path are int64 nanoseconds of
// the monotonic clock; wall time is used only for run ids and report headers.
#ifndef STAMPEDE_COMMON_CLOCK_H_
#define STAMPEDE_COMMON_CLOCK_H_

#include <chrono>
#include <cstdint>
#include <thread>

namespace stampede {

// A process's monotonic clock made to differ, as real hosts' clocks do: an
// offset and a drift (parts per million) from the steady clock. Set once at
// start, before any thread (`stampede agent --test-clock-skew
// --test-clock-drift-ppm`, for tests of agents whose clocks differ); zero
// otherwise.
struct ClockSkew {
  int64_t offset_ns = 0;
  int64_t drift_ppm = 0;
  int64_t base_ns = 0;  // the steady time the drift starts from
};
inline ClockSkew g_clock_skew;

inline int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The process's monotonic time: the steady clock, skewed if set so.
inline int64_t MonoNowNs() {
  const int64_t raw = SteadyNowNs();
  const ClockSkew& k = g_clock_skew;
  if (k.offset_ns == 0 && k.drift_ppm == 0) return raw;
  return raw + k.offset_ns + int64_t(double(raw - k.base_ns) * double(k.drift_ppm) / 1e6);
}

// The steady time at which MonoNowNs() reads mono_ns (for timers on the
// steady clock).
inline int64_t SteadyNsOfMono(int64_t mono_ns) {
  const ClockSkew& k = g_clock_skew;
  if (k.offset_ns == 0 && k.drift_ppm == 0) return mono_ns;
  return k.base_ns + int64_t(double(mono_ns - k.offset_ns - k.base_ns) * 1e6 / (1e6 + double(k.drift_ppm)));
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

// Estimates the offset between the coordinator's clock and ours, NTP-style:
// from each request/response exchange, offset = t_coord - (t_send + t_recv)/2,
// keeping the estimate from the exchange with the smallest round trip among
// recent ones. Thread-safe.
#ifndef STAMPEDE_AGENT_CLOCK_SYNC_H_
#define STAMPEDE_AGENT_CLOCK_SYNC_H_

#include <cstdint>
#include <deque>
#include <mutex>

#include "common/mutex.h"

namespace stampede::agent {

class ClockSync {
 public:
  void AddSample(int64_t send_local_ns, int64_t coord_ns, int64_t recv_local_ns);
  // Coordinator clock minus local monotonic clock (0 before any sample).
  int64_t OffsetNs() const;
  // Half the round trip of the chosen sample: the uncertainty of the offset.
  int64_t UncertaintyNs() const;

 private:
  struct Sample {
    int64_t offset;
    int64_t rtt;
  };
  static constexpr size_t kWindow = 64;
  mutable Mutex mu_;
  std::deque<Sample> samples_ ABSL_GUARDED_BY(mu_);
  Sample best_ ABSL_GUARDED_BY(mu_){0, -1};
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_CLOCK_SYNC_H_

#include "agent/clock_sync.h"

namespace stampede::agent {

void ClockSync::AddSample(int64_t send_local_ns, int64_t coord_ns, int64_t recv_local_ns) {
  if (recv_local_ns < send_local_ns) return;
  Sample s{coord_ns - (send_local_ns + recv_local_ns) / 2, recv_local_ns - send_local_ns};
  MutexLock lock(mu_);
  samples_.push_back(s);
  if (samples_.size() > kWindow) samples_.pop_front();
  best_ = samples_.front();
  for (const Sample& x : samples_) {
    if (x.rtt < best_.rtt) best_ = x;
  }
}

int64_t ClockSync::OffsetNs() const {
  MutexLock lock(mu_);
  return best_.offset;
}

int64_t ClockSync::UncertaintyNs() const {
  MutexLock lock(mu_);
  return best_.rtt < 0 ? 0 : best_.rtt / 2;
}

}  // namespace stampede::agent

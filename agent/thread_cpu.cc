#include "agent/thread_cpu.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include "common/clock.h"

namespace stampede::agent {
namespace {

int64_t ClockNs(clockid_t clock) {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return 0;
  return int64_t(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

}  // namespace

ThreadCpu::Scope::Scope(ThreadCpu* owner) : owner_(owner) {
  if (!owner_) return;
  if (pthread_getcpuclockid(pthread_self(), &clock_) != 0) {
    owner_ = nullptr;
    return;
  }
  MutexLock lock(owner_->mu_);
  owner_->live_.push_back(clock_);
}

ThreadCpu::Scope::~Scope() {
  if (!owner_) return;
  // Read and removed under the lock: TotalNs never reads the clock of a
  // thread that has gone, nor counts one twice.
  MutexLock lock(owner_->mu_);
  owner_->gone_ns_ += ClockNs(CLOCK_THREAD_CPUTIME_ID);
  auto it = std::find(owner_->live_.begin(), owner_->live_.end(), clock_);
  if (it != owner_->live_.end()) owner_->live_.erase(it);
}

int64_t ThreadCpu::TotalNs() const {
  MutexLock lock(mu_);
  int64_t sum = gone_ns_;
  for (clockid_t c : live_) sum += ClockNs(c);
  return sum;
}

int64_t ProcessCpuNs() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (int64_t(u.ru_utime.tv_sec) + u.ru_stime.tv_sec) * kNsPerSec +
         (int64_t(u.ru_utime.tv_usec) + u.ru_stime.tv_usec) * 1000;
}

const std::string& ProcessTag() {
  static const std::string tag = [] {
    char host[256] = {};
    if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
    return std::string(host) + ":" + std::to_string(getpid());
  }();
  return tag;
}

}  // namespace stampede::agent

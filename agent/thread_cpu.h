// The CPU an agent's own threads use, from each thread's CPU clock, so that
// agents sharing a process (stampede run --local-agents N) each report
// their own work and together at most the process's. What no agent owns
// (an embedded coordinator, gRPC's threads) stays the process's remainder:
// ProcessCpuNs() less every agent's TotalNs().
#ifndef STAMPEDE_AGENT_THREAD_CPU_H_
#define STAMPEDE_AGENT_THREAD_CPU_H_

#include <time.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/mutex.h"

namespace stampede::agent {

// Thread-safe.
class ThreadCpu {
 public:
  // While it lives, the calling thread's CPU counts as its owner's (none
  // when owner is null). Make one at the top of a thread's body.
  class Scope {
   public:
    explicit Scope(ThreadCpu* owner);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ThreadCpu* owner_;
    clockid_t clock_{};
  };

  // User + system CPU of every thread that counted, living or gone.
  int64_t TotalNs() const;

 private:
  mutable Mutex mu_;
  std::vector<clockid_t> live_ ABSL_GUARDED_BY(mu_);
  int64_t gone_ns_ ABSL_GUARDED_BY(mu_) = 0;
};

// User + system CPU of the whole process so far.
int64_t ProcessCpuNs();

// Names this process among others on other hosts: "HOST:PID".
const std::string& ProcessTag();

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_THREAD_CPU_H_

// Samples the nodes this agent owns once a second and sends each one's
// resources to the coordinator (v1::NodeStats), as the origin's recap shows
// them beside its step times: the disk usage of its data directory
// (`data_dir` in the agent config; blocks allocated, as du counts them) and
// the resident memory and CPU time of its process (`process` nodes: the
// pidfile's process, or every process running the exe; a PostgreSQL
// postmaster's backends are its children and are not counted).
#ifndef STAMPEDE_AGENT_NODE_SAMPLER_H_
#define STAMPEDE_AGENT_NODE_SAMPLER_H_

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <string>
#include <thread>

#include "agent/clock_sync.h"
#include "agent/fault_actions.h"
#include "agent/outbox.h"
#include "agent/thread_cpu.h"
#include "common/mutex.h"

namespace stampede::agent {

// Bytes allocated on disk to every file under `path` (-1 if it does not
// exist or the agent may not list it). Files that vanish while it walks,
// and subdirectories it may not read, are skipped.
int64_t DiskUsage(const std::string& path);

// Resident memory and CPU time (user + system) of a process, from
// /proc/PID/stat; false if it is gone.
bool ProcessUsage(pid_t pid, int64_t* rss_bytes, double* cpu_s);

// One node's sample (time_ns left for the caller).
v1::NodeStats SampleNode(const std::string& name, const NodeActions& node);

class NodeSampler {
 public:
  // Samples every declared node with a data_dir or a process; nothing to
  // sample: no thread.
  // cpu (may be null): where its thread's CPU counts (agent/thread_cpu.h).
  NodeSampler(const FaultActions* faults, const ClockSync* clock, Outbox* outbox, ThreadCpu* cpu = nullptr);
  ~NodeSampler();

 private:
  void Main();

  const FaultActions* const faults_;
  const ClockSync* const clock_;
  Outbox* const outbox_;
  Mutex mu_;
  std::condition_variable cv_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_NODE_SAMPLER_H_

// How much CPU this process may use, in cores: the CPUs its affinity mask
// allows (taskset, cpuset), and its cgroup's CPU quota (cgroup v2
// cpu.max, or v1 cpu.cfs_quota_us / cpu.cfs_period_us, the tightest
// along its path). An agent compares what it used with this, and with the
// event loops it runs, to say when the client itself was the bottleneck
// (docs/metrics.md, "Client saturation").
#ifndef STAMPEDE_AGENT_CPU_BUDGET_H_
#define STAMPEDE_AGENT_CPU_BUDGET_H_

#include <functional>
#include <optional>
#include <string>

namespace stampede::agent {

// Cores this process may use now (at least 0.01).
double CpuCoresAllowed();

// The parts, for tests. A file reader returns nullopt for a missing file.
using ReadFileFn = std::function<std::optional<std::string>(const std::string& path)>;
// The quota in cores from /proc/self/cgroup's text and the cgroup files,
// or nullopt when none is set.
std::optional<double> CgroupCpuQuota(const std::string& proc_self_cgroup, const ReadFileFn& read);

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_CPU_BUDGET_H_

// slow-disk: a node's processes, throttled on its data directory's block
// device. They are moved into a cgroup of the agent's, stampede_<node> at
// the root of the I/O controller's hierarchy (cgroup v2's io with io.max,
// else v1's blkio with blkio.throttle.*), whose reads and writes on that
// device are limited to bytes_per_s and/or iops; heal moves them (and any
// process they started meanwhile) back where they were and removes the
// cgroup, and so do the end of a run, an abort, and the next start of an
// agent that died with one in place (back to the root then).
//
// Needs root (or a delegated hierarchy), a data directory on a block device
// (not tmpfs), and the node's processes (process: in the agent config). On
// cgroup v1, writes the kernel's flusher makes in the background are not
// throttled, only those the database makes itself (O_DIRECT, fsync): what a
// commit waits for.
#ifndef STAMPEDE_AGENT_SLOW_DISK_H_
#define STAMPEDE_AGENT_SLOW_DISK_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace stampede::agent {

// Where slow-disk's cgroups go: "/sys/fs/cgroup" (v2, io) or
// "/sys/fs/cgroup/blkio" (v1); an error saying why neither can be used.
struct CgroupRoot {
  std::string path;
  bool v2 = false;
};
StatusOr<CgroupRoot> FindIoCgroupRoot(const std::string& mounts = "/proc/self/mountinfo");

// data_dir's block device as "MAJ:MIN", the whole disk of a partition; an
// error for a filesystem without one (tmpfs).
StatusOr<std::string> BlockDeviceOf(const std::string& data_dir);

// Whether slow-disk can be done on data_dir here (the reason if not).
Status CheckSlowDisk(const std::string& data_dir);
// Throttles pids and their descendants; a previous throttle of the node is
// replaced. 0 for a limit: none.
Status SlowDisk(const std::string& node, const std::string& data_dir, const std::vector<pid_t>& pids,
                uint64_t bytes_per_s, uint32_t iops);
// Undoes it; *released says whether there was one.
Status ReleaseSlowDisk(const std::string& node, bool* released = nullptr);

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_SLOW_DISK_H_

#include "agent/slow_disk.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "common/mutex.h"

namespace stampede::agent {
namespace {

std::string SlowErrno(const std::string& what) { return what + ": " + std::strerror(errno); }

Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) return Status::Error(SlowErrno("slow-disk: open " + path));
  out << text;
  out.flush();
  if (!out) return Status::Error(SlowErrno("slow-disk: write '" + text + "' to " + path));
  return Status::Ok();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool HasWord(const std::string& text, const std::string& word) {
  std::istringstream in(text);
  std::string w;
  while (in >> w) {
    if (w == word) return true;
  }
  return false;
}

std::string CgroupName(const std::string& node) {
  std::string n = "stampede_" + node;
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  }
  return n;
}

// Each process's parent, from /proc.
std::map<pid_t, pid_t> Parents() {
  std::map<pid_t, pid_t> parents;
  DIR* d = opendir("/proc");
  if (!d) return parents;
  while (dirent* e = readdir(d)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    const std::string stat = ReadText("/proc/" + std::string(e->d_name) + "/stat");
    const size_t close = stat.rfind(')');  // the name may hold spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    pid_t ppid = 0;
    if (rest >> state >> ppid) parents[pid] = ppid;
  }
  closedir(d);
  return parents;
}

std::vector<pid_t> WithDescendants(const std::vector<pid_t>& pids) {
  const std::map<pid_t, pid_t> parents = Parents();
  std::set<pid_t> all(pids.begin(), pids.end());
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [pid, ppid] : parents) {
      if (all.count(ppid) && all.insert(pid).second) grew = true;
    }
  }
  return {all.begin(), all.end()};
}

// The cgroup (relative to the hierarchy's root) pid is in now.
std::string CgroupOf(pid_t pid, bool v2) {
  std::istringstream in(ReadText("/proc/" + std::to_string(pid) + "/cgroup"));
  std::string line;
  while (std::getline(in, line)) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    std::string list = controllers;
    for (char& c : list) c = c == ',' ? ' ' : c;
    if (v2 ? line.compare(0, 3, "0::") == 0 : HasWord(list, "blkio")) return line.substr(b + 1);
  }
  return "/";
}

Mutex g_slow_mu;
// Where each throttled node's processes came from (v1 or v2 path).
std::map<std::string, std::string> g_came_from ABSL_GUARDED_BY(g_slow_mu);

}  // namespace

StatusOr<CgroupRoot> FindIoCgroupRoot(const std::string& mounts) {
  std::istringstream in(ReadText(mounts));
  std::string line;
  CgroupRoot v1;
  while (std::getline(in, line)) {
    // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - FSTYPE SOURCE SUPEROPTS
    std::istringstream f(line);
    std::string skip, mountpoint;
    f >> skip >> skip >> skip >> skip >> mountpoint;
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream tail(line.substr(dash + 3));
    std::string fstype, source, superopts;
    tail >> fstype >> source >> superopts;
    for (char& c : superopts) c = c == ',' ? ' ' : c;
    if (fstype == "cgroup2" && HasWord(ReadText(mountpoint + "/cgroup.controllers"), "io")) {
      return CgroupRoot{mountpoint, true};
    }
    if (fstype == "cgroup" && HasWord(superopts, "blkio")) v1.path = mountpoint;
  }
  if (!v1.path.empty()) return v1;
  return Status::Error("slow-disk needs cgroup v2's io controller or v1's blkio, and neither is mounted here");
}

StatusOr<std::string> BlockDeviceOf(const std::string& data_dir) {
  struct stat st;
  if (stat(data_dir.c_str(), &st) != 0) return Status::Error(SlowErrno("data_dir " + data_dir));
  if (major(st.st_dev) == 0) {
    return Status::Error("data_dir " + data_dir +
                         " is on a filesystem without a block device (tmpfs?): no disk to slow");
  }
  std::string dev = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  const std::string sys = "/sys/dev/block/" + dev;
  if (access((sys + "/partition").c_str(), F_OK) == 0) {  // throttles apply to whole disks
    std::string whole = ReadText(sys + "/../dev");
    while (!whole.empty() && (whole.back() == '\n' || whole.back() == ' ')) whole.pop_back();
    if (!whole.empty()) dev = whole;
  }
  return dev;
}

Status CheckSlowDisk(const std::string& data_dir) {
  auto root = FindIoCgroupRoot();
  if (!root.ok()) return root.status();
  if (access(root->path.c_str(), W_OK) != 0) {
    return Status::Error("slow-disk: " + root->path + " is not writable by this agent (it needs root)");
  }
  return BlockDeviceOf(data_dir).status();
}

Status SlowDisk(const std::string& node, const std::string& data_dir, const std::vector<pid_t>& pids,
                uint64_t bytes_per_s, uint32_t iops) {
  auto root = FindIoCgroupRoot();
  if (!root.ok()) return root.status();
  auto dev = BlockDeviceOf(data_dir);
  if (!dev.ok()) return dev.status();
  const std::string dir = root->path + "/" + CgroupName(node);
  if (root->v2) (void)WriteText(root->path + "/cgroup.subtree_control", "+io");  // already on: no harm
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return Status::Error(SlowErrno("slow-disk: mkdir " + dir));
  Status s;
  if (root->v2) {
    auto limit = [](uint64_t v) { return v ? std::to_string(v) : std::string("max"); };
    s = WriteText(dir + "/io.max", *dev + " rbps=" + limit(bytes_per_s) + " wbps=" + limit(bytes_per_s) +
                                       " riops=" + limit(iops) + " wiops=" + limit(iops));
  } else {
    for (const char* rw : {"read", "write"}) {
      if (s.ok())
        s = WriteText(dir + "/blkio.throttle." + rw + "_bps_device", *dev + " " + std::to_string(bytes_per_s));
      if (s.ok()) s = WriteText(dir + "/blkio.throttle." + rw + "_iops_device", *dev + " " + std::to_string(iops));
    }
  }
  if (!s.ok()) return s;
  const std::vector<pid_t> all = WithDescendants(pids);
  {
    MutexLock lock(g_slow_mu);
    if (!g_came_from.count(node) && !all.empty()) g_came_from[node] = CgroupOf(all.front(), root->v2);
  }
  for (pid_t pid : all) {
    s = WriteText(dir + "/cgroup.procs", std::to_string(pid));
    if (!s.ok() && kill(pid, 0) == 0) return s;  // one that exited since is no matter
  }
  return Status::Ok();
}

Status ReleaseSlowDisk(const std::string& node, bool* released) {
  if (released) *released = false;
  auto root = FindIoCgroupRoot();
  if (!root.ok()) return Status::Ok();  // nothing could have been throttled
  const std::string dir = root->path + "/" + CgroupName(node);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return Status::Ok();
  std::string back = "/";
  {
    MutexLock lock(g_slow_mu);
    if (g_came_from.count(node)) back = g_came_from[node];
    g_came_from.erase(node);
  }
  const std::string target = root->path + (back == "/" ? "" : back) + "/cgroup.procs";
  // Moved out one by one; rmdir waits until the kernel has seen them go.
  for (int attempt = 0; attempt < 50; ++attempt) {
    std::istringstream procs(ReadText(dir + "/cgroup.procs"));
    std::string pid;
    while (procs >> pid) (void)WriteText(target, pid);
    if (rmdir(dir.c_str()) == 0) {
      if (released) *released = true;
      return Status::Ok();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Status::Error(SlowErrno("heal: rmdir " + dir));
}

}  // namespace stampede::agent

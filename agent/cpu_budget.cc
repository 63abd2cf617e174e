#include "agent/cpu_budget.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace stampede::agent {
namespace {

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A cgroup path and each of its parents: /a/b, /a, /.
std::vector<std::string> Ancestry(std::string path) {
  std::vector<std::string> out;
  while (!path.empty() && path != "/") {
    out.push_back(path);
    path = path.substr(0, path.rfind('/'));
  }
  out.push_back("");
  return out;
}

void Tighten(std::optional<double>* quota, double cores) {
  if (cores > 0 && (!*quota || cores < **quota)) *quota = cores;
}

// cgroup v2: "QUOTA PERIOD" or "max PERIOD".
void ReadV2(const std::string& path, const ReadFileFn& read, std::optional<double>* quota) {
  for (const std::string& dir : Ancestry(path)) {
    auto text = read("/sys/fs/cgroup" + dir + "/cpu.max");
    if (!text) text = read("/sys/fs/cgroup/unified" + dir + "/cpu.max");
    if (!text) continue;
    std::istringstream in(*text);
    std::string q;
    double period = 0;
    if (in >> q >> period && q != "max" && period > 0) Tighten(quota, std::atof(q.c_str()) / period);
  }
}

// cgroup v1: cpu.cfs_quota_us (-1: none) over cpu.cfs_period_us.
void ReadV1(const std::string& path, const ReadFileFn& read, std::optional<double>* quota) {
  for (const std::string& dir : Ancestry(path)) {
    for (const char* mount : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
      auto q = read(std::string(mount) + dir + "/cpu.cfs_quota_us");
      auto p = read(std::string(mount) + dir + "/cpu.cfs_period_us");
      if (!q || !p) continue;
      const double us = std::atof(q->c_str()), period = std::atof(p->c_str());
      if (us > 0 && period > 0) Tighten(quota, us / period);
      break;
    }
  }
}

}  // namespace

std::optional<double> CgroupCpuQuota(const std::string& proc_self_cgroup, const ReadFileFn& read) {
  std::optional<double> quota;
  std::istringstream lines(proc_self_cgroup);
  std::string line;
  while (std::getline(lines, line)) {
    // ID:CONTROLLERS:PATH; v2 is "0::PATH".
    const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers.empty()) {
      ReadV2(path, read, &quota);
    } else if (("," + controllers + ",").find(",cpu,") != std::string::npos) {
      ReadV1(path, read, &quota);
    }
  }
  return quota;
}

double CpuCoresAllowed() {
  double cores = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cores = std::max(1, CPU_COUNT(&set));
  if (auto text = ReadFile("/proc/self/cgroup")) {
    if (auto quota = CgroupCpuQuota(*text, ReadFile)) cores = std::min(cores, *quota);
  }
  return std::max(cores, 0.01);
}

}  // namespace stampede::agent

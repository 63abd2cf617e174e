#include "agent/node_sampler.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/clock.h"

namespace stampede::agent {

int64_t DiskUsage(const std::string& path) {
  namespace fs = std::filesystem;
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return -1;
  int64_t bytes = int64_t(st.st_blocks) * 512;
  std::error_code ec;
  if (S_ISDIR(st.st_mode)) {
    // A directory the agent may not read would sum to its own few blocks,
    // a small number that looks real: not known instead.
    fs::directory_iterator readable(path, ec);
    if (ec) return -1;
  }
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (lstat(it->path().c_str(), &st) == 0) bytes += int64_t(st.st_blocks) * 512;
  }
  return bytes;
}

bool ProcessUsage(pid_t pid, int64_t* rss_bytes, double* cpu_s) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  // The command name is in parentheses and may hold spaces: the fields
  // after it start at the last ')'.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(line.substr(close + 2));
  std::string f;
  unsigned long long utime = 0, stime = 0;
  long long rss_pages = 0;
  // Fields 3.. of proc(5): state is field 3; utime 14, stime 15, rss 24.
  for (int n = 3; n <= 24 && fields >> f; ++n) {
    if (n == 14) utime = std::stoull(f);
    if (n == 15) stime = std::stoull(f);
    if (n == 24) rss_pages = std::stoll(f);
  }
  if (!fields) return false;
  *rss_bytes = rss_pages * int64_t(sysconf(_SC_PAGESIZE));
  *cpu_s = double(utime + stime) / double(sysconf(_SC_CLK_TCK));
  return true;
}

v1::NodeStats SampleNode(const std::string& name, const NodeActions& node) {
  v1::NodeStats s;
  s.set_node(name);
  s.set_disk_bytes(node.data_dir.empty() ? -1 : DiskUsage(node.data_dir));
  s.set_rss_bytes(-1);
  s.set_cpu_s(-1);
  if (node.kind != NodeActions::Kind::kProcess) return s;
  auto pids = FindPids(node);
  if (!pids.ok()) return s;  // not running
  int64_t rss_total = 0;
  double cpu_total = 0;
  for (pid_t pid : *pids) {
    int64_t rss = 0;
    double cpu = 0;
    if (!ProcessUsage(pid, &rss, &cpu)) continue;
    s.set_running(true);
    rss_total += rss;
    cpu_total += cpu;
  }
  if (s.running()) {
    s.set_rss_bytes(rss_total);
    s.set_cpu_s(cpu_total);
  }
  return s;
}

NodeSampler::NodeSampler(const FaultActions* faults, const ClockSync* clock, Outbox* outbox, ThreadCpu* cpu)
    : faults_(faults), clock_(clock), outbox_(outbox) {
  bool any = false;
  for (const std::string& name : faults_->nodes()) {
    const NodeActions* n = faults_->Find(name);
    any = any || !n->data_dir.empty() || n->kind == NodeActions::Kind::kProcess;
  }
  if (any) {
    thread_ = std::thread([this, cpu] {
      ThreadCpu::Scope counted(cpu);
      Main();
    });
  }
}

NodeSampler::~NodeSampler() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void NodeSampler::Main() {
  while (true) {
    for (const std::string& name : faults_->nodes()) {
      const NodeActions* n = faults_->Find(name);
      if (n->data_dir.empty() && n->kind != NodeActions::Kind::kProcess) continue;
      v1::AgentMessage m;
      *m.mutable_node_stats() = SampleNode(name, *n);
      m.mutable_node_stats()->set_time_ns(MonoNowNs() + clock_->OffsetNs());
      outbox_->Push(std::move(m));  // dropped while there is no session
    }
    MutexLock lock(mu_);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!stop_) {
      if (cv_.wait_until(lock.native(), until) == std::cv_status::timeout) break;
    }
    if (stop_) return;
  }
}

}  // namespace stampede::agent

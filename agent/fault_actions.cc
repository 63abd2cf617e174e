#include "agent/fault_actions.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "agent/config_yaml.h"
#include "agent/disk_faults.h"
#include "agent/fault_proxy.h"
#include "agent/slow_disk.h"
#include "common/log.h"
#include "common/strings.h"

extern char** environ;

namespace stampede::agent {
namespace {

StatusOr<std::vector<std::string>> Argv(const YAML::Node& n, const std::string& file, const std::string& field) {
  if (!n.IsSequence() || n.size() == 0) {
    return Status::Error(ConfigAt(file, n) + field +
                         ": expected an argv list like [systemctl, start, db], "
                         "never a shell string");
  }
  std::vector<std::string> argv;
  for (const auto& a : n) {
    if (!a.IsScalar()) return Status::Error(ConfigAt(file, a) + field + ": expected strings");
    argv.push_back(a.Scalar());
  }
  return argv;
}

}  // namespace

StatusOr<std::vector<pid_t>> FindPids(const NodeActions& n) {
  std::vector<pid_t> pids;
  if (!n.pidfile.empty()) {
    std::ifstream in(n.pidfile);
    pid_t pid = 0;
    if (!(in >> pid) || pid <= 1) return Status::Error(n.pidfile + ": no pid");
    pids.push_back(pid);
    return pids;
  }
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ec;
    auto exe = std::filesystem::read_symlink(entry.path() / "exe", ec);
    if (!ec && exe == n.exe) pids.push_back(std::stoi(name));
  }
  if (pids.empty()) return Status::Error("no running process is " + n.exe);
  return pids;
}

namespace {

// wait_ms > 0: until the processes are gone (a graceful stop is done when
// the process has exited: a restart's start must not race its shutdown).
Status Signal(const NodeActions& n, int sig, int64_t wait_ms = 0) {
  auto pids = FindPids(n);
  if (!pids.ok()) return pids.status();
  for (pid_t pid : *pids) {
    if (kill(pid, sig) != 0) return Status::Error("kill " + std::to_string(pid) + ": " + std::strerror(errno));
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (pid_t pid : *pids) {
    while (wait_ms > 0 && kill(pid, 0) == 0) {
      if (std::chrono::steady_clock::now() >= until) {
        return Status::Error("pid " + std::to_string(pid) + " still running " + std::to_string(wait_ms / 1000) +
                             " s after SIGTERM");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  return Status::Ok();
}

// The last `count` non-empty lines a command wrote (the anonymous file
// `fd`), joined by " | " into one.
std::string LastLines(int fd, size_t count) {
  const off_t size = lseek(fd, 0, SEEK_END);
  if (size <= 0) return "";
  char buf[4096];
  const off_t from = size > off_t(sizeof buf) ? size - off_t(sizeof buf) : 0;
  const ssize_t n = pread(fd, buf, size_t(size - from), from);
  const std::string said(buf, size_t(std::max<ssize_t>(0, n)));
  std::vector<std::string> lines;
  size_t end = said.size();
  while (end > 0 && lines.size() < count) {
    const size_t nl = said.rfind('\n', end - 1);
    const size_t begin = nl == std::string::npos ? 0 : nl + 1;
    if (std::string line = OneLine(said.substr(begin, end - begin)); !line.empty()) {
      lines.insert(lines.begin(), line);
    }
    if (nl == std::string::npos) break;
    end = nl;
  }
  return Join(lines, " | ");
}

// Keeps the anonymous file `fd` under a name in /tmp; the name, or "".
std::string KeepOutput(int fd, const std::string& program) {
  const std::string base = std::filesystem::path(program).filename().string();
  const std::string path =
      "/tmp/stampede-fault-" + base + "-" +
      std::to_string(std::chrono::system_clock::now().time_since_epoch() / std::chrono::milliseconds(1)) + ".log";
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  return linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0 ? path : "";
}

}  // namespace

Status FaultActions::Exec(const std::vector<std::string>& argv) const {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Its output (stdout and stderr: redis-cli --cluster says why on
  // stdout) goes to an anonymous file, kept under a name if the command
  // fails. Not a pipe: a server a start command leaves running may write to
  // it long after this agent has stopped reading (SIGPIPE would kill it).
  const int err = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  if (err >= 0) {
    posix_spawn_file_actions_adddup2(&files, err, 1);
    posix_spawn_file_actions_adddup2(&files, err, 2);
  }
  // Its own process group, so a command cut off by the timeout goes with
  // everything it started. Signals as a shell would give them: the agent
  // blocks SIGINT and SIGTERM (cli/signals.h) and ignores SIGPIPE, and a
  // server a start or join command leaves running would keep that for
  // life (seen: a Patroni that `leave` could not stop with SIGTERM).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, defaults;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &files, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&files);
  if (rc != 0) {
    if (err >= 0) close(err);
    return Status::Error(argv[0] + ": " + std::strerror(rc));
  }
  Status s = Wait(pid, argv);
  if (s.ok() || err < 0) {
    if (err >= 0) close(err);
    return s;
  }
  const std::string said = LastLines(err, 3);
  const std::string kept = KeepOutput(err, argv[0]);
  close(err);
  return Status::Error(s.message() + (said.empty() ? ", and wrote nothing" : ": " + said) +
                       (kept.empty() || said.empty() ? "" : " (all of its output: " + kept + ")"));
}

Status FaultActions::Wait(pid_t pid, const std::vector<std::string>& argv) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_);
  int status = 0;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return Status::Error(Join(argv, " ") + ": " + std::strerror(errno));
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return Status::Error(Join(argv, " ") + ": cut off after " + std::to_string(timeout_ms_ / 1000) +
                           " s (fault_timeout in the agent config)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::Ok();
  return Status::Error(
      Join(argv, " ") + ": exited with " +
      (WIFEXITED(status) ? std::to_string(WEXITSTATUS(status)) : "signal " + std::to_string(WTERMSIG(status))));
}

namespace {

// A node's one way of being acted on (process, systemd, docker, command).
NodeActions ProcessActions(const std::string& kind, const YAML::Node& body, const std::string& field,
                           ConfigProblems* problems) {
  const std::string& file = problems->file();
  NodeActions n;
  if (kind == "process") {
    n.kind = NodeActions::Kind::kProcess;
    if (!body.IsMap()) {
      problems->Add(body, field, "expected a mapping like {pidfile: PATH, start: [argv]}");
      return n;
    }
    problems->CheckKeys(body, field + ".", {"pidfile", "exe", "start"});
    if (body["pidfile"]) n.pidfile = body["pidfile"].Scalar();
    if (body["exe"]) n.exe = body["exe"].Scalar();
    if (n.pidfile.empty() == n.exe.empty()) problems->Add(body, field, "expected pidfile or exe (an exact path)");
    if (body["start"]) {
      auto argv = Argv(body["start"], file, field + ".start");
      if (problems->Take(argv.status())) n.start = *argv;
    }
  } else if (kind == "systemd" || kind == "docker") {
    const char* key = kind == "systemd" ? "unit" : "container";
    n.kind = kind == "systemd" ? NodeActions::Kind::kSystemd : NodeActions::Kind::kDocker;
    if (!body.IsMap() || !body[key] || !body[key].IsScalar()) {
      problems->Add(body, field, std::string("expected {") + key + ": NAME}");
      return n;
    }
    problems->CheckKeys(body, field + ".", {key});
    (kind == "systemd" ? n.unit : n.container) = body[key].Scalar();
  } else {
    n.kind = NodeActions::Kind::kCommand;
    if (!body.IsMap()) {
      problems->Add(body, field, "expected action: [argv]");
      return n;
    }
    for (auto a = body.begin(); a != body.end(); ++a) {
      const std::string action = a->first.Scalar();
      if (!IsFaultAction(action) || IsNetworkFaultAction(action)) {
        problems->Add(a->first, field + "." + action, "unknown action");
        continue;
      }
      auto argv = Argv(a->second, file, field + "." + action);
      if (problems->Take(argv.status())) n.commands[action] = *argv;
    }
  }
  return n;
}

}  // namespace

FaultActions FaultActions::FromYaml(const YAML::Node& nodes, ConfigProblems* problems) {
  FaultActions fa;
  if (!nodes.IsMap()) {
    problems->Add(nodes, "nodes", "expected a mapping of node names");
    return fa;
  }
  for (auto it = nodes.begin(); it != nodes.end(); ++it) {
    const std::string name = it->first.Scalar();
    const YAML::Node spec = it->second;
    const std::string at = "nodes." + name;
    if (!spec.IsMap() || spec.size() == 0) {
      problems->Add(it->first, at,
                    "expected a mapping with one of process, systemd, docker or command, and any of network, proxy, "
                    "data_dir");
      continue;
    }
    // Misspelt keys first, each with its suggestion; then at most one way
    // of acting on the node's processes.
    problems->CheckKeys(spec, at + ".", {"process", "systemd", "docker", "command", "network", "proxy", "data_dir"});
    std::vector<std::string> kinds;
    for (auto k = spec.begin(); k != spec.end(); ++k) {
      const std::string kind = k->first.Scalar();
      if (kind == "process" || kind == "systemd" || kind == "docker" || kind == "command") kinds.push_back(kind);
    }
    if (kinds.size() > 1) {
      problems->Add(it->first, at,
                    "expected one of process, systemd, docker or command, found " + Join(kinds, " and "));
      continue;
    }
    NodeActions n;
    n.kind = NodeActions::Kind::kNone;
    for (auto k = spec.begin(); k != spec.end(); ++k) {
      const std::string kind = k->first.Scalar();
      if (kind == "network") {
        fa.network_->Declare(name, NetworkSpec::FromYaml(k->second, at + ".network", problems));
      } else if (kind == "proxy") {
        fa.proxy_->Declare(name, ProxySpec::FromYaml(k->second, at + ".proxy", problems));
      } else if (kind == "process" || kind == "systemd" || kind == "docker" || kind == "command") {
        n = ProcessActions(kind, k->second, at + "." + kind, problems);
      }
    }
    if (const YAML::Node dir = spec["data_dir"]) {
      if (!dir.IsScalar() || dir.Scalar().empty() || dir.Scalar()[0] != '/') {
        problems->Add(dir, at + ".data_dir", "expected an absolute path");
      } else {
        n.data_dir = dir.Scalar();
      }
    }
    fa.nodes_[name] = std::move(n);
  }
  return fa;
}

const NodeActions* FaultActions::Find(const std::string& node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? nullptr : &it->second;
}

std::vector<std::string> FaultActions::nodes() const {
  std::vector<std::string> names;
  for (const auto& [name, n] : nodes_) names.push_back(name);
  return names;
}

bool FaultActions::ByProxy(const std::string& action, const std::string& node, const v1::NetFault& net) const {
  return proxy_->Has(node) && IsProxyAction(action) && action != "heal" && net.method() != "kernel";
}

Status FaultActions::Check(const std::string& action, const std::string& node, const v1::NetFault& net,
                           bool probe_host) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return Status::Error("node '" + node + "' is not declared in this agent's config");
  if (!IsFaultAction(action)) return Status::Error("unknown action '" + action + "'");
  const NodeActions& n = it->second;
  if (IsDiskFaultAction(action)) {
    if (n.data_dir.empty()) {
      return Status::Error("node '" + node + "' declares no data_dir: to " + action + " (data_dir: PATH)");
    }
    if (action == "slow-disk" && n.kind != NodeActions::Kind::kProcess) {
      return Status::Error("node '" + node + "' declares no process: whose I/O slow-disk could throttle");
    }
    return action == "slow-disk" && probe_host ? CheckSlowDisk(n.data_dir) : Status::Ok();
  }
  // heal undoes network faults, the proxy's and a fill: a node with any of
  // them may be healed.
  if (action == "heal" && (!n.data_dir.empty() || proxy_->Has(node))) return Status::Ok();
  if (ByProxy(action, node, net)) return Status::Ok();
  if (net.method() == "proxy") {
    return Status::Error("node '" + node + "' declares no proxy: in this agent's config (method: proxy)");
  }
  if (IsNetworkFaultAction(action)) return network_->Check(action, node, net.direction());
  if (n.kind == NodeActions::Kind::kNone) {
    return Status::Error("node '" + node + "' declares no process, systemd, docker or command to " + action + " it");
  }
  if (IsTopologyAction(action) && n.kind != NodeActions::Kind::kCommand) {
    return Status::Error("node '" + node + "' declares no " + action + " command (command: {" + action +
                         ": [argv]} in the agent's config)");
  }
  if (n.kind == NodeActions::Kind::kCommand && !n.commands.count(action) &&
      !(action == "restart" && n.commands.count("stop") && n.commands.count("start"))) {
    return Status::Error("action '" + action + "' is not declared for node '" + node + "'");
  }
  if (n.kind == NodeActions::Kind::kProcess && (action == "start" || action == "restart") && n.start.empty()) {
    return Status::Error("node '" + node + "' has no start command");
  }
  return Status::Ok();
}

Status FaultActions::Run(const std::string& action, const std::string& node, const v1::NetFault& net,
                         const v1::DiskFault& disk) const {
  Status s = Check(action, node, net);
  if (!s.ok()) return s;
  const NodeActions& n = nodes_.at(node);
  if (action == "fill") return Fill(n.data_dir, disk.free_bytes());
  if (action == "slow-disk") {
    auto pids = FindPids(n);
    if (!pids.ok()) return pids.status();
    return SlowDisk(node, n.data_dir, *pids, disk.bytes_per_s(), disk.iops());
  }
  if (ByProxy(action, node, net)) return proxy_->Apply(node, action, net);
  if (action == "heal" && (!n.data_dir.empty() || proxy_->Has(node))) {
    if (!n.data_dir.empty()) s = ReleaseFill(n.data_dir);
    if (s.ok() && !n.data_dir.empty()) s = ReleaseSlowDisk(node);
    if (s.ok() && proxy_->Has(node)) s = proxy_->Apply(node, action, net);
    // Without network: in its config the node has nothing more to heal.
    if (!s.ok() || !network_->Has(node)) return s;
  }
  if (IsNetworkFaultAction(action)) {
    return network_->Run(action, node, net, [this](const std::vector<std::string>& argv) { return Exec(argv); });
  }
  if (action == "restart") {
    if (n.kind == NodeActions::Kind::kCommand && n.commands.count("restart")) {
      return Exec(n.commands.at("restart"));
    }
    s = Run("stop", node);
    return s.ok() ? Run("start", node) : s;
  }
  return RunProcess(action, n);
}

Status FaultActions::RunProcess(const std::string& action, const NodeActions& n) const {
  switch (n.kind) {
    case NodeActions::Kind::kNone:
      break;
    case NodeActions::Kind::kProcess:
      if (action == "kill") return Signal(n, SIGKILL);
      if (action == "stop") return Signal(n, SIGTERM, timeout_ms_);
      if (action == "pause") return Signal(n, SIGSTOP);
      if (action == "resume") return Signal(n, SIGCONT);
      return Exec(n.start);
    case NodeActions::Kind::kSystemd:
      if (action == "kill") return Exec({"systemctl", "kill", "-s", "KILL", n.unit});
      if (action == "pause") return Exec({"systemctl", "kill", "-s", "STOP", n.unit});
      if (action == "resume") return Exec({"systemctl", "kill", "-s", "CONT", n.unit});
      return Exec({"systemctl", action, n.unit});
    case NodeActions::Kind::kDocker:
      if (action == "pause") return Exec({"docker", "pause", n.container});
      if (action == "resume") return Exec({"docker", "unpause", n.container});
      return Exec({"docker", action, n.container});
    case NodeActions::Kind::kCommand:
      return Exec(n.commands.at(action));
  }
  return Status::Error("unreachable");
}

void FaultActions::ClearLeftovers() const {
  network_->Clear([this](const std::vector<std::string>& argv) { return Exec(argv); });
  for (const auto& [name, n] : nodes_) {
    if (n.data_dir.empty()) continue;
    bool released = false;
    Status s = ReleaseFill(n.data_dir, &released);
    if (released) SLOG(kWarn) << "node " << name << ": removed a disk fill a previous agent left";
    if (!s.ok()) SLOG(kWarn) << "node " << name << ": " << s.message();
    s = ReleaseSlowDisk(name, &released);
    if (released) SLOG(kWarn) << "node " << name << ": removed a slow-disk throttle a previous agent left";
    if (!s.ok()) SLOG(kWarn) << "node " << name << ": " << s.message();
  }
}

}  // namespace stampede::agent

#include "agent/fault_actions.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "agent/agent_config.h"

namespace stampede::agent {
namespace {

StatusOr<FaultActions> Parse(const std::string& text, const std::string& file) {
  auto c = AgentConfig::Parse(text, file);
  if (!c.ok()) return c.status();
  return c->faults;
}

TEST(FaultActionsTest, RefusesWhatIsNotDeclared) {
  auto fa =
      Parse("nodes:\n  db1: {command: {kill: [/bin/true]}}\n  db2: {process: {pidfile: /nonexistent}}\n", "agent.yaml");
  ASSERT_TRUE(fa.ok()) << fa.status().message();
  EXPECT_TRUE(fa->Check("kill", "db1").ok());
  EXPECT_FALSE(fa->Check("start", "db1").ok());
  EXPECT_NE(fa->Check("kill", "db9").message().find("not declared"), std::string::npos);
  EXPECT_FALSE(fa->Check("rm -rf /", "db1").ok());
  EXPECT_FALSE(fa->Check("start", "db2").ok());  // no start command
  EXPECT_TRUE(fa->Run("kill", "db1").ok());
  EXPECT_FALSE(fa->Run("kill", "db2").ok());
}

TEST(FaultActionsTest, AProxyNodeTakesProxyFaultsAndKernelOnesNeedNetwork) {
  auto fa = Parse("nodes:\n  db1: {proxy: {listen: 127.0.0.1:1, upstream: 127.0.0.1:2}}\n", "agent.yaml");
  ASSERT_TRUE(fa.ok()) << fa.status().message();
  v1::NetFault kernel;
  kernel.set_method("kernel");
  for (const char* a : {"delay", "bandwidth", "reset", "timeout", "slow-close", "heal"}) {
    EXPECT_TRUE(fa->Check(a, "db1").ok()) << a;
  }
  EXPECT_NE(fa->Check("delay", "db1", kernel).message().find("declares no network"), std::string::npos);
  EXPECT_FALSE(fa->Check("partition", "db1").ok());
  EXPECT_FALSE(fa->Check("kill", "db1").ok());
  v1::NetFault proxy;
  proxy.set_method("proxy");
  auto net = Parse("nodes:\n  db2: {network: {interface: eth0}}\n", "agent.yaml");
  ASSERT_TRUE(net.ok());
  EXPECT_NE(net->Check("delay", "db2", proxy).message().find("declares no proxy"), std::string::npos);
  // The kernel shapes what leaves: an inbound delay is refused when the
  // run is admitted, not when the fault fires.
  v1::NetFault inbound;
  inbound.set_direction("in");
  EXPECT_TRUE(net->Check("delay", "db2").ok());
  EXPECT_NE(net->Check("delay", "db2", inbound).message().find("direction: out"), std::string::npos);
  EXPECT_NE(net->Check("bandwidth", "db2", inbound).message().find("direction: out"), std::string::npos);
  auto bad = Parse("nodes:\n  db1: {proxy: {listen: 127.0.0.1, upstream: [x]}}\n", "agent.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "agent.yaml:2:25: nodes.db1.proxy.listen: expected HOST:PORT like 127.0.0.1:16379\n"
            "agent.yaml:2:46: nodes.db1.proxy.upstream: expected HOST:PORT like 127.0.0.1:16379");
}

// Its last lines, from stdout and stderr alike (redis-cli --cluster says
// why on stdout), and where all of its output was kept.
TEST(FaultActionsTest, AFailedCommandSaysWhyInItsLastLinesOfOutput) {
  auto fa = Parse(
      "nodes:\n  db1: {command: {kill: [sh, -c, 'echo zero; echo first >&2; echo; echo \"the reason\"; exit 3']}}\n",
      "agent.yaml");
  ASSERT_TRUE(fa.ok()) << fa.status().message();
  Status s = fa->Run("kill", "db1");
  ASSERT_FALSE(s.ok());
  const std::string said = ": exited with 3: zero | first | the reason (all of its output: /tmp/stampede-fault-sh-";
  const size_t at = s.message().find(said);
  ASSERT_NE(at, std::string::npos) << s.message();
  const std::string kept = s.message().substr(at + said.size() - std::string("/tmp/stampede-fault-sh-").size());
  const std::string path = kept.substr(0, kept.size() - 1);  // without the closing parenthesis
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  EXPECT_EQ(all.str(), "zero\nfirst\n\nthe reason\n");
  unlink(path.c_str());
  auto quiet = Parse("nodes:\n  db1: {command: {kill: [sh, -c, 'exit 4']}}\n", "agent.yaml");
  ASSERT_TRUE(quiet.ok());
  EXPECT_NE(quiet->Run("kill", "db1").message().find(": exited with 4, and wrote nothing"), std::string::npos);
}

// A start command may leave a server running that writes to the stderr it
// inherited long after the command returned: that must not kill it.
TEST(FaultActionsTest, AServerAStartCommandLeavesBehindMayStillWriteToStderr) {
  char dir[] = "/tmp/stampede-fa-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string mark = std::string(dir) + "/alive";
  auto fa = Parse("nodes:\n  db1: {command: {start: [sh, -c, '(sleep 0.3; echo late >&2; echo late >&2; touch " + mark +
                      ") & exit 0']}}\n",
                  "agent.yaml");
  ASSERT_TRUE(fa.ok()) << fa.status().message();
  ASSERT_TRUE(fa->Run("start", "db1").ok());
  for (int i = 0; i < 100 && access(mark.c_str(), F_OK) != 0; ++i) usleep(20000);
  EXPECT_EQ(access(mark.c_str(), F_OK), 0) << "the background child died writing to stderr";
  unlink(mark.c_str());
  rmdir(dir);
}

// The agent blocks SIGTERM and ignores SIGPIPE; what its commands start
// must not inherit that, or a server started by `start` or `join` could
// never be stopped with SIGTERM.
TEST(FaultActionsTest, CommandsStartWithDefaultSignals) {
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &term, &old), 0);
  auto* old_pipe = signal(SIGPIPE, SIG_IGN);
  // SIGINT and SIGTERM (bits 0x2, 0x4000) not blocked, SIGPIPE (0x1000) not
  // ignored, in the command's own process (the shell's /proc/$$).
  auto fa = Parse(
      "nodes:\n  db1: {command: {start: [sh, -c, 'set -- $(grep -E \"^Sig(Blk|Ign)\" /proc/$$/status); "
      "[ $((0x$2 & 0x4002)) = 0 ] && [ $((0x$4 & 0x1000)) = 0 ] || { echo $* >&2; exit 1; }']}}\n",
      "agent.yaml");
  ASSERT_TRUE(fa.ok()) << fa.status().message();
  Status s = fa->Run("start", "db1");
  signal(SIGPIPE, old_pipe);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  EXPECT_TRUE(s.ok()) << "the command inherited blocked or ignored signals: " << s.message();
}

TEST(FaultActionsTest, FillNeedsADataDirAndHealUndoesIt) {
  char dir[] = "/tmp/stampede-fa-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string data = std::string(dir) + "/data";
  ASSERT_EQ(mkdir(data.c_str(), 0700), 0);
  auto fa = Parse("nodes:\n  db1: {data_dir: " + data + "}\n  db2: {command: {kill: [/bin/true]}}\n", "agent.yaml");
  ASSERT_TRUE(fa.ok()) << fa.status().message();
  EXPECT_TRUE(fa->Check("fill", "db1").ok());
  EXPECT_TRUE(fa->Check("heal", "db1").ok());  // no network: needed to heal a fill
  EXPECT_NE(fa->Check("fill", "db2").message().find("declares no data_dir"), std::string::npos);
  // Everything free but a little: a small file, removed by heal.
  v1::DiskFault leave_all;
  leave_all.set_free_bytes(kMaxFillFreeBytes);
  ASSERT_TRUE(fa->Run("fill", "db1", {}, leave_all).ok());
  ASSERT_TRUE(fa->Run("heal", "db1").ok());
  leave_all.set_free_bytes(kMaxFillFreeBytes + 1);  // over the bound: the agent checks it again
  EXPECT_FALSE(fa->Run("fill", "db1", {}, leave_all).ok());
  rmdir(data.c_str());
  rmdir(dir);
}

TEST(FaultActionsTest, ShellStringsAreRejected) {
  auto fa = Parse("nodes:\n  db1: {command: {kill: \"pkill mysqld\"}}\n", "agent.yaml");
  ASSERT_FALSE(fa.ok());
  EXPECT_NE(fa.status().message().find("agent.yaml:2:"), std::string::npos) << fa.status().message();
  EXPECT_NE(fa.status().message().find("never a shell string"), std::string::npos);
}

TEST(FaultActionsTest, KillsAndPausesAProcessByPidfile) {
  pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  std::string pidfile = ::testing::TempDir() + "/child.pid";
  std::ofstream(pidfile) << child;
  auto fa = Parse("nodes:\n  n: {process: {pidfile: " + pidfile + "}}\n", "a.yaml");
  ASSERT_TRUE(fa.ok()) << fa.status().message();
  ASSERT_TRUE(fa->Run("pause", "n").ok());
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, WUNTRACED), child);
  EXPECT_TRUE(WIFSTOPPED(status));
  ASSERT_TRUE(fa->Run("kill", "n").ok());
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

TEST(FaultActionsTest, ACommandThatHangsIsCutOffAfterTheTimeout) {
  auto c =
      AgentConfig::Parse("nodes:\n  db1: {command: {start: [/bin/sleep, '30']}}\nfault_timeout: 1s\n", "agent.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const auto start = std::chrono::steady_clock::now();
  Status s = c->faults.Run("start", "db1");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cut off after 1 s (fault_timeout"), std::string::npos) << s.message();
  EXPECT_LT(took, 3.0);
}

TEST(AgentConfigTest, ReadsTheCoordinatorLossAndSpoolSettings) {
  auto c = AgentConfig::Parse(
      "coordinator_lost: {resume_paused_after: 10s, stop_run_after: 5m}\nspool: {dir: /tmp/s, max_size: 64MB}\n",
      "agent.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->resume_paused_after_ms, 10000);
  EXPECT_EQ(c->stop_run_after_ms, 300000);
  EXPECT_EQ(c->spool_dir, "/tmp/s");
  EXPECT_EQ(c->spool_max_bytes, 64u << 20);
  auto bad = AgentConfig::Parse("spool: {max_size: lots}\n", "agent.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("agent.yaml:1:"), std::string::npos) << bad.status().message();
  auto typo = AgentConfig::Parse("coordinator_lost: {resume_paused: 10s}\n", "agent.yaml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("coordinator_lost.resume_paused: unknown key"), std::string::npos)
      << typo.status().message();
}

// Every problem at once, top to bottom, each with its place (and a
// suggestion for a misspelt key), as a plan's are.
TEST(AgentConfigTest, ReportsEveryProblem) {
  auto c = AgentConfig::Parse(
      "nodes:\n"
      "  db1: {proces: {pidfile: /x}}\n"
      "  db2: {process: {pidfile: /y, start: 'systemctl start db'}}\n"
      "fault_timout: 10s\n"
      "spool: {max_size: 1KB}\n",
      "agent.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "agent.yaml:2:9: nodes.db1.proces: unknown key, did you mean 'process'?\n"
            "agent.yaml:3:39: nodes.db2.process.start: expected an argv list like [systemctl, start, db], never a "
            "shell string\n"
            "agent.yaml:4:1: fault_timout: unknown key, did you mean 'fault_timeout'?\n"
            "agent.yaml:5:19: spool.max_size: expected at least 1MB");
}

// A node's misspelt way of acting is named with its suggestion; two ways
// at once are refused by name.
TEST(AgentConfigTest, NamesANodesWrongOrExtraKind) {
  auto c = AgentConfig::Parse(
      "nodes:\n"
      "  db1: {comand: {kill: [/bin/true]}}\n"
      "  db2: {process: {pidfile: /x}, systemd: {unit: db.service}}\n"
      "  db3: []\n",
      "agent.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "agent.yaml:2:9: nodes.db1.comand: unknown key, did you mean 'command'?\n"
            "agent.yaml:3:3: nodes.db2: expected one of process, systemd, docker or command, found process and "
            "systemd\n"
            "agent.yaml:4:3: nodes.db3: expected a mapping with one of process, systemd, docker or command, and any "
            "of network, proxy, data_dir");
}

// Two `nodes:` blocks: yaml-cpp would keep the first and drop the second.
TEST(AgentConfigTest, RefusesAKeyWrittenTwice) {
  auto c = AgentConfig::Parse(
      "nodes:\n  db1: {command: {kill: [/bin/true]}}\nnodes:\n  db2: {command: {kill: [/bin/true]}}\n", "agent.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "agent.yaml:3:1: nodes: written twice in one mapping (first at 1:1; only one may be given)");
}

}  // namespace
}  // namespace stampede::agent

#include "agent/fault_actions.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

namespace stampede::agent {
namespace {

TEST(FaultActionsTest, RefusesWhatIsNotDeclared) {
  auto fa = FaultActions::Parse(
      "nodes:\n  db1: {command: {kill: [/bin/true]}}\n  db2: {process: {pidfile: /nonexistent}}\n",
      "agent.yaml");
  ASSERT_TRUE(fa.ok()) << fa.status().message();
  EXPECT_TRUE(fa->Check("kill", "db1").ok());
  EXPECT_FALSE(fa->Check("start", "db1").ok());
  EXPECT_NE(fa->Check("kill", "db9").message().find("not declared"), std::string::npos);
  EXPECT_FALSE(fa->Check("rm -rf /", "db1").ok());
  EXPECT_FALSE(fa->Check("start", "db2").ok());  // no start command
  EXPECT_TRUE(fa->Run("kill", "db1").ok());
  EXPECT_FALSE(fa->Run("kill", "db2").ok());
}

TEST(FaultActionsTest, ShellStringsAreRejected) {
  auto fa = FaultActions::Parse("nodes:\n  db1: {command: {kill: \"pkill mysqld\"}}\n", "agent.yaml");
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
  auto fa = FaultActions::Parse("nodes:\n  n: {process: {pidfile: " + pidfile + "}}\n", "a.yaml");
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

}  // namespace
}  // namespace stampede::agent

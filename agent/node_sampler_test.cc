#include "agent/node_sampler.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/agent_config.h"

namespace stampede::agent {
namespace {

std::string TempDir() {
  std::string dir = std::filesystem::temp_directory_path() / ("node-sampler-XXXXXX");
  return mkdtemp(dir.data());
}

// A data directory's usage counts every file's blocks, in subdirectories
// too, as du does; a missing directory is not known (-1).
TEST(NodeSamplerTest, DiskUsageCountsEveryFileUnderTheDirectory) {
  const std::string dir = TempDir();
  std::filesystem::create_directories(dir + "/sub/deeper");
  {
    std::ofstream a(dir + "/a");
    a << std::string(1 << 20, 'x');
    std::ofstream b(dir + "/sub/deeper/b");
    b << std::string(300000, 'y');
  }
  const int64_t bytes = DiskUsage(dir);
  EXPECT_GE(bytes, (1 << 20) + 300000);
  EXPECT_LT(bytes, (1 << 20) + 300000 + 200000);
  EXPECT_EQ(DiskUsage(dir + "/missing"), -1);
  std::filesystem::remove_all(dir);
}

// A process node (here: this test, by pidfile) reports its memory and CPU;
// once its pidfile names no process it is not running.
TEST(NodeSamplerTest, AProcessNodeReportsItsMemoryAndCpu) {
  const std::string dir = TempDir();
  {
    std::ofstream pid(dir + "/node.pid");
    pid << getpid() << "\n";
  }
  auto config = AgentConfig::Parse("nodes:\n  db1: {process: {pidfile: " + dir + "/node.pid}, data_dir: " + dir + "}\n",
                                   "agent.yaml");
  ASSERT_TRUE(config.ok()) << config.status().message();
  const NodeActions* node = config->faults.Find("db1");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->data_dir, dir);
  v1::NodeStats s = SampleNode("db1", *node);
  EXPECT_EQ(s.node(), "db1");
  EXPECT_TRUE(s.running());
  EXPECT_GT(s.rss_bytes(), 1 << 20);
  EXPECT_GE(s.cpu_s(), 0);
  EXPECT_GT(s.disk_bytes(), 0);
  {
    std::ofstream pid(dir + "/node.pid", std::ios::trunc);
    pid << "999999999\n";
  }
  s = SampleNode("db1", *node);
  EXPECT_FALSE(s.running());
  EXPECT_EQ(s.rss_bytes(), -1);
  std::filesystem::remove_all(dir);
}

// A data directory the agent may not list is not known (-1), not the few
// blocks of the directory itself. (Root may list anything: then it counts.)
TEST(NodeSamplerTest, ADirectoryItMayNotListIsNotKnown) {
  const std::string dir = TempDir();
  {
    std::ofstream a(dir + "/a");
    a << std::string(1 << 20, 'x');
  }
  ASSERT_EQ(chmod(dir.c_str(), 0), 0);
  const bool can_list = access(dir.c_str(), R_OK | X_OK) == 0;
  const int64_t bytes = DiskUsage(dir);
  chmod(dir.c_str(), 0700);
  if (can_list) {
    EXPECT_GE(bytes, 1 << 20);
  } else {
    EXPECT_EQ(bytes, -1);
  }
  std::filesystem::remove_all(dir);
}

TEST(NodeSamplerTest, DataDirMustBeAnAbsolutePath) {
  auto config = AgentConfig::Parse("nodes:\n  db1: {process: {exe: /usr/sbin/x}, data_dir: var/lib}\n", "agent.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(), "agent.yaml:2:48: nodes.db1.data_dir: expected an absolute path");
  EXPECT_TRUE(AgentConfig::Parse("nodes:\n  db1: {data_dir: /var/lib/x}\n", "agent.yaml").ok());
}

}  // namespace
}  // namespace stampede::agent

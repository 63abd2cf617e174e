#include "agent/cpu_budget.h"

#include <gtest/gtest.h>

#include <map>

namespace stampede::agent {
namespace {

ReadFileFn Files(std::map<std::string, std::string> files) {
  return [files](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

TEST(CpuBudgetTest, CgroupV1QuotaIsTheTightestAlongThePath) {
  const std::string self = "4:memory:/x\n1:cpu:/load/agent\n0::/\n";
  auto q = CgroupCpuQuota(self, Files({{"/sys/fs/cgroup/cpu/load/agent/cpu.cfs_quota_us", "30000\n"},
                                       {"/sys/fs/cgroup/cpu/load/agent/cpu.cfs_period_us", "100000\n"},
                                       {"/sys/fs/cgroup/cpu/load/cpu.cfs_quota_us", "-1\n"},
                                       {"/sys/fs/cgroup/cpu/load/cpu.cfs_period_us", "100000\n"}}));
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(*q, 0.3);
  // cpu,cpuacct mounted together, and no quota at all.
  EXPECT_FALSE(
      CgroupCpuQuota("2:cpu,cpuacct:/\n", Files({{"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1"},
                                                 {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000"}})));
}

TEST(CpuBudgetTest, CgroupV2CpuMax) {
  auto q = CgroupCpuQuota("0::/system.slice/stampede-agent.service\n",
                          Files({{"/sys/fs/cgroup/system.slice/stampede-agent.service/cpu.max", "max 100000\n"},
                                 {"/sys/fs/cgroup/system.slice/cpu.max", "150000 100000\n"}}));
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(*q, 1.5);
  EXPECT_FALSE(CgroupCpuQuota("0::/\n", Files({{"/sys/fs/cgroup/cpu.max", "max 100000\n"}})));
}

TEST(CpuBudgetTest, ThisProcessHasSome) { EXPECT_GT(CpuCoresAllowed(), 0); }

}  // namespace
}  // namespace stampede::agent

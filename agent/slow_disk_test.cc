#include "agent/slow_disk.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace stampede::agent {
namespace {

std::string Mountinfo(const std::string& lines) {
  char path[] = "/tmp/stampede-mountinfo-XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  std::ofstream(path) << lines;
  return path;
}

TEST(SlowDiskTest, TheIoControllerIsFoundOrItsAbsenceSaid) {
  const std::string none = Mountinfo(
      "30 24 0:26 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
      "35 24 0:31 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
  auto root = FindIoCgroupRoot(none);
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.status().message(),
            "slow-disk needs cgroup v2's io controller or v1's blkio, and neither is mounted here");
  const std::string v1 = Mountinfo(
      "30 24 0:26 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
      "33 24 0:29 / /sys/fs/cgroup/blkio rw,nosuid,nodev,noexec,relatime shared:9 - cgroup cgroup rw,blkio\n");
  root = FindIoCgroupRoot(v1);
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->path, "/sys/fs/cgroup/blkio");
  EXPECT_FALSE(root->v2);
  unlink(none.c_str());
  unlink(v1.c_str());
}

TEST(SlowDiskTest, AFilesystemWithoutABlockDeviceIsRefused) {
  if (access("/dev/shm", F_OK) != 0) GTEST_SKIP() << "no /dev/shm";
  auto dev = BlockDeviceOf("/dev/shm");
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.status().message().find("without a block device"), std::string::npos) << dev.status().message();
  EXPECT_FALSE(BlockDeviceOf("/nonexistent/dir").ok());
}

TEST(SlowDiskTest, ReleasingWhatWasNeverThrottledIsNoError) {
  bool released = true;
  EXPECT_TRUE(ReleaseSlowDisk("never-throttled-node", &released).ok());
  EXPECT_FALSE(released);
}

}  // namespace
}  // namespace stampede::agent

#include "agent/disk_faults.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "proto/fault_action.h"

namespace stampede::agent {
namespace {

uint64_t Avail(const std::string& dir) {
  struct statvfs fs;
  EXPECT_EQ(statvfs(dir.c_str(), &fs), 0);
  return uint64_t(fs.f_bavail) * fs.f_frsize;
}

class DiskFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/stampede-disk-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    data_ = root_ + "/data";
    ASSERT_EQ(mkdir(data_.c_str(), 0700), 0);
  }
  void TearDown() override {
    (void)ReleaseFill(data_);
    rmdir(data_.c_str());
    rmdir(root_.c_str());
  }
  std::string root_, data_;
};

// The file goes beside the data directory, where the database never sees
// it; a fill of all but the free space there allocates the difference.
TEST_F(DiskFaultsTest, FillsBesideTheDataDirectoryAndHealRemovesIt) {
  auto path = FillPath(data_);
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(*path, root_ + "/.stampede-fill");
  // Allocate about 4 MiB: leave what is free now less that.
  const uint64_t want = 4 << 20;
  std::string note;
  ASSERT_TRUE(Fill(data_, Avail(data_) - want, &note).ok()) << note;
  struct stat st;
  ASSERT_EQ(stat(path->c_str(), &st), 0) << note;
  EXPECT_GT(uint64_t(st.st_blocks) * 512, want / 2) << note;  // others may write meanwhile
  EXPECT_LE(uint64_t(st.st_size), want + (1 << 20)) << note;
  bool released = false;
  ASSERT_TRUE(ReleaseFill(data_, &released).ok());
  EXPECT_TRUE(released);
  EXPECT_NE(access(path->c_str(), F_OK), 0);
  ASSERT_TRUE(ReleaseFill(data_, &released).ok());  // nothing left: fine
  EXPECT_FALSE(released);
}

TEST_F(DiskFaultsTest, AskingForMoreFreeThanThereIsAllocatesNothing) {
  std::string note;
  ASSERT_TRUE(Fill(data_, kMaxFillFreeBytes, &note).ok());
  EXPECT_NE(note.find("already"), std::string::npos) << note;
  EXPECT_NE(access((root_ + "/.stampede-fill").c_str(), F_OK), 0);
  EXPECT_FALSE(Fill(data_, kMaxFillFreeBytes + 1).ok());
  EXPECT_FALSE(Fill(root_ + "/missing", 0).ok());
  bool released = true;
  EXPECT_TRUE(ReleaseFill(root_ + "/missing", &released).ok());  // a node yet to join: nothing to heal
  EXPECT_FALSE(released);
}

}  // namespace
}  // namespace stampede::agent

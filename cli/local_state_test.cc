#include "cli/local_state.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace stampede::cli {
namespace {

class LocalStateTest : public testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/stampede-local-state-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(LocalStateTest, TokenIsCreatedPrivateAndKept) {
  const std::string path = dir_ + "/state/coordinator.token";
  auto first = LoadOrCreateToken(path);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->size(), 64u);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat((dir_ + "/state").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto again = LoadOrCreateToken(path);  // a restarted coordinator
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *first);
  auto read = ReadToken(path);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, *first);
}

TEST_F(LocalStateTest, TokenReadableByOthersIsRefused) {
  const std::string path = dir_ + "/coordinator.token";
  std::ofstream(path) << "0123456789abcdef0123\n";
  chmod(path.c_str(), 0644);
  auto t = LoadOrCreateToken(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("chmod 600 " + path), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("0644"), std::string::npos);
  EXPECT_EQ(t.status().message().find("0123456789abcdef"), std::string::npos) << "never echo the token";
}

TEST_F(LocalStateTest, MissingTokenIsNoTokenForASubmitter) {
  auto t = ReadToken(dir_ + "/absent");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, "");
  std::ofstream(dir_ + "/short") << "abc\n";
  EXPECT_FALSE(ReadToken(dir_ + "/short").ok());
}

}  // namespace
}  // namespace stampede::cli

#include "coordinator/result_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace stampede::coordinator {
namespace {
namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ResultFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("result_files_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "20261201-100000-x" / "sub");
  }
  void TearDown() override { fs::remove_all(root_); }
  void Put(const std::string& name, const std::string& text) {
    std::ofstream(root_ / "20261201-100000-x" / name, std::ios::binary) << text;
  }
  fs::path root_;
};

TEST_F(ResultFilesTest, RoundTripInChunks) {
  const std::string big(kResultChunkBytes * 2 + 17, 'j');
  Put("journal.jsonl", big);
  Put("summary.json", "{}");
  Put("empty.csv", "");
  std::vector<v1::ResultChunk> chunks;
  ASSERT_TRUE(SendResultFiles(root_.string(), "20261201-100000-x", [&](const v1::ResultChunk& c) {
                chunks.push_back(c);
                return true;
              }).ok());
  EXPECT_EQ(chunks.size(), 5u);  // empty.csv, journal (3 chunks), summary.json; not the subdirectory
  ResultFileWriter w((root_ / "copy").string());
  for (const auto& c : chunks) ASSERT_TRUE(w.Write(c).ok()) << c.file();
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_EQ(w.files(), 3u);
  EXPECT_EQ(Slurp(root_ / "copy" / "journal.jsonl"), big);
  EXPECT_EQ(Slurp(root_ / "copy" / "summary.json"), "{}");
  EXPECT_TRUE(fs::exists(root_ / "copy" / "empty.csv"));
}

TEST_F(ResultFilesTest, RefusesPathsAndMissingRuns) {
  auto never = [](const v1::ResultChunk&) { return true; };
  EXPECT_FALSE(SendResultFiles(root_.string(), "../etc", never).ok());
  EXPECT_FALSE(SendResultFiles(root_.string(), "..", never).ok());
  EXPECT_FALSE(SendResultFiles(root_.string(), "a/b", never).ok());
  EXPECT_FALSE(SendResultFiles(root_.string(), "20261201-nothere", never).ok());
  ResultFileWriter w((root_ / "copy").string());
  v1::ResultChunk c;
  c.set_file("../escape");
  EXPECT_FALSE(w.Write(c).ok());
  c.set_file("a.json");
  c.set_offset(5);  // a file must start at 0
  EXPECT_FALSE(w.Write(c).ok());
  EXPECT_FALSE(fs::exists(root_ / "escape"));
}

TEST_F(ResultFilesTest, ANewRunGetsItsOwnDirectoryWithItsPlan) {
  auto first = MakeRunDir(root_.string(), "", "20261201-100000-x", "name: x\n");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(*first, root_.string() + "/20261201-100000-x-2");  // the fixture's run has that name
  EXPECT_EQ(Slurp(*first + "/plan.yaml"), "name: x\n");
  auto again = MakeRunDir(root_.string(), "", "20261201-100000-x", "");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, root_.string() + "/20261201-100000-x-3");
  auto exact = MakeRunDir(root_.string(), (root_ / "mine").string(), "ignored", "y");
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(Slurp(root_ / "mine" / "plan.yaml"), "y");
  // An exact directory that holds another run's journal is not reused: the
  // two runs' records would be mixed.
  std::ofstream(root_ / "mine" / "journal.jsonl") << "{\"type\":\"run\"}\n";
  auto reused = MakeRunDir(root_.string(), (root_ / "mine").string(), "ignored", "z");
  ASSERT_FALSE(reused.ok());
  EXPECT_EQ(reused.status().message(), "results: " + (root_ / "mine").string() +
                                           " already holds a run (journal.jsonl); name a new or empty directory "
                                           "with --results");
  EXPECT_EQ(Slurp(root_ / "mine" / "plan.yaml"), "y");
  Put("file", "");
  auto blocked = MakeRunDir(root_.string(), (root_ / "20261201-100000-x" / "file" / "d").string(), "", "");
  ASSERT_FALSE(blocked.ok());
  EXPECT_NE(blocked.status().message().find("results: cannot create"), std::string::npos);
}

}  // namespace
}  // namespace stampede::coordinator

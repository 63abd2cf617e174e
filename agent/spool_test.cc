#include "agent/spool.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace stampede::agent {
namespace {

v1::AgentMessage Snap(uint32_t phase, uint32_t seq) {
  v1::AgentMessage m;
  m.mutable_snapshot()->set_phase_index(phase);
  m.mutable_snapshot()->set_seq(seq);
  m.mutable_snapshot()->set_agent("a1");
  return m;
}

TEST(SpoolTest, ARestartedAgentFindsWhatItsPredecessorSpooled) {
  const std::string dir = ::testing::TempDir() + "/spool-restart";
  std::filesystem::remove_all(dir);
  {
    Spool s(dir, "a1", 1 << 20);
    ASSERT_TRUE(s.Begin("run-1").ok());
    for (uint32_t seq = 0; seq < 5; ++seq) s.Append(0, Snap(0, seq));
    s.Append(1, Snap(1, 0));
  }
  Spool next(dir, "a1", 1 << 20);
  std::string run;
  ASSERT_TRUE(next.LoadPrevious(&run));
  EXPECT_EQ(run, "run-1");
  EXPECT_EQ(next.Since(0).size(), 6u);
  ASSERT_EQ(next.Since(1).size(), 1u);
  EXPECT_EQ(next.Since(1)[0].snapshot().phase_index(), 1u);
  EXPECT_EQ(next.last_phase(), 1u);
  // It goes on appending to the same file.
  next.Append(1, Snap(1, 1));
  std::string id, agent;
  std::vector<SpoolRecord> records;
  ASSERT_TRUE(Spool::Read(dir + "/a1.spool", &id, &agent, &records).ok());
  EXPECT_EQ(records.size(), 7u);
  EXPECT_EQ(agent, "a1");
}

TEST(SpoolTest, KeptUnderTheRunsNameAndDroppedWhenJournalled) {
  const std::string dir = ::testing::TempDir() + "/spool-keep";
  std::filesystem::remove_all(dir);
  Spool s(dir, "a1", 1 << 20);
  ASSERT_TRUE(s.Begin("run-2").ok());
  s.Append(0, Snap(0, 0));
  EXPECT_EQ(s.Keep(), dir + "/a1.run-2.spool");
  EXPECT_TRUE(std::filesystem::exists(dir + "/a1.run-2.spool"));
  ASSERT_TRUE(s.Begin("run-3").ok());
  s.Append(0, Snap(0, 0));
  s.Drop();
  EXPECT_FALSE(std::filesystem::exists(dir + "/a1.spool"));
}

TEST(SpoolTest, BoundedAndTornTailsAreSkipped) {
  const std::string dir = ::testing::TempDir() + "/spool-bound";
  std::filesystem::remove_all(dir);
  Spool s(dir, "a1", 200);
  ASSERT_TRUE(s.Begin("run-4").ok());
  for (uint32_t seq = 0; seq < 50; ++seq) s.Append(0, Snap(0, seq));
  EXPECT_GT(s.dropped(), 0u);
  EXPECT_LT(s.Since(0).size(), 50u);
  {
    std::FILE* f = std::fopen((dir + "/a1.spool").c_str(), "a");
    std::fputs("\x40\x00", f);  // half a length
    std::fclose(f);
  }
  std::string id, agent;
  std::vector<SpoolRecord> records;
  ASSERT_TRUE(Spool::Read(dir + "/a1.spool", &id, &agent, &records).ok());
  EXPECT_EQ(records.size(), s.Since(0).size());
}

}  // namespace
}  // namespace stampede::agent

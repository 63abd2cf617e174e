#include "report/journal.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace stampede::report {
namespace {

TEST(JournalTest, WrittenLinesReadBackAndATornLastLineIsSkippedWithAWarning) {
  const std::string path = ::testing::TempDir() + "/journal_test.jsonl";
  std::remove(path.c_str());
  {
    JournalWriter w;
    ASSERT_TRUE(w.Open(path).ok());
    ASSERT_TRUE(w.Append({{"type", "run"}, {"run_id", "r1"}}).ok());
    ASSERT_TRUE(w.Append({{"type", "end"}, {"ok", true}}).ok());
    w.Close();
  }
  {
    std::ofstream torn(path, std::ios::app);
    torn << "{\"type\":\"sec";
  }
  std::vector<std::string> warnings;
  auto lines = ReadJournal(path, &warnings);
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->size(), 2u);
  EXPECT_EQ((*lines)[0]["run_id"], "r1");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(":3: skipped a line"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("torn"), std::string::npos) << warnings[0];
  EXPECT_FALSE(ReadJournal(path + ".missing").ok());
}

}  // namespace
}  // namespace stampede::report

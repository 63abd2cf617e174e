#include "report/history_check.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace stampede::report {
namespace {

// A history file of the given lines, removed with the test.
class HistoryFile {
 public:
  explicit HistoryFile(const std::vector<std::string>& lines) {
    path_ = ::testing::TempDir() + "/history-" + std::to_string(getpid()) + "-" + std::to_string(counter_++) + ".jsonl";
    std::ofstream out(path_);
    for (const std::string& l : lines) out << l << "\n";
  }
  ~HistoryFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

// Processes 0-9 run on agent a1, 10 and up on a2.
std::string Line(const std::string& type, int process, int64_t time_us, const std::string& value, bool final = false) {
  return R"({"type":")" + type + R"(","f":"txn","process":)" + std::to_string(process) + R"(,"time":)" +
         std::to_string(time_us * 1000) + R"(,"value":)" + value +
         R"(,"phase":"p","endpoint":"127.0.0.1:5432","agent":")" + (process < 10 ? "a1" : "a2") + "\"" +
         (final ? R"(,"final":true})" : "}");
}

// An invoke and its completion.
std::vector<std::string> Txn(const std::string& type, int process, int64_t from_ms, int64_t to_ms,
                             const std::string& invoked, const std::string& completed, bool final = false) {
  return {Line("invoke", process, from_ms, invoked, final), Line(type, process, to_ms, completed, final)};
}

std::vector<std::string> Join(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

record::HistoryChecked Check(const std::vector<std::string>& lines) {
  HistoryFile f(lines);
  auto c = CheckHistory(f.path(), "p", 2);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : record::HistoryChecked{};
}

uint64_t Count(const record::HistoryChecked& c, const std::string& kind) {
  auto it = c.counts.find(kind);
  return it == c.counts.end() ? 0 : it->second;
}

const std::vector<std::string> kFinal = Txn("ok", 0, 900, 901, R"([["r",1,null]])", R"([["r",1,[1,2,3]]])", true);

TEST(HistoryCheckTest, AConsistentHistoryHasNoAnomalies) {
  const auto c = Check(Join({
      Txn("ok", 0, 10, 11, R"([["append",1,1]])", R"([["append",1,1]])"),
      Txn("ok", 1, 12, 13, R"([["r",1,null],["append",1,2]])", R"([["r",1,[1]],["append",1,2]])"),
      Txn("fail", 2, 14, 15, R"([["append",1,9]])", R"([["append",1,9]])"),
      Txn("info", 2, 16, 17, R"([["append",1,3]])", R"([["append",1,3]])"),
      Txn("ok", 0, 20, 21, R"([["r",1,null]])", R"([["r",1,[1,2,3]]])"),
      kFinal,
  }));
  EXPECT_TRUE(c.counts.empty());
  EXPECT_EQ(c.transactions, 5u);
  EXPECT_EQ(c.final_keys, 1u);
  EXPECT_EQ(c.index, 2u);
  EXPECT_EQ(c.note, "");
}

TEST(HistoryCheckTest, AnAcknowledgedAppendMissingFromTheFinalReadIsLost) {
  const auto c = Check(Join({
      Txn("ok", 0, 10, 11, R"([["append",1,7]])", R"([["append",1,7]])"),
      kFinal,
  }));
  EXPECT_EQ(Count(c, "lost"), 1u);
  ASSERT_EQ(c.examples.size(), 1u);
  EXPECT_EQ(c.examples[0].key, 1);
  EXPECT_EQ(c.examples[0].expected, 7);
  EXPECT_EQ(c.examples[0].endpoint, "127.0.0.1:5432");
  EXPECT_NE(c.examples[0].detail.find("missing from the final read [1,2,3] (3)"), std::string::npos);
  ASSERT_EQ(c.seconds.size(), 1u);
  EXPECT_DOUBLE_EQ(c.seconds[0].first, 0.000011);
}

TEST(HistoryCheckTest, DuplicatesIncompatibleOrdersAndAbortedReads) {
  const auto c = Check(Join({
      Txn("fail", 3, 5, 6, R"([["append",1,9]])", R"([["append",1,9]])"),
      Txn("ok", 0, 10, 11, R"([["r",1,null]])", R"([["r",1,[1,1]]])"),
      Txn("ok", 1, 12, 13, R"([["r",1,null]])", R"([["r",1,[2,1]]])"),
      Txn("ok", 2, 14, 15, R"([["r",1,null]])", R"([["r",1,[1,9]]])"),
      kFinal,
  }));
  EXPECT_EQ(Count(c, "duplicate"), 1u);
  EXPECT_EQ(Count(c, "aborted_read"), 1u);
  // [1,1], [2,1] and [1,9] are none of them a prefix of [1,2,3].
  EXPECT_EQ(Count(c, "incompatible_order"), 3u);
}

TEST(HistoryCheckTest, AReadThatBeganAfterAnAcknowledgementMustSeeIt) {
  const auto c = Check(Join({
      Txn("ok", 0, 10, 11, R"([["append",1,1]])", R"([["append",1,1]])"),
      Txn("ok", 0, 20, 21, R"([["append",1,2]])", R"([["append",1,2]])"),
      // Began 29 µs after 2 was acknowledged on its own agent, read only
      // [1]: stale.
      Txn("ok", 1, 50, 51, R"([["r",1,null]])", R"([["r",1,[1]]])"),
      // On another agent, within the clocks' 1 ms margin: not counted.
      Txn("ok", 10, 60, 61, R"([["r",1,null]])", R"([["r",1,[1]]])"),
      // On another agent, 2 ms after: stale.
      Txn("ok", 11, 2021, 2022, R"([["r",1,null]])", R"([["r",1,[1]]])"),
      kFinal,
  }));
  EXPECT_EQ(Count(c, "stale_read"), 2u);
  // The same reads in the dependency graph: a cycle through real time.
  EXPECT_EQ(Count(c, "g_single_realtime"), 1u);
  EXPECT_EQ(c.counts.size(), 2u);
  ASSERT_EQ(c.examples.size(), 3u);
  EXPECT_EQ(c.examples[0].expected, 2);
  EXPECT_NEAR(c.examples[0].lag_s, 29e-6, 1e-12);
  EXPECT_NEAR(c.examples[1].lag_s, 2000e-6, 1e-12);
}

// The file is in time order only within the coordinator's one-second
// reorder window: an acknowledgement that came late is written after later
// ones. A read that began before those later ones must not be held to them.
TEST(HistoryCheckTest, AnAcknowledgementWrittenLateDoesNotMakeAReadStale) {
  const auto c = Check(Join({
      Txn("ok", 0, 10, 11, R"([["append",1,1]])", R"([["append",1,1]])"),
      Txn("ok", 0, 12, 13, R"([["append",1,2]])", R"([["append",1,2]])"),
      Txn("ok", 0, 14, 15, R"([["append",1,3]])", R"([["append",1,3]])"),
      Txn("ok", 0, 29, 30, R"([["append",1,4]])", R"([["append",1,4]])"),
      // Acknowledged at 16, written after 4's acknowledgement at 30.
      Txn("ok", 0, 15, 16, R"([["append",1,5]])", R"([["append",1,5]])"),
      // Began at 17: it must see 1, 2, 3 and 5, not 4.
      Txn("ok", 1, 17, 18, R"([["r",1,null]])", R"([["r",1,[1,2,3,5]]])"),
      // Began at 31: it must see 4 too, and does not.
      Txn("ok", 1, 31, 32, R"([["r",1,null]])", R"([["r",1,[1,2,3,5]]])"),
      Txn("ok", 0, 900, 901, R"([["r",1,null]])", R"([["r",1,[1,2,3,5,4]]])", true),
  }));
  EXPECT_EQ(Count(c, "stale_read"), 1u);
  EXPECT_EQ(Count(c, "g_single_realtime"), 1u);
  ASSERT_EQ(c.examples.size(), 2u);
  EXPECT_EQ(c.examples[0].expected, 4);
}

TEST(HistoryCheckTest, AppendsToKeysWithoutAFinalReadAreNotedNotLost) {
  const auto c = Check(Join({
      Txn("ok", 0, 10, 11, R"([["append",5,1]])", R"([["append",5,1]])"),
      kFinal,
  }));
  EXPECT_TRUE(c.counts.empty());
  EXPECT_EQ(c.note, "1 acknowledged appends to keys without a final read not checked");
}

TEST(HistoryCheckTest, OtherPhasesAndBadLinesAreSkipped) {
  std::vector<std::string> lines = Join({Txn("ok", 0, 10, 11, R"([["append",1,7]])", R"([["append",1,7]])"), kFinal});
  for (std::string& l : lines) l.replace(l.find(R"("phase":"p")"), 11, R"("phase":"q")");
  lines.push_back("not json");
  lines.push_back(R"({"phase":"p","type":"ok","value":[["append","x",1]]})");
  lines.push_back(R"({"phase":"p","type":"ok","value":7})");
  const auto c = Check(lines);
  EXPECT_TRUE(c.counts.empty());
  EXPECT_EQ(c.transactions, 0u);
  HistoryFile f(lines);
  auto phases = HistoryPhases(f.path());
  ASSERT_TRUE(phases.ok());
  EXPECT_EQ(*phases, (std::vector<std::string>{"q", "p"}));
  EXPECT_FALSE(CheckHistory("/nonexistent/history.jsonl", "p", 0).ok());
}

}  // namespace
}  // namespace stampede::report

#include "runs/trends.h"

#include <gtest/gtest.h>

namespace stampede::runs {
namespace {

// One run per value of "mixed read p99 (ms)" (lower is better) beside a
// steady "mixed read ops/s".
std::vector<RunRecord> Runs(const std::vector<double>& p99) {
  std::vector<RunRecord> runs;
  for (size_t i = 0; i < p99.size(); ++i) {
    RunRecord r;
    r.run_id = "r" + std::to_string(i);
    r.plan = "kill";
    r.metrics = {{"mixed read p99 (ms)", p99[i], false}, {"mixed read ops/s", 1000 + double(i % 2), true}};
    runs.push_back(r);
  }
  return runs;
}

TEST(Trends, LatestPastTheNoise) {
  const std::string line = LatestInWords(Runs({10.1, 9.9, 10.0, 10.2, 9.8, 10.0, 15.0}));
  EXPECT_EQ(line.find("6 earlier runs of plan kill: 1 of 2 tracked numbers worse than the noise of the runs before: "
                      "mixed read p99 (ms) 15.0, 50.0% worse than 10.0 ± 0.141 (6 runs)"),
            0u)
      << line;
}

TEST(Trends, WithinTheNoiseOrBetter) {
  EXPECT_EQ(LatestInWords(Runs({10.1, 9.9, 10.0, 10.2, 9.8, 10.0, 10.1})),
            "6 earlier runs of plan kill: every tracked number within the noise of the runs before");
  // Faster is not a regression.
  EXPECT_EQ(LatestInWords(Runs({10.1, 9.9, 10.0, 10.2, 5.0})),
            "4 earlier runs of plan kill: every tracked number within the noise of the runs before");
}

TEST(Trends, FirstRunsSaySo) {
  EXPECT_EQ(LatestInWords(Runs({10})), "the first run of plan kill recorded");
  EXPECT_EQ(LatestInWords(Runs({10, 11, 30})),
            "2 earlier runs of plan kill: not enough history to judge yet (3 runs at one level needed)");
}

// Judged against the level since the last change, not the whole history.
TEST(Trends, TheLevelSinceTheLastChange) {
  std::vector<double> p99 = {10, 10.2, 9.9, 10.1, 10, 9.8, 10.1, 10, 20, 20.3, 19.8, 20.1, 20, 19.9, 20.2, 20.1};
  p99.push_back(20.1);
  EXPECT_NE(LatestInWords(Runs(p99)).find("within the noise"), std::string::npos);
  const std::vector<LevelChange> changes = FindLevelChanges(Runs(p99));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].metric, "mixed read p99 (ms)");
  EXPECT_EQ(changes[0].run, 8u);
  EXPECT_TRUE(changes[0].worse);
  EXPECT_NEAR(changes[0].change, 1.0, 0.05);
}

}  // namespace
}  // namespace stampede::runs

#include "report/headline.h"

#include <gtest/gtest.h>

namespace stampede::report {
namespace {

FaultRecovery Kill(double t) {
  FaultRecovery f;
  f.action = "kill";
  f.node = "node3";
  f.ok = true;
  f.t = f.requested_t = t;
  f.observed = true;
  return f;
}

RunSummary WithWrites(uint64_t ambiguous, uint64_t committed, uint64_t lost) {
  RunSummary s;
  s.ok = true;
  PhaseSummary p;
  p.name = "insert/InsertOne";
  p.group = "insert";
  record::WritesChecked w;
  w.acked = 7979;
  w.ambiguous = ambiguous;
  w.ambiguous_found = committed;
  w.lost = lost;
  p.writes = w;
  s.phases.push_back(p);
  return s;
}

TEST(HeadlineTest, ExplainsACountShortByTheAmbiguousInsertsThatDidNotCommit) {
  const std::string note = "client-1: phase insert/Count: Count = 7996 (expected 8000, 4 short)";
  EXPECT_EQ(ExplainCountNote(note, WithWrites(21, 17, 0)),
            "client-1: phase insert/Count: Count = 7996 (expected 8000, 4 short: the 4 ambiguous inserts that did not "
            "commit; acknowledged writes of insert/InsertOne)");
  EXPECT_EQ(ExplainCountNote(note, WithWrites(21, 18, 1)),
            "client-1: phase insert/Count: Count = 7996 (expected 8000, 4 short: the 3 ambiguous inserts that did not "
            "commit, 1 acknowledged inserts LOST; acknowledged writes of insert/InsertOne)");
  // What the check does not account for is left as it is.
  EXPECT_EQ(ExplainCountNote(note, WithWrites(21, 10, 0)), note);
  EXPECT_EQ(
      ExplainCountNote("client-1: phase other/Count: Count = 7996 (expected 8000, 4 short)", WithWrites(21, 17, 0)),
      "client-1: phase other/Count: Count = 7996 (expected 8000, 4 short)");
}

TEST(HeadlineTest, SaysWhyAFaultDidNotRecover) {
  FaultRecovery kill = Kill(5), start = Kill(12);
  start.action = "start";
  start.requested_t = 12;
  kill.next_fault = true;
  EXPECT_EQ(RecoveryInWords(kill, &start),
            "the next fault (start node3) came 7.0 s later, before throughput recovered");
  kill.next_fault = false;
  EXPECT_EQ(RecoveryInWords(kill, nullptr), "throughput did not recover before the run ended");
  kill.recovered_s = 6.25;
  EXPECT_EQ(RecoveryInWords(kill, nullptr), "throughput recovered after 6.2 s");
  kill.recovered_s = 0;
  EXPECT_EQ(RecoveryInWords(kill, nullptr), "throughput held");
}

TEST(HeadlineTest, LeadsWithTheResultAndALinePerFault) {
  RunSummary s = WithWrites(21, 17, 0);
  FaultRecovery kill = Kill(5);
  kill.unavailable_s = 4.058;
  kill.sub_second = true;
  kill.outcomes[3] = 21;
  kill.recovered_s = 6.9;
  s.faults.push_back(kill);
  const Headline h = MakeHeadline(s);
  EXPECT_EQ(h.result.rfind("Result: ok. 0 operations in 0.0 s over 1 phase", 0), 0u) << h.result;
  ASSERT_EQ(h.lines.size(), 2u);
  EXPECT_EQ(h.lines[0],
            "kill node3 at 5.0 s: no operation succeeded for 4.058 s; 21 errors (ambiguous 21); throughput recovered "
            "after 6.9 s");
  EXPECT_EQ(h.lines[1],
            "writes in insert/InsertOne: 7979 acknowledged, 0 lost; of 21 ambiguous, 17 committed and 4 did not");
  // A start that took effect when its command returned says how long
  // that took, not only when it was asked for.
  FaultRecovery start = Kill(12);
  start.action = "start";
  start.requested_t = 3;
  start.recovered_s = 0;
  s.faults = {start};
  EXPECT_EQ(MakeHeadline(s).lines[0],
            "start node3 at 12.0 s (asked for at 3.0 s: the action took 9.0 s): no errors; throughput held");
  s.ok = false;
  s.error = "agent local-1: connection refused";
  s.phases.clear();
  EXPECT_EQ(MakeHeadline(s).result,
            "Result: FAILED: agent local-1: connection refused. No phase started: nothing was measured.");
}

// An append phase: what its level forbids and found, and what it allows.
TEST(HeadlineTest, SaysWhatTheHistoryCheckFoundAtItsLevel) {
  RunSummary s;
  s.ok = true;
  PhaseSummary p;
  p.name = "append";
  p.workload = "append";
  record::HistoryChecked h;
  h.transactions = 20062;
  h.isolation = "repeatable-read";
  h.allowed = {{"g2_item", 147}};
  p.anomalies.Add(h);
  s.phases.push_back(p);
  EXPECT_EQ(MakeHeadline(s).lines,
            std::vector<std::string>{"consistency in append: 0 anomalies at repeatable read, 20062 transactions "
                                     "checked; allowed there and found: g2_item 147"});
  h.counts = {{"g_single", 2}};
  h.missing = 5;
  s.phases[0].anomalies = {};
  s.phases[0].anomalies.Add(h);
  EXPECT_EQ(MakeHeadline(s).lines[0],
            "consistency in append: UNKNOWN (5 history events missing (the agents could not send them)); in the "
            "rest, 2 ANOMALIES (g_single 2) at repeatable read, 20062 transactions checked; allowed there and found: "
            "g2_item 147");
}

TEST(HeadlineTest, RebalanceRowsOnlyWhereDataMoved) {
  FaultRecovery kill = Kill(5);
  EXPECT_FALSE(ShowsRebalance(kill));
  kill.rebalance = RebalanceNumbers{};
  EXPECT_FALSE(ShowsRebalance(kill)) << "a node gone missing is not a rebalance";
  kill.rebalance->moved = 5461;  // a replica promoted: its slots changed hands
  EXPECT_TRUE(ShowsRebalance(kill));
  FaultRecovery join = Kill(5);
  join.action = "join";
  join.rebalance = RebalanceNumbers{};
  EXPECT_TRUE(ShowsRebalance(join));
}

}  // namespace
}  // namespace stampede::report

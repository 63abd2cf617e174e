#include "coordinator/phase_merger.h"

#include <gtest/gtest.h>

#include "common/clock.h"
#include "proto/histogram_codec.h"

namespace stampede::coordinator {
namespace {

v1::Snapshot Snap(const std::string& agent, uint32_t seq, uint64_t ok, bool final = false) {
  v1::Snapshot s;
  s.set_agent(agent);
  s.set_seq(seq);
  s.set_start_ns(int64_t(seq) * kNsPerSec);
  s.set_end_ns(int64_t(seq + 1) * kNsPerSec);
  s.set_active_workers(2);
  s.set_final(final);
  auto* op = s.add_ops();
  op->set_op("insert");
  op->add_outcomes(ok);
  for (int i = 1; i < kNumOutcomes; ++i) op->add_outcomes(0);
  Histogram h;
  h.RecordN(1000, ok);
  HistogramToProto(h, op->mutable_latency());
  return s;
}

uint64_t Ok(const record::Second& s) { return s.ops.at("insert").outcomes[0]; }

TEST(PhaseMergerTest, EmitsALineWhenEveryAgentReported) {
  PhaseMerger m("insert", 0, 0, 0, {"a1", "a2"}, 2 * kNsPerSec);
  m.Add(Snap("a1", 0, 10));
  EXPECT_TRUE(m.Flush(kNsPerSec, false).empty());
  m.Add(Snap("a2", 0, 5));
  auto lines = m.Flush(kNsPerSec, false);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(Ok(lines[0]), 15u);
  EXPECT_EQ(lines[0].agents, 2u);
  EXPECT_EQ(lines[0].active_workers, 4u);
  EXPECT_EQ(lines[0].ops.at("insert").latency.count(), 15u);
}

// Two agents in one process, one of them busy: each is rated by its own
// event loops' CPU, not by the process's, so only the busy one is flagged
// as the bottleneck.
TEST(PhaseMergerTest, SaturationIsEachAgentsOwnInASharedProcess) {
  PhaseMerger m("mixed", 0, 0, 0, {"local-1", "local-2"}, 2 * kNsPerSec);
  auto load = [](const std::string& agent, uint64_t loops_ns) {
    v1::Snapshot s = Snap(agent, 0, 100);
    s.set_process("host:42");
    s.set_process_cpu_ns(1'050'000'000);  // the whole process: both agents and the rest
    s.set_cpu_cores(1);
    s.set_cpu_ns(loops_ns + 10'000'000);
    s.set_loops_cpu_ns(loops_ns);
    return s;
  };
  m.Add(load("local-1", 950'000'000));  // its one core busy 95% of the second
  m.Add(load("local-2", 60'000'000));
  auto lines = m.Flush(kNsPerSec, false);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].SaturatedAgents(), std::vector<std::string>{"local-1"});
  EXPECT_NEAR(lines[0].agent_load.at("local-2").cpu, 0.06, 1e-9);
  EXPECT_NEAR(lines[0].other_cpu_s, 0.02, 1e-9) << "the process's CPU less its agents'";
}

// History that did not fit in an interval's snapshot comes in parts before
// it: they wait with the interval without completing it, each is taken
// once, and the interval's events come out in time order.
TEST(PhaseMergerTest, HistoryPartsJoinTheirIntervalOnce) {
  PhaseMerger m("append", 0, 0, 0, {"a1"}, 2 * kNsPerSec);
  auto part = [](uint32_t n, int64_t t) {
    v1::Snapshot p;
    p.set_agent("a1");
    p.set_part(n);
    p.add_history()->set_time_ns(t);
    return p;
  };
  m.Add(part(1, 300));
  m.Add(part(2, 200));
  m.Add(part(2, 200));  // re-sent
  EXPECT_TRUE(m.Flush(kNsPerSec, false).empty()) << "a part is not the agent's snapshot";
  v1::Snapshot main = Snap("a1", 0, 4);
  main.add_history()->set_time_ns(100);
  m.Add(main);
  m.Add(part(1, 300));  // re-sent after its interval's snapshot
  ASSERT_EQ(m.Flush(kNsPerSec, false).size(), 1u);
  std::vector<v1::HistoryEvent> events;
  EXPECT_EQ(m.TakeHistory(&events), 0u);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].time_ns(), 100);
  EXPECT_EQ(events[2].time_ns(), 300);
  EXPECT_EQ(events[1].agent(), "a1");
}

TEST(PhaseMergerTest, DuplicatesAreIgnoredFarIntoAPhaseAndPastTheBitmap) {
  PhaseMerger m("insert", 0, 0, 0, {"a1"}, 2 * kNsPerSec);
  for (uint32_t seq : {86'400u, (1u << 24) + 5, 4'000'000'000u}) {
    m.Add(Snap("a1", seq, 3));
    m.Add(Snap("a1", seq, 3));  // re-sent
    m.MarkJournalled("a1", seq);
  }
  auto lines = m.Flush(0, true);
  ASSERT_EQ(lines.size(), 3u);
  for (const auto& l : lines) EXPECT_EQ(Ok(l), 3u);
}

TEST(PhaseMergerTest, DuplicatesAreIgnoredAndLateSnapshotsKept) {
  PhaseMerger m("insert", 0, 0, 0, {"a1", "a2"}, 2 * kNsPerSec);
  m.Add(Snap("a1", 0, 10));
  m.Add(Snap("a1", 0, 10));                    // re-sent
  auto lines = m.Flush(4 * kNsPerSec, false);  // overdue: a2 never came
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(Ok(lines[0]), 10u);
  auto late = m.Add(Snap("a2", 0, 7));
  ASSERT_EQ(late.size(), 1u);
  EXPECT_TRUE(late[0].late);
  EXPECT_EQ(Ok(late[0]), 7u);
}

TEST(PhaseMergerTest, FinishedAgentsDoNotHoldLaterSeconds) {
  PhaseMerger m("insert", 0, 0, 0, {"a1", "a2"}, 2 * kNsPerSec);
  m.Add(Snap("a1", 0, 1, /*final=*/true));
  m.Add(Snap("a2", 0, 1));
  m.Add(Snap("a2", 1, 1, true));
  auto lines = m.Flush(kNsPerSec, false);
  EXPECT_EQ(lines.size(), 2u);
}

TEST(PhaseMergerTest, AResumedMergerDropsWhatTheJournalHasAndKeepsTheRest) {
  PhaseMerger m("insert", 0, 0, 0, {"a1", "a2"}, 2 * kNsPerSec);
  // The journal had seconds 0 and 1 of a1, and 0 of a2; line 1 was written.
  m.MarkJournalled("a1", 0);
  m.MarkJournalled("a1", 1);
  m.MarkJournalled("a2", 0);
  m.SetNextSeq(2);
  // The agents hand in their spools again after the restart.
  EXPECT_TRUE(m.Add(Snap("a1", 0, 10)).empty());
  EXPECT_TRUE(m.Add(Snap("a1", 1, 10)).empty());
  EXPECT_TRUE(m.Add(Snap("a2", 0, 10)).empty());
  auto late = m.Add(Snap("a2", 1, 7));  // written without a2: late
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(Ok(late[0]), 7u);
  EXPECT_EQ(late[0].from, std::vector<std::string>{"a2"});
  EXPECT_TRUE(m.Add(Snap("a1", 2, 5)).empty());
  m.Add(Snap("a2", 2, 5));
  auto lines = m.Flush(3 * kNsPerSec, false);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(Ok(lines[0]), 10u);
}

TEST(PhaseMergerTest, AnAgentAddedBackIsWaitedForAgain) {
  PhaseMerger m("insert", 0, 0, 0, {"a1", "a2"}, 2 * kNsPerSec);
  m.DropAgent("a2");
  m.Add(Snap("a1", 0, 10));
  EXPECT_EQ(m.Flush(kNsPerSec, false).size(), 1u);  // a2 is not waited for
  m.AddAgent("a2");
  m.Add(Snap("a1", 1, 10));
  EXPECT_TRUE(m.Flush(2 * kNsPerSec, false).empty());  // now it is
  m.Add(Snap("a2", 1, 3));
  auto lines = m.Flush(2 * kNsPerSec, false);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(Ok(lines[0]), 13u);
}

}  // namespace
}  // namespace stampede::coordinator

#include "coordinator/session_limits.h"

#include <gtest/gtest.h>

#include "common/histogram.h"
#include "common/outcome.h"
#include "proto/histogram_codec.h"

namespace stampede::coordinator {
namespace {

v1::Snapshot Good() {
  v1::Snapshot s;
  s.set_agent("a1");
  s.set_seq(1);
  s.set_start_ns(1);
  s.set_end_ns(2);
  auto* op = s.add_ops();
  op->set_op("insert");
  for (int i = 0; i < kNumOutcomes; ++i) op->add_outcomes(i == 0 ? 10 : 0);
  Histogram h;
  h.RecordN(1000, 10);
  HistogramToProto(h, op->mutable_latency());
  return s;
}

TEST(SessionLimitsTest, AWellFormedSnapshotPasses) { EXPECT_EQ(SnapshotProblem(Good(), "a1"), ""); }

TEST(SessionLimitsTest, AnotherAgentsNameIsRefused) {
  EXPECT_EQ(SnapshotProblem(Good(), "a2"), "a snapshot in the name of agent 'a1'");
  v1::Snapshot s = Good();
  s.set_agent("a1+a2");  // a2's share, taken over by a1 (on_loss: redistribute)
  EXPECT_EQ(SnapshotProblem(s, "a1"), "");
  EXPECT_EQ(SnapshotProblem(s, "a2"), "a snapshot in the name of agent 'a1+a2'");
  s.set_agent("a1+");
  EXPECT_NE(SnapshotProblem(s, "a1"), "");
  s.set_agent("a10+a2");
  EXPECT_NE(SnapshotProblem(s, "a1"), "");
}

TEST(SessionLimitsTest, CorruptHistogramsAndAbsurdCountsAreRefused) {
  v1::Snapshot s = Good();
  s.mutable_ops(0)->mutable_latency()->add_index(uint32_t(HistogramLayout::kNumBuckets));
  EXPECT_NE(SnapshotProblem(s, "a1").find("unpaired buckets"), std::string::npos);
  s.mutable_ops(0)->mutable_latency()->add_count(1);
  EXPECT_NE(SnapshotProblem(s, "a1").find("out of range"), std::string::npos);
  s = Good();
  s.mutable_ops(0)->set_outcomes(1, ~uint64_t{0});
  EXPECT_NE(SnapshotProblem(s, "a1").find("more than 1000000000 operations"), std::string::npos);
  s = Good();
  s.mutable_ops(0)->add_outcomes(1);
  EXPECT_NE(SnapshotProblem(s, "a1").find("outcome counts"), std::string::npos);
  s = Good();
  s.set_end_ns(0);
  EXPECT_NE(SnapshotProblem(s, "a1").find("ends before it starts"), std::string::npos);
  s = Good();
  for (int i = 0; i < kMaxOpsPerSnapshot; ++i) *s.add_ops() = s.ops(0);
  EXPECT_NE(SnapshotProblem(s, "a1").find("ops (at most 256)"), std::string::npos);
}

TEST(SessionLimitsTest, AnomaliesOfKnownKindsOnly) {
  v1::Snapshot s = Good();
  v1::AnomalyCount* c = s.add_anomalies();
  c->set_kind("wrong_total");
  c->set_count(3);
  s.add_anomaly_examples()->set_kind("wrong_total");
  EXPECT_EQ(SnapshotProblem(s, "a1"), "");
  s.mutable_anomaly_examples(0)->set_kind("bogus");
  EXPECT_EQ(SnapshotProblem(s, "a1"), "a snapshot with an anomaly of unknown kind 'bogus'");
  s = Good();
  for (int i = 0; i <= kMaxAnomalyExamplesPerSnapshot; ++i) s.add_anomaly_examples()->set_kind("stale_read");
  EXPECT_NE(SnapshotProblem(s, "a1").find("examples (at most"), std::string::npos);
}

TEST(SessionLimitsTest, AgentNames) {
  EXPECT_EQ(AgentNameProblem("db-1.zone_a"), "");
  EXPECT_NE(AgentNameProblem(""), "");
  EXPECT_NE(AgentNameProblem(std::string(129, 'a')), "");
  EXPECT_NE(AgentNameProblem("a/b"), "");
  EXPECT_NE(AgentNameProblem("a\nb"), "");
}

// Node samples: only a node the agent declared, with numbers a node can have.
TEST(SessionLimitsTest, NodeStatsOfUndeclaredNodesOrAbsurdNumbersAreDropped) {
  v1::Hello hello;
  hello.set_name("db3-host");
  hello.add_nodes("node3");
  v1::NodeStats s;
  s.set_node("node3");
  s.set_disk_bytes(123456);
  s.set_rss_bytes(-1);
  s.set_cpu_s(1.5);
  EXPECT_TRUE(NodeStatsSane(hello, s));
  v1::NodeStats other = s;
  other.set_node("node1");
  EXPECT_FALSE(NodeStatsSane(hello, other));
  v1::NodeStats absurd = s;
  absurd.set_disk_bytes(-5);
  EXPECT_FALSE(NodeStatsSane(hello, absurd));
  absurd = s;
  absurd.set_cpu_s(1e12);
  EXPECT_FALSE(NodeStatsSane(hello, absurd));
}

TEST(SessionLimitsTest, HistoryEventsAreBounded) {
  v1::Snapshot s = Good();
  v1::HistoryEvent* e = s.add_history();
  for (int i = 0; i < 8; ++i) e->add_mops()->set_key(i);
  EXPECT_EQ(SnapshotProblem(s, "a1"), "");
  e->add_mops();
  EXPECT_EQ(SnapshotProblem(s, "a1"), "a snapshot with a transaction of 9 micro-operations (at most 8)");
  e->clear_mops();
  e->set_type(static_cast<v1::HistoryEvent::Type>(7));
  EXPECT_EQ(SnapshotProblem(s, "a1"), "a snapshot with a history event of unknown type");
  e->set_type(v1::HistoryEvent::OK);
  s.set_part(kMaxHistoryParts + 1);
  EXPECT_EQ(SnapshotProblem(s, "a1"), "a snapshot's history part 1025 (at most 1024 an interval)");
}

}  // namespace
}  // namespace stampede::coordinator

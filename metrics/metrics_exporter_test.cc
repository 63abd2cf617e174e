#include "metrics/metrics_exporter.h"

#include <gtest/gtest.h>

namespace stampede::metrics {
namespace {

TEST(MetricsExporterTest, SecondsBecomeCountersAndHistograms) {
  MetricsExporter m;
  Histogram h;
  for (int i = 0; i < 90; ++i) h.Record(300'000);     // 0.3 ms
  for (int i = 0; i < 10; ++i) h.Record(20'000'000);  // 20 ms
  record::Second second;
  second.phase = "insert";
  second.active_workers = 8;
  second.agents = 2;
  record::OpSecond& op = second.ops["InsertOne"];
  op.outcomes = {98, 0, 2, 0, 0};
  op.latency = h;
  op.retries = 3;
  op.rollbacks = 1;
  m.OnRecord(second);
  m.OnRecord(second);
  m.OnRecord(record::FaultSent{0, "p", "kill", "db3", "a1", 1.0, false, ""});
  record::HealthPoll poll;
  poll.answered = true;
  poll.underreplicated = 12;
  m.OnRecord(poll);
  const std::string text = m.Render();
  EXPECT_NE(text.find("stampede_ops_total{op=\"InsertOne\",outcome=\"ok\",phase=\"insert\"} 196"), std::string::npos)
      << text;
  EXPECT_NE(text.find("stampede_ops_total{op=\"InsertOne\",outcome=\"unavailable\",phase=\"insert\"} 4"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("stampede_op_latency_seconds_count{op=\"InsertOne\",phase=\"insert\"} 200"), std::string::npos)
      << text;
  EXPECT_NE(text.find("stampede_op_latency_seconds_bucket{op=\"InsertOne\",phase=\"insert\",le=\"0.0005\"} 180"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("stampede_op_latency_seconds_bucket{op=\"InsertOne\",phase=\"insert\",le=\"0.025\"} 200"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("stampede_active_workers{phase=\"insert\"} 8"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_op_retries_total{op=\"InsertOne\",phase=\"insert\"} 6"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_op_rollbacks_total{op=\"InsertOne\",phase=\"insert\"} 2"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_agents_connected 2"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_fault_events_total{action=\"kill\",node=\"db3\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_cluster_healthy 0"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_cluster_underreplicated 12"), std::string::npos) << text;
}

// What a history check found after an append phase is counted too.
TEST(MetricsExporterTest, HistoryChecksCountAnomalies) {
  MetricsExporter m;
  record::HistoryChecked checked;
  checked.phase = "append";
  checked.counts = {{"lost", 3}};
  m.OnRecord(checked);
  const std::string text = m.Render();
  EXPECT_NE(text.find("stampede_anomalies_total{kind=\"lost\",phase=\"append\"} 3"), std::string::npos) << text;
}

// Where the data is, per node; a node that left leaves the gauge. The
// agents' saturation per agent.
TEST(MetricsExporterTest, SharesAndSaturation) {
  MetricsExporter m;
  record::HealthPoll poll;
  poll.answered = true;
  poll.share_unit = "slots";
  poll.shares = {record::NodeShare{"10.0.0.1:7000", 4096, -1, -1, -1, "master", false},
                 record::NodeShare{"10.0.0.4:7006", 4096, -1, -1, -1, "master", false}};
  m.OnRecord(poll);
  EXPECT_NE(m.Render().find("stampede_node_share{node=\"10.0.0.4:7006\",unit=\"slots\"} 4096"), std::string::npos)
      << m.Render();
  poll.shares.pop_back();
  m.OnRecord(poll);
  EXPECT_EQ(m.Render().find("10.0.0.4:7006"), std::string::npos) << m.Render();
  record::Second second;
  second.phase = "p";
  second.interval_s = 1;
  second.agent_load["a1"] = {0.95, 2.0};
  m.OnRecord(second);
  const std::string text = m.Render();
  EXPECT_NE(text.find("stampede_client_saturated{agent=\"a1\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_agent_cpu_ratio{agent=\"a1\"} 0.95"), std::string::npos) << text;
}

// A join's data move: how far it is and the time left, until balanced.
TEST(MetricsExporterTest, AJoinsMoveIsAGauge) {
  MetricsExporter m;
  const auto poll = [](double t, std::vector<double> slots) {
    record::HealthPoll p;
    p.t = t;
    p.answered = p.healthy = true;
    p.share_unit = "slots";
    for (size_t i = 0; i < slots.size(); ++i)
      p.shares.push_back(record::NodeShare{"n" + std::to_string(i), slots[i], -1, -1, -1, "master", false});
    return p;
  };
  m.OnRecord(poll(1, {5461, 5462, 5461}));
  EXPECT_EQ(m.Render().find("stampede_move_progress_ratio{"), std::string::npos) << "no move before a join";
  record::FaultSent join;
  join.action = "join";
  join.node = "redis-new";
  m.OnRecord(join);
  m.OnRecord(poll(2, {5461, 5462, 5461, 0}));
  m.OnRecord(poll(3, {4096, 5462, 5461, 1365}));
  m.OnRecord(poll(4, {4096, 4096, 5461, 2731}));
  std::string text = m.Render();
  EXPECT_NE(text.find("stampede_move_progress_ratio{action=\"join\",node=\"redis-new\"} 0.66"), std::string::npos)
      << text;
  EXPECT_NE(text.find("stampede_move_seconds_left{action=\"join\",node=\"redis-new\"} 0.99"), std::string::npos)
      << text;
  m.OnRecord(poll(5, {4096, 4096, 4096, 4096}));
  text = m.Render();
  EXPECT_NE(text.find("stampede_move_progress_ratio{action=\"join\",node=\"redis-new\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_move_seconds_left{action=\"join\",node=\"redis-new\"} 0"), std::string::npos) << text;
}

}  // namespace
}  // namespace stampede::metrics

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
  EXPECT_NE(text.find("stampede_agents_connected 2"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_fault_events_total{action=\"kill\",node=\"db3\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_cluster_healthy 0"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_cluster_underreplicated 12"), std::string::npos) << text;
}

}  // namespace
}  // namespace stampede::metrics

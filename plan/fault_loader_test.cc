// The faults: section's numbers, as the plan loader reads and bounds them
// and the plan writer writes them back.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "plan/plan_loader.h"
#include "plan/plan_writer.h"

namespace stampede::plan {
namespace {

std::vector<std::string> FaultErrors(const std::string& text) { return LoadPlanText(text, "p.yaml").errors; }

TEST(FaultLoaderTest, NetworkFaultsCarryBoundedNumbers) {
  const std::string head =
      "name: x\ntarget: {driver: redis, endpoints: ['h:1']}\n"
      "phases:\n  - {name: run, workload: kv, workers: 1, duration: 30s}\n";
  auto r = LoadPlanText(head +
                            "faults:\n  - {at: run+1s, action: partition, node: db3, direction: in}\n"
                            "  - {at: run+2s, action: delay, node: db3, delay: 150ms, jitter: 20ms}\n"
                            "  - {at: run+3s, action: loss, node: db3, loss: 12.5%}\n"
                            "  - {at: run+4s, action: blackhole, node: db3}\n"
                            "  - {at: run+5s, action: heal, node: db3}\n",
                        "p.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(r.plan.faults(0).net().direction(), "in");
  EXPECT_EQ(r.plan.faults(1).net().delay_ms(), 150u);
  EXPECT_EQ(r.plan.faults(1).net().jitter_ms(), 20u);
  EXPECT_EQ(r.plan.faults(2).net().loss_percent(), 12.5);
  EXPECT_FALSE(r.plan.faults(4).has_net());
  auto again = LoadPlanText(PlanToYaml(r.plan), "again.yaml");
  ASSERT_TRUE(again.ok()) << again.errors[0];
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(again.plan, r.plan));
  auto e = FaultErrors(head +
                       "faults:\n  - {at: run+1s, action: partition, node: db3, direction: sideways}\n"
                       "  - {at: run+2s, action: delay, node: db3}\n"
                       "  - {at: run+2s, action: delay, node: db3, delay: 2m}\n"
                       "  - {at: run+3s, action: loss, node: db3, loss: 0%}\n"
                       "  - {at: run+4s, action: kill, node: db3, loss: 5%}\n");
  ASSERT_EQ(e.size(), 5u);
  EXPECT_NE(e[0].find("p.yaml:6:59: faults[0].direction: expected in, out or both, found 'sideways'"),
            std::string::npos)
      << e[0];
  EXPECT_NE(e[1].find("faults[1].delay: a delay fault needs delay: (like 100ms)"), std::string::npos) << e[1];
  EXPECT_NE(e[2].find("faults[2].delay: expected 1ms .. 60s, found '2m'"), std::string::npos) << e[2];
  EXPECT_NE(e[3].find("faults[3].loss: expected a percentage above 0 and at most 100 like 20%, found '0%'"),
            std::string::npos)
      << e[3];
  EXPECT_NE(e[4].find("faults[4].loss: loss does not apply to kill"), std::string::npos) << e[4];
}

TEST(FaultLoaderTest, ProxyFaultsCarryBandwidthMethodAndCloseDelay) {
  const std::string head =
      "name: x\ntarget: {driver: redis, endpoints: ['h:1']}\n"
      "phases:\n  - {name: run, workload: kv, workers: 1, duration: 30s}\n";
  auto r = LoadPlanText(head +
                            "faults:\n  - {at: run+1s, action: delay, node: db3, delay: 200ms, direction: both}\n"
                            "  - {at: run+2s, action: bandwidth, node: db3, bandwidth: 100KB/s, method: kernel}\n"
                            "  - {at: run+3s, action: slow-close, node: db3, delay: 2s}\n"
                            "  - {at: run+4s, action: reset, node: db3}\n"
                            "  - {at: run+5s, action: timeout, node: db3}\n",
                        "p.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(r.plan.faults(0).net().direction(), "both");
  EXPECT_EQ(r.plan.faults(1).net().bandwidth_bytes_per_s(), 100u * 1024);
  EXPECT_EQ(r.plan.faults(1).net().method(), "kernel");
  EXPECT_EQ(r.plan.faults(2).net().delay_ms(), 2000u);
  auto again = LoadPlanText(PlanToYaml(r.plan), "again.yaml");
  ASSERT_TRUE(again.ok()) << again.errors[0];
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(again.plan, r.plan));
  auto e = FaultErrors(head +
                       "faults:\n  - {at: run+1s, action: bandwidth, node: db3}\n"
                       "  - {at: run+2s, action: bandwidth, node: db3, bandwidth: 10B/s}\n"
                       "  - {at: run+3s, action: delay, node: db3, delay: 1s, method: magic}\n"
                       "  - {at: run+4s, action: reset, node: db3, method: proxy}\n"
                       "  - {at: run+5s, action: slow-close, node: db3}\n");
  ASSERT_EQ(e.size(), 5u);
  EXPECT_NE(e[0].find("faults[0].bandwidth: a bandwidth fault needs bandwidth: (like 100KB/s)"), std::string::npos)
      << e[0];
  EXPECT_NE(e[1].find("faults[1].bandwidth: expected 1KB/s .. 1024GB/s like 100KB/s, found '10B/s'"), std::string::npos)
      << e[1];
  EXPECT_NE(e[2].find("faults[2].method: expected proxy or kernel, found 'magic'"), std::string::npos) << e[2];
  EXPECT_NE(e[3].find("faults[3].method: method does not apply to reset"), std::string::npos) << e[3];
  EXPECT_NE(e[4].find("faults[4].delay: a slow-close fault needs delay: (like 100ms)"), std::string::npos) << e[4];
}

TEST(FaultLoaderTest, AFillLeavesABoundedFreeSize) {
  const std::string head =
      "name: x\ntarget: {driver: redis, endpoints: ['h:1']}\n"
      "phases:\n  - {name: run, workload: kv, workers: 1, duration: 30s}\n";
  auto r = LoadPlanText(head +
                            "faults:\n  - {at: run+1s, action: fill, node: db3, free: 64MB}\n"
                            "  - {at: run+2s, action: fill, node: db3}\n"
                            "  - {at: run+5s, action: heal, node: db3}\n",
                        "p.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(r.plan.faults(0).disk().free_bytes(), 64u << 20);
  EXPECT_FALSE(r.plan.faults(1).has_disk());  // free 0
  auto again = LoadPlanText(PlanToYaml(r.plan), "again.yaml");
  ASSERT_TRUE(again.ok()) << again.errors[0];
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(again.plan, r.plan));
  auto e = FaultErrors(head +
                       "faults:\n  - {at: run+1s, action: fill, node: db3, free: 2PiB}\n"
                       "  - {at: run+2s, action: fill, node: db3, free: lots}\n"
                       "  - {at: run+3s, action: kill, node: db3, free: 1GB}\n");
  ASSERT_EQ(e.size(), 3u);
  EXPECT_NE(e[0].find("faults[0].free: expected a size from 0 to 1PiB like 0 or 64MB, found '2PiB'"), std::string::npos)
      << e[0];
  EXPECT_NE(e[1].find("faults[1].free: expected a size"), std::string::npos) << e[1];
  EXPECT_NE(e[2].find("faults[2].free: free does not apply to kill"), std::string::npos) << e[2];
}

}  // namespace
}  // namespace stampede::plan

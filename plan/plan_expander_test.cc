#include "plan/plan_expander.h"

#include <gtest/gtest.h>

#include "plan/plan_loader.h"

namespace stampede::plan {
namespace {

constexpr char kPlan[] = R"(name: rb
target: {driver: postgres, endpoints: [127.0.0.1:5432]}
phases:
  - {name: warm, workload: crud, workers: 2, ops: 10}
  - name: insert
    workload: rebalance2021
    workers: 50
    params: {records_per_worker: 20}
faults:
  - {at: insert+2s, action: kill, node: db3}
)";

TEST(PlanExpanderTest, RebalanceBecomesOnePhasePerStep) {
  auto r = LoadPlanText(kPlan, "p.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  v1::Plan p = ExpandSteps(r.plan);
  ASSERT_EQ(p.phases_size(), 6);
  EXPECT_EQ(p.phases(0).name(), "warm");
  EXPECT_TRUE(p.phases(0).group().empty());
  const char* names[] = {"insert/InsertOne", "insert/Count", "insert/UpdateOne", "insert/Count-2", "insert/SelectOne"};
  const char* steps[] = {"InsertOne", "Count", "UpdateOne", "Count", "SelectOne"};
  for (int i = 0; i < 5; ++i) {
    const v1::Phase& s = p.phases(i + 1);
    EXPECT_EQ(s.name(), names[i]);
    EXPECT_EQ(s.group(), "insert");
    EXPECT_EQ(s.step(), steps[i]);
    EXPECT_EQ(s.group_workers(), 50u);
    const bool count = s.step() == "Count";
    EXPECT_EQ(s.workers(), count ? 1u : 50u);
    EXPECT_EQ(s.ops(), count ? 1u : 1000u);
  }
  // Faults keep naming the plan's phase.
  EXPECT_EQ(p.faults(0).phase(), "insert");
}

// check_writes on a stepped phase: only the step that inserts reads back.
TEST(PlanExpanderTest, CheckWritesGoesToTheStepThatInserts) {
  std::string text = kPlan;
  text.replace(text.find("    workers: 50\n"), 15, "    workers: 50\n    check_writes: true\n");
  auto r = LoadPlanText(text, "p.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  v1::Plan p = ExpandSteps(r.plan);
  ASSERT_EQ(p.phases_size(), 6);
  for (int i = 1; i < 6; ++i) EXPECT_EQ(p.phases(i).check_writes(), p.phases(i).step() == "InsertOne") << i;
}

TEST(PlanExpanderTest, SteppedPhasesRejectOpsAndDuration) {
  auto r = LoadPlanText(R"(name: rb
target: {driver: postgres, endpoints: [127.0.0.1:5432]}
phases:
  - {name: insert, workload: rebalance2021, workers: 5, ops: 100}
)",
                        "p.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].find("p.yaml:4:"), std::string::npos) << r.errors[0];
  EXPECT_NE(r.errors[0].find("phases[0].ops: not allowed: rebalance2021 runs a fixed number"), std::string::npos)
      << r.errors[0];
}

TEST(PlanExpanderTest, PercentFaultsOnSteppedPhases) {
  auto r = LoadPlanText(R"(name: rb
target: {driver: postgres, endpoints: [127.0.0.1:5432]}
phases:
  - {name: insert, workload: rebalance2021, workers: 10, params: {records_per_worker: 10}}
faults:
  - {at: insert@50%, action: kill, node: db3}
)",
                        "p.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(r.plan.faults(0).at_percent(), 50);
}

}  // namespace
}  // namespace stampede::plan

#include "cli/preflight.h"

#include <gtest/gtest.h>

namespace stampede::cli {
namespace {

v1::Plan TwoFaults() {
  v1::Plan plan;
  v1::Fault* join = plan.add_faults();
  join->set_action("join");
  join->set_node("node4");
  v1::Fault* kill = plan.add_faults();
  kill->set_action("kill");
  kill->set_node("node3");
  v1::Fault* start = plan.add_faults();
  start->set_action("start");
  start->set_node("node3");
  return plan;
}

NamedAgentConfig Config(const std::string& file, const std::string& text) {
  auto c = agent::AgentConfig::Parse(text, file);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return {file, *c};
}

TEST(PreflightTest, EveryFaultMustBeAGivenConfigsToDo) {
  const v1::Plan plan = TwoFaults();
  const NamedAgentConfig db3 = Config("db3.yaml", "nodes:\n  node3: {process: {pidfile: /x, start: [true]}}\n");
  const NamedAgentConfig db4 = Config("db4.yaml", "nodes:\n  node4: {command: {join: [true], leave: [true]}}\n");
  EXPECT_TRUE(FaultOwnerProblems(plan, {db3, db4}).empty());

  auto missing = FaultOwnerProblems(plan, {db3});
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].field, "faults[0].node");
  EXPECT_EQ(missing[0].message, "node 'node4' is not declared by the agent config given (db3.yaml declares node3)");

  // Declared, but not with the means for the action.
  const NamedAgentConfig wrong = Config("db4.yaml", "nodes:\n  node4: {process: {pidfile: /y}}\n");
  auto cannot = FaultOwnerProblems(plan, {db3, wrong});
  ASSERT_EQ(cannot.size(), 1u);
  EXPECT_EQ(cannot[0].field, "faults[0].action");
  EXPECT_NE(cannot[0].message.find("db4.yaml: node 'node4' declares no join command"), std::string::npos)
      << cannot[0].message;

  // No config at all: each fault says what to give.
  auto none = FaultOwnerProblems(plan, {});
  ASSERT_EQ(none.size(), 3u);
  EXPECT_NE(none[1].message.find("--agent-config AGENT.yaml"), std::string::npos);
}

TEST(PreflightTest, SaysWhatAnAgentMustDeclare) {
  EXPECT_EQ(FaultNeeds(TwoFaults()), (std::vector<std::string>{"node4: join", "node3: kill, start"}));
  EXPECT_TRUE(FaultNeeds(v1::Plan()).empty());
}

}  // namespace
}  // namespace stampede::cli

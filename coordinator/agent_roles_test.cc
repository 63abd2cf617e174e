#include "coordinator/agent_roles.h"

#include <gtest/gtest.h>

namespace stampede::coordinator {
namespace {

v1::Hello Hello(std::initializer_list<const char*> nodes, std::map<std::string, std::string> labels = {}) {
  v1::Hello h;
  for (const char* n : nodes) h.add_nodes(n);
  for (const auto& [k, v] : labels) (*h.mutable_labels())[k] = v;
  return h;
}

TEST(AgentRoles, ByDefaultAgentsThatOwnNodesDoNotLoad) {
  v1::AgentsSpec spec;
  const v1::Hello client = Hello({}), db = Hello({"node3"});
  auto load = LoadAgents(spec, {"client-1", "db3-host"}, {&client, &db});
  ASSERT_TRUE(load.ok());
  EXPECT_EQ(*load, std::vector<std::string>{"client-1"});
  // Every agent owns a node (one machine): they all generate load.
  auto all = LoadAgents(spec, {"db3-host"}, {&db});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, std::vector<std::string>{"db3-host"});
  spec.set_load("all");
  EXPECT_EQ(*LoadAgents(spec, {"client-1", "db3-host"}, {&client, &db}),
            (std::vector<std::string>{"client-1", "db3-host"}));
  EXPECT_EQ(RoleOf(db, false), "nodes node3");
  EXPECT_EQ(RoleOf(client, true), "load");
}

TEST(AgentRoles, ByLabels) {
  v1::AgentsSpec spec;
  (*spec.mutable_load_labels())["role"] = "load";
  const v1::Hello a = Hello({}, {{"role", "load"}, {"zone", "a"}}), b = Hello({}, {{"role", "db"}});
  EXPECT_EQ(*LoadAgents(spec, {"a", "b"}, {&a, &b}), std::vector<std::string>{"a"});
  auto none = LoadAgents(spec, {"b"}, {&b});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "agents.load: no agent has the labels role=load (connected: b; give agents --label KEY=VALUE)");
  EXPECT_EQ(RoleOf(a, true), "load, role=load, zone=a");
}

TEST(AgentRolesTest, ShareWeightsComeFromDeclaredCapacity) {
  EXPECT_TRUE(ShareWeights({0, 0}).empty());  // nobody declared: even shares
  EXPECT_EQ(ShareWeights({300, 100}), (std::vector<uint32_t>{300, 100}));
  EXPECT_EQ(ShareWeights({300, 0, 100}), (std::vector<uint32_t>{300, 200, 100}));  // the mean of those declared
  EXPECT_EQ(ShareWeights({4'000'000'000u, 1}), (std::vector<uint32_t>{1'000'000, 1}));
}

}  // namespace
}  // namespace stampede::coordinator

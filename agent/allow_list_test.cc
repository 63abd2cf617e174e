#include "agent/allow_list.h"

#include <gtest/gtest.h>

#include "agent/agent_config.h"

namespace stampede::agent {
namespace {

v1::Plan PlanFor(std::initializer_list<const char*> endpoints, const char* password_env) {
  v1::Plan p;
  for (const char* e : endpoints) p.mutable_target()->add_endpoints(e);
  p.mutable_target()->set_password_env(password_env);
  p.add_phases()->set_workload("crud");
  return p;
}

AllowList Parse(const std::string& text) {
  auto c = AgentConfig::Parse(text, "agent.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? c->allow : AllowList();
}

TEST(AllowList, EndpointEntries) {
  EXPECT_TRUE(EndpointAllowed("10.0.0.0/24", "10.0.0.7:5432"));
  EXPECT_FALSE(EndpointAllowed("10.0.0.0/24", "10.0.1.7:5432"));
  EXPECT_FALSE(EndpointAllowed("10.0.0.0/24", "db.example.com:5432"));  // names are not resolved
  EXPECT_TRUE(EndpointAllowed("db.example.com", "DB.example.com:5432"));
  EXPECT_TRUE(EndpointAllowed("db.example.com:5432", "db.example.com:5432"));
  EXPECT_FALSE(EndpointAllowed("db.example.com:5432", "db.example.com:5433"));
  EXPECT_TRUE(EndpointAllowed("::1", "[0:0:0:0:0:0:0:1]:6379"));
  EXPECT_TRUE(EndpointAllowed("fd00::/8", "[fd12::5]:26257"));
  EXPECT_FALSE(EndpointAllowed("fd00::/8", "10.0.0.1:26257"));
  EXPECT_TRUE(EndpointAllowed("*", "anything:1"));
  EXPECT_FALSE(EndpointAllowed("127.0.0.1:5432", "127.0.0.2:5432"));
}

TEST(AllowList, NotConfiguredAllowsAll) { EXPECT_TRUE(AllowList().Check(PlanFor({"10.9.9.9:1"}, "ANY")).ok()); }

TEST(AllowList, TargetAndPasswordVariable) {
  AllowList a = Parse(
      "allow:\n"
      "  targets:\n"
      "    - endpoints: [10.0.0.0/24, cache.example.com]\n"
      "      password_env: [DB_PASSWORD]\n");
  EXPECT_TRUE(a.Check(PlanFor({"10.0.0.4:3306", "cache.example.com:6379"}, "DB_PASSWORD")).ok());
  EXPECT_TRUE(a.Check(PlanFor({"10.0.0.4:3306"}, "")).ok());
  Status s = a.Check(PlanFor({"10.0.0.4:3306", "10.0.9.1:3306"}, "DB_PASSWORD"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "refused by the agent's config: agent.yaml:3:5: allow.targets: the plan's target.endpoints[1] "
            "'10.0.9.1:3306' is not listed; add it (HOST:PORT, HOST or a network like 10.0.0.0/24) to "
            "allow.targets in agent.yaml");
  s = a.Check(PlanFor({"10.0.0.4:3306"}, "HOME"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "refused by the agent's config: agent.yaml:4:21: allow.targets[0].password_env: the plan's "
            "target.password_env HOME is not listed for target.endpoints[0] '10.0.0.4:3306'; add it there in "
            "agent.yaml to let this agent read it");
  // Something that is not a variable name (a pasted secret) is never echoed.
  s = a.Check(PlanFor({"10.0.0.4:3306"}, "hunter2 secret!"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().find("hunter2"), std::string::npos) << s.message();
}

TEST(AllowList, SentinelsAreTargetsToo) {
  AllowList a = Parse(
      "allow:\n"
      "  targets:\n"
      "    - endpoints: [10.0.0.0/24]\n"
      "      password_env: [DB_PASSWORD]\n");
  v1::Plan p = PlanFor({"10.0.0.4:6379"}, "DB_PASSWORD");
  p.mutable_target()->mutable_sentinel()->set_master("mymaster");
  p.mutable_target()->mutable_sentinel()->add_endpoints("10.0.0.9:26379");
  EXPECT_TRUE(a.Check(p).ok());
  p.mutable_target()->mutable_sentinel()->add_endpoints("10.0.7.9:26379");
  Status s = a.Check(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the plan's target.sentinel.endpoints[1] '10.0.7.9:26379' is not listed"),
            std::string::npos)
      << s.message();
  p.mutable_target()->mutable_sentinel()->mutable_endpoints()->RemoveLast();
  p.mutable_target()->mutable_sentinel()->set_password_env("SENTINEL_PASSWORD");
  s = a.Check(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(".password_env: the plan's target.sentinel.password_env SENTINEL_PASSWORD is not listed "
                             "for target.sentinel.endpoints[0]"),
            std::string::npos)
      << s.message();
}

TEST(AllowList, NoTargetsMeansNone) {
  AllowList a = Parse("allow: {setup: true}\n");
  EXPECT_FALSE(a.Check(PlanFor({"127.0.0.1:5432"}, "")).ok());
}

TEST(AllowList, SetupAndCustomStatements) {
  AllowList a = Parse(
      "allow:\n"
      "  targets: [{endpoints: ['*'], password_env: [P]}]\n"
      "  setup: false\n"
      "  custom: false\n");
  v1::Plan p = PlanFor({"127.0.0.1:5432"}, "P");
  EXPECT_TRUE(a.Check(p).ok());
  p.mutable_phases(0)->add_cleanup("DROP TABLE t");
  Status s = a.Check(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("agent.yaml:3:10: allow.setup: false, and the plan has setup: or cleanup:"),
            std::string::npos)
      << s.message();
  p.mutable_phases(0)->clear_cleanup();
  p.mutable_phases(0)->set_workload("custom");
  p.mutable_phases(0)->set_name("mine");
  s = a.Check(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("agent.yaml:4:11: allow.custom: false, and phase 'mine' runs workload: custom"),
            std::string::npos)
      << s.message();
}

TEST(AllowList, BadConfigNamesTheLine) {
  auto c = AgentConfig::Parse("allow:\n  targets:\n    - endpoints: [10.0.0.0/33]\n", "a.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "a.yaml:3:19: allow.targets[0].endpoints: expected a network like 10.0.0.0/24, found '10.0.0.0/33'");
  c = AgentConfig::Parse("allow:\n  targets: [{endpoints: [db:99999]}]\n", "a.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("expected a port 1-65535"), std::string::npos);
  c = AgentConfig::Parse("allow:\n  target: []\n", "a.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("a.yaml:2:3: allow.target: unknown key, did you mean 'targets'?"),
            std::string::npos)
      << c.status().message();
  c = AgentConfig::Parse("allow: {targets: [{endpoints: [x], password_env: [\"not a var\"]}]}\n", "a.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message().find("not a var"), std::string::npos);
}

}  // namespace
}  // namespace stampede::agent

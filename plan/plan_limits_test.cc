// Hostile plans: every number field at the edges of its type, alias bombs,
// deep nesting and huge strings are refused with a position, quickly.
#include "plan/plan_limits.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "plan/plan_loader.h"

namespace stampede::plan {
namespace {

std::string PlanWith(const std::string& phase_extra, const std::string& top_extra = "") {
  return "name: x\n" + top_extra + "target: {driver: redis, endpoints: [127.0.0.1:6379]}\nphases:\n" +
         "  - {name: a, workload: kv, workers: 2, duration: 5s" + phase_extra + "}\n";
}

std::string FirstError(const std::string& text) {
  const auto start = std::chrono::steady_clock::now();
  auto r = LoadPlanText(text, "p.yaml");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  return r.errors.empty() ? "" : r.errors[0];
}

TEST(PlanLimitsTest, NumbersAtTheEdgesOfTheirTypesAreRefused) {
  for (const char* v : {"9223372036854775808", "18446744073709551615", "-1", "1e308", "-1e308",
                        "99999999999999999999999", ".nan", ".inf"}) {
    SCOPED_TRACE(v);
    auto text =
        "name: x\ntarget: {driver: redis, endpoints: [127.0.0.1:6379]}\nphases:\n"
        "  - {name: a, workload: kv, workers: " +
        std::string(v) + ", duration: 5s}\n";
    EXPECT_EQ(FirstError(text).rfind("p.yaml:4:38: phases[0].workers: expected a positive integer", 0), 0u)
        << FirstError(text);
    EXPECT_NE(FirstError(PlanWith(", rate: " + std::string(v))), "");
    EXPECT_NE(FirstError(PlanWith(", params: {keys: " + std::string(v) + "}")), "");
    EXPECT_NE(FirstError(PlanWith("", "agents: {min: " + std::string(v) + "}\n")), "");
  }
}

TEST(PlanLimitsTest, RepeatAt2To64IsRefusedNotLooped) {
  auto text =
      PlanWith("", "faults:\n  - {at: a+1s, action: kill, node: n1, repeat: 18446744073709551615, every: 1s}\n");
  EXPECT_NE(FirstError(text).find("repeat: expected a positive integer up to 1000, found 18446744073709551615"),
            std::string::npos)
      << FirstError(text);
}

TEST(PlanLimitsTest, DurationsAreCapped) {
  EXPECT_NE(FirstError(PlanWith(", think_time: 100000h")).find("up to 720h"), std::string::npos);
  std::string many = "name: x\ntarget: {driver: redis, endpoints: [127.0.0.1:6379]}\nphases:\n";
  for (int i = 0; i < 40; ++i) {
    many += "  - {name: p" + std::to_string(i) + ", workload: kv, workers: 1, duration: 700h}\n";
  }
  EXPECT_NE(FirstError(many).find("add up to more than 720h"), std::string::npos) << FirstError(many);
}

TEST(PlanLimitsTest, AliasBombIsRefusedAtItsPosition) {
  // Ten levels of ten aliases each: 10^10 values from a few hundred bytes.
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 10; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ", " : "") + prev;
    text += "]\n";
  }
  const std::string e = FirstError(text);
  EXPECT_NE(e.find("p.yaml:5:"), std::string::npos) << e;  // a4 (10^5 values) passes 100,000
  EXPECT_NE(e.find("aliases"), std::string::npos) << e;
}

TEST(PlanLimitsTest, DeepNestingIsRefused) {
  const std::string text = "x: " + std::string(20000, '[') + std::string(20000, ']') + "\n";
  const std::string e = FirstError(text);
  EXPECT_EQ(e.rfind("p.yaml:1:", 0), 0u) << e;
  EXPECT_NE(e.find("nested more than 64 deep"), std::string::npos) << e;
}

TEST(PlanLimitsTest, HugeTextAndLongStringsAreRefusedWithoutEchoingThem) {
  const std::string big = "name: " + std::string(5 << 20, 'a') + "\n";
  EXPECT_EQ(FirstError(big), "p.yaml:1:1: plan: the plan is larger than the limit of 1048576 bytes (1 MiB)");
  const std::string long_name = PlanWith("").replace(6, 1, std::string(100000, 'n'));
  const std::string e = FirstError(long_name);
  EXPECT_NE(e.find("expected up to 128 letters"), std::string::npos) << e;
  EXPECT_LT(e.size(), 300u) << e.size();
}

TEST(PlanLimitsTest, NamesAndIdentifiers) {
  EXPECT_TRUE(IsIdentifier("PGPASSWORD"));
  EXPECT_TRUE(IsIdentifier("_x1"));
  EXPECT_FALSE(IsIdentifier("1x"));
  EXPECT_FALSE(IsIdentifier(""));
  EXPECT_FALSE(IsIdentifier(std::string(129, 'a')));
  EXPECT_TRUE(IsNameOf("run-1.a_b", "_.-"));
  EXPECT_FALSE(IsNameOf("run 1", "_.-"));
  EXPECT_EQ(Quoted("abc"), "'abc'");
  EXPECT_EQ(Quoted(std::string(100, 'z'), 3), "'zzz...' (100 characters)");
}

}  // namespace
}  // namespace stampede::plan

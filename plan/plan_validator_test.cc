#include "plan/plan_validator.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/duration.h"
#include "plan/plan_loader.h"

namespace stampede::plan {
namespace {

constexpr char kValidPlan[] = R"(name: v
target: {driver: postgres, endpoints: ["127.0.0.1:5432"]}
phases:
  - {name: load, workload: crud, workers: 4, ops: 1000}
  - {name: run, workload: kv, workers: 4, duration: 30s}
faults: [{at: run+5s, action: kill, node: db1}]
)";

v1::Plan Good() {
  auto r = LoadPlanText(kValidPlan, "v.yaml");
  EXPECT_TRUE(r.ok()) << r.errors[0];
  return r.plan;
}

std::string Problems(const v1::Plan& p) { return FormatProblems(ValidatePlan(p)); }

TEST(PlanValidator, APlanTheLoaderAcceptsIsValid) { EXPECT_EQ(Problems(Good()), ""); }

TEST(PlanValidator, NumbersOnlyAProtobufCanHold) {
  v1::Plan p = Good();
  p.mutable_phases(1)->set_rate(std::nan(""));
  p.mutable_phases(0)->set_pipeline(5000);
  p.mutable_retry()->set_max_attempts(0);
  p.mutable_target()->set_connect_timeout_ms(0);
  const std::string m = Problems(p);
  EXPECT_NE(m.find("phases[1].rate: expected a number above 0 up to 1e+09, found nan"), std::string::npos) << m;
  EXPECT_NE(m.find("phases[0].pipeline: expected a non-negative integer up to 1000, found 5000"), std::string::npos)
      << m;
  EXPECT_NE(m.find("retry.max_attempts: expected a positive integer up to 100, found 0"), std::string::npos) << m;
  EXPECT_NE(m.find("target.connect_timeout: expected a duration above zero"), std::string::npos) << m;
}

// Found by submitted_plan_fuzz: a duration too long for nanoseconds, in a
// message about a fault past the phase's end (signed overflow under UBSan).
TEST(PlanValidator, DurationsTooLongForNanosecondsAreReportedAsWritten) {
  v1::Plan p = Good();
  p.mutable_phases(1)->set_duration_ms(175921860444040);
  p.mutable_faults(0)->set_at_ms(UINT64_MAX);
  p.set_timeout_ms(UINT64_MAX);
  const std::string m = Problems(p);
  EXPECT_NE(m.find("phases[1].duration"), std::string::npos) << m;
  EXPECT_NE(m.find("a fault at run+18446744073709551615ms would never happen"), std::string::npos) << m;
  EXPECT_EQ(FormatDurationMs(UINT64_MAX), "18446744073709551615ms");
  EXPECT_EQ(FormatDurationMs(90000), "90s");
}

TEST(PlanValidator, StagesAndNetworkFieldsHoldTogether) {
  v1::Plan p = Good();
  v1::Phase* run = p.mutable_phases(1);
  v1::Stage* s = run->add_stages();
  s->set_duration_ms(30000);
  s->set_workers(2);
  s->set_rate(10);
  p.mutable_faults(0)->mutable_net()->set_delay_ms(100);
  const std::string m = Problems(p);
  EXPECT_NE(m.find("phases[1].stages[0]: expected exactly one of workers (closed loop) or rate (open loop)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("faults[0]: direction, delay, jitter, loss, bandwidth and method do not apply to kill"),
            std::string::npos)
      << m;
}

TEST(PlanValidator, SizesABigSubmissionCannotExceed) {
  v1::Plan p = Good();
  for (int i = 0; i < 1001; ++i) *p.add_phases() = p.phases(1);
  EXPECT_NE(Problems(p).find("phases: at most 1000 phases"), std::string::npos);
  v1::Plan huge = Good();
  huge.mutable_phases(0)->add_setup(std::string(5 << 20, 'x'));
  EXPECT_NE(Problems(huge).find("plan: larger than the limit"), std::string::npos);
}

TEST(PlanValidator, ExpectationsAreParsedAndTheirSubjectsKnown) {
  v1::Plan p = Good();
  v1::Expectation* x = p.add_expect();
  x->set_scope("phase");
  x->set_subject("lod");
  x->set_text("p99 < 20ms");
  x = p.add_expect();
  x->set_scope("fault");
  x->set_subject("kill");
  x->set_text("unavailability <<< 3");
  x = p.add_expect();
  x->set_scope("verdict");
  const std::string m = Problems(p);
  EXPECT_NE(m.find("expect[0].subject: expected a phase of the plan or \"*\" (*, load, run), found 'lod'"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("expect[1]: expected 'METRIC CMP VALUE'"), std::string::npos) << m;
  EXPECT_NE(m.find("expect[2]: expected scope phase or fault"), std::string::npos) << m;
}

// The fuzzer's seeds (tests/fuzz/plan) are plans a client could submit and
// the coordinator would run.
TEST(PlanValidator, TheSubmittedPlanSeedsAreValid) {
  int seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(STAMPEDE_PLAN_SEEDS)) {
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    v1::Plan plan;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &plan)) << entry.path();
    EXPECT_EQ(Problems(plan), "") << entry.path();
    ++seeds;
  }
  EXPECT_GE(seeds, 2);
}

// The loader places each of the validator's problems where it was written,
// a repeat's copies at the fault that made them.
TEST(PlanValidator, LoaderPlacesProblemsWhereTheyWereWritten) {
  auto r = LoadPlanText(std::string(kValidPlan).substr(0, std::string(kValidPlan).find("faults:")) +
                            "faults:\n  - {at: run+15s, action: kill, node: db1, repeat: 3, every: 10s}\n"
                            "expect:\n  faults: {kill: [\"unavailability < 1s\", \"recovery <\"]}\n",
                        "v.yaml");
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0], "v.yaml:7:10: faults[0].at: phase run lasts 30s: a fault at run+35s would never happen");
  EXPECT_NE(r.errors[1].find("v.yaml:9:42: expect.faults.kill[1]: expected a metric"), std::string::npos)
      << r.errors[1];
}

// A misspelt key hides nothing the validator finds elsewhere in its phase;
// a refused value does (the phase's check would only repeat it).
TEST(PlanValidator, AnUnknownKeyHidesNothing) {
  const std::string head = "name: x\ntarget: {driver: redis, endpoints: [h:1]}\nphases:\n";
  auto e = LoadPlanText(head + "  - {name: a, workload: kv, workers: 2, duraton: 5s}\n", "p.yaml").errors;
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0], "p.yaml:4:5: phases[0]: needs a duration (e.g. duration: 30s) or an operation count (ops: N)");
  EXPECT_EQ(e[1], "p.yaml:4:41: phases[0].duraton: unknown key, did you mean 'duration'?");
  e = LoadPlanText(head + "  - {name: a, workload: kv, workers: 2, duration: 5 parsecs}\n", "p.yaml").errors;
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("phases[0].duration: expected a duration"), std::string::npos) << e[0];
}

// target.joining names endpoints of the list that may be absent at the
// start; the run starts on the others.
TEST(PlanValidator, JoiningEndpointsAreAmongTheEndpoints) {
  const std::string head = "name: j\nphases: [{name: a, workload: kv, workers: 2, duration: 5s}]\n";
  auto ok = LoadPlanText(head + "target: {driver: mysql, endpoints: [h:1, h:2], joining: [h:2]}\n", "j.yaml");
  ASSERT_TRUE(ok.ok()) << ok.errors[0];
  EXPECT_EQ(ok.plan.target().joining(0), "h:2");
  auto e = LoadPlanText(head + "target: {driver: mysql, endpoints: [h:1, h:2], joining: [h:3, h:2]}\n", "j.yaml");
  ASSERT_EQ(e.errors.size(), 1u);
  EXPECT_NE(e.errors[0].find("j.yaml:3:58: target.joining[0]: expected one of target.endpoints"), std::string::npos)
      << e.errors[0];
  e = LoadPlanText(head + "target: {driver: mysql, endpoints: [h:1], joining: [h:1]}\n", "j.yaml");
  ASSERT_EQ(e.errors.size(), 1u);
  EXPECT_NE(e.errors[0].find("must not be joining"), std::string::npos) << e.errors[0];
  e = LoadPlanText(head + "target: {driver: mysql, endpoints: [h:1], joining: h:1}\n", "j.yaml");
  ASSERT_EQ(e.errors.size(), 1u);
  EXPECT_NE(e.errors[0].find("target.joining: expected a list"), std::string::npos) << e.errors[0];
  e = LoadPlanText(head + "target: {driver: redis, flavor: redis-cluster, endpoints: [h:1, h:2], joining: [h:2]}\n",
                   "j.yaml");
  ASSERT_EQ(e.errors.size(), 1u);
  EXPECT_NE(e.errors[0].find("not for redis-cluster"), std::string::npos) << e.errors[0];
}

}  // namespace
}  // namespace stampede::plan

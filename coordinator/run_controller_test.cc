// The run controller against scripted agents (coordinator/fake_agent.h):
// barriers, lost agents under each on_loss, a rejoin and a failing fault,
// in seconds and without a server. The real thing is proven once each by
// the integration tests (agent_loss, multihost_resilience, fault_timing).
#include "coordinator/run_controller.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/clock.h"
#include "coordinator/fake_agent.h"
#include "plan/plan_loader.h"

namespace stampede::coordinator {
namespace {

using MsgCase = v1::CoordinatorMessage::MsgCase;

// Two closed-loop phases of 300 ms (the first as long as `first`); `extra`
// adds top-level keys. A fake agent ends 300 ok operations in each.
v1::Plan TwoPhasePlan(const std::string& agents, const std::string& extra = "", const std::string& first = "300ms") {
  const std::string yaml =
      "name: fake\n"
      "target: {driver: postgres, endpoints: ['127.0.0.1:1'], user: u, database: d}\n"
      "agents: " +
      agents +
      "\n"
      "phases:\n"
      "  - {name: one, workload: kv, workers: 2, duration: " +
      first +
      "}\n"
      "  - {name: two, workload: kv, workers: 2, duration: 300ms}\n" +
      extra;
  plan::PlanLoadResult r = plan::LoadPlanText(yaml, "test.yaml");
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors[0]);
  return r.plan;
}

class RunControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::path(::testing::TempDir()) / ("run_controller_test_" + std::to_string(getpid()) + "_" +
                                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs the plan to its end with the agents the test connected.
  v1::RunResult Run(const v1::Plan& plan) {
    RunOptions o;
    o.plan = plan;
    o.plan_yaml = "name: fake\n";
    o.results_dir = dir_.string();
    controller_ = std::make_shared<RunController>(std::move(o), &registry_);
    registry_.SetListener(controller_);
    v1::RunResult result = controller_->Run();
    registry_.SetListener(nullptr);
    return result;
  }

  // The journal's lines that contain `text`.
  std::vector<std::string> JournalLines(const std::string& text) const {
    std::ifstream in(dir_ / "journal.jsonl");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      if (line.find(text) != std::string::npos) lines.push_back(line);
    }
    return lines;
  }

  // The ok operations the journal's seconds of phase `phase` sum to.
  uint64_t OkOps(const std::string& phase) const {
    uint64_t ok = 0;
    for (const std::string& line : JournalLines("\"type\":\"second\"")) {
      if (line.find("\"phase\":\"" + phase + "\"") == std::string::npos) continue;
      const size_t at = line.find("\"outcomes\":[");
      if (at != std::string::npos) ok += std::stoull(line.substr(at + 12));
    }
    return ok;
  }

  std::filesystem::path dir_;
  AgentRegistry registry_;
  std::shared_ptr<RunController> controller_;
};

TEST_F(RunControllerTest, RunsEveryPhaseAcrossTwoAgents) {
  FakeAgent a(&registry_, "a"), b(&registry_, "b");
  const v1::RunResult r = Run(TwoPhasePlan("{min: 2}"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.degraded(), "");
  for (const FakeAgent* agent : {&a, &b}) {
    EXPECT_EQ(agent->CountReceived(MsgCase::kAssignment), 1);
    EXPECT_EQ(agent->CountReceived(MsgCase::kPrepare), 2);
    EXPECT_EQ(agent->CountReceived(MsgCase::kStart), 2);
  }
  EXPECT_EQ(OkOps("one"), 600u);
  EXPECT_EQ(OkOps("two"), 600u);
}

TEST_F(RunControllerTest, APhaseStartsOnlyOnceItsSlowestAgentIsReady) {
  FakeAgentScript slow;
  slow.ready_delay_ns = 600 * kNsPerMs;
  FakeAgent a(&registry_, "a"), b(&registry_, "b", slow);
  const v1::RunResult r = Run(TwoPhasePlan("{min: 2}"));
  ASSERT_TRUE(r.ok()) << r.error();
  // Both agents were told the same start, after the slow one was ready.
  for (const FakeAgent* agent : {&a, &b}) {
    const int64_t prepared = agent->ReceivedAt(MsgCase::kPrepare);
    const int64_t started = agent->ReceivedAt(MsgCase::kStart);
    EXPECT_GE(started - prepared, slow.ready_delay_ns) << "the start did not wait for the slow agent";
  }
  EXPECT_EQ(a.Received(MsgCase::kStart).start().start_ns(), b.Received(MsgCase::kStart).start().start_ns());
}

TEST_F(RunControllerTest, AnAgentLostUnderAbortEndsTheRun) {
  FakeAgentScript drops;
  drops.drop_phase = 0;
  drops.drop_after_ns = 300 * kNsPerMs;
  FakeAgent a(&registry_, "a"), b(&registry_, "b", drops);
  const int64_t start = MonoNowNs();
  const v1::RunResult r = Run(TwoPhasePlan("{min: 2, on_loss: abort}", "", "20s"));
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error().find("lost agent b (agents.on_loss: abort)"), std::string::npos) << r.error();
  EXPECT_LT(MonoNowNs() - start, 10 * kNsPerSec) << "the run did not end at the loss";
  EXPECT_EQ(a.CountReceived(MsgCase::kPrepare), 1) << "a phase after the loss was prepared";
  EXPECT_EQ(JournalLines("\"event\":\"lost\"").size(), 1u);
}

TEST_F(RunControllerTest, AnAgentLostUnderContinueLeavesItsShareOut) {
  FakeAgentScript drops;
  drops.drop_phase = 0;
  drops.drop_after_ns = 300 * kNsPerMs;
  FakeAgent a(&registry_, "a"), b(&registry_, "b", drops);
  const v1::RunResult r = Run(TwoPhasePlan("{min: 2, on_loss: continue}"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_NE(r.degraded().find("b"), std::string::npos) << "a lost agent must degrade the run: " << r.degraded();
  // a's whole phase; b's first second never came.
  EXPECT_EQ(OkOps("one"), 300u);
  EXPECT_EQ(OkOps("two"), 300u);
  EXPECT_EQ(a.CountReceived(MsgCase::kPrepare), 2);
}

TEST_F(RunControllerTest, ASilentAgentIsLost) {
  FakeAgentScript silent;
  silent.silent_phase = 0;
  FakeAgent a(&registry_, "a"), b(&registry_, "b", silent);
  std::atomic<bool> stop{false};
  // The daemon's monitor: sessions silent for 3 s are cancelled.
  std::thread monitor([&] {
    while (!stop) {
      registry_.CancelSilent(MonoNowNs());
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  const v1::RunResult r = Run(TwoPhasePlan("{min: 2, on_loss: abort}", "", "20s"));
  stop = true;
  monitor.join();
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error().find("lost agent b"), std::string::npos) << r.error();
}

TEST_F(RunControllerTest, RedistributeHandsALostShareToAnotherAgent) {
  FakeAgentScript drops;
  drops.drop_phase = 0;
  drops.drop_after_ns = 300 * kNsPerMs;
  FakeAgent a(&registry_, "a"), b(&registry_, "b", drops);
  v1::Plan plan = TwoPhasePlan("{min: 2, on_loss: redistribute}", "", "1500ms");
  plan.mutable_phases(0)->set_rate(100);  // a timed open-loop phase: its shares move
  const v1::RunResult r = Run(plan);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(a.CountReceived(MsgCase::kAdopt), 1);
  const v1::AdoptShare adopt = a.Received(MsgCase::kAdopt).adopt();
  EXPECT_EQ(adopt.source(), "b");
  EXPECT_EQ(adopt.phase_index(), 0u);
}

TEST_F(RunControllerTest, AnAgentBackTakesPartFromTheNextPhase) {
  FakeAgentScript drops;
  drops.drop_phase = 0;
  drops.drop_after_ns = 200 * kNsPerMs;
  FakeAgent a(&registry_, "a"), b(&registry_, "b", drops);
  std::thread back([&] {
    // Back as a new process while phase one still runs.
    while (b.CountReceived(MsgCase::kStart) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    b.Reconnect(false);
  });
  const v1::RunResult r = Run(TwoPhasePlan("{min: 2, on_loss: continue}", "", "1500ms"));
  back.join();
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(JournalLines("\"event\":\"back\"").size(), 1u);
  // A new process: it was assigned the run again, and prepared the second
  // phase (its first session had the first).
  EXPECT_EQ(b.CountReceived(MsgCase::kAssignment), 2);
  EXPECT_EQ(b.CountReceived(MsgCase::kPrepare), 2);
  EXPECT_EQ(OkOps("two"), 600u);
}

// The lead (the first agent) runs each phase's setup and the run's cleanup;
// when it is lost, the next agent takes the role on.
TEST_F(RunControllerTest, ALostLeadHandsSetupAndCleanupToTheNextAgent) {
  FakeAgentScript drops;
  drops.drop_phase = 0;
  drops.drop_after_ns = 200 * kNsPerMs;
  FakeAgent a(&registry_, "a", drops), b(&registry_, "b");
  const v1::RunResult r = Run(TwoPhasePlan("{min: 2, on_loss: continue}", "cleanup: ['SET done 1']\n", "600ms"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(a.Received(MsgCase::kPrepare).prepare().lead()) << "a, the first agent, leads the first phase";
  std::vector<bool> b_leads;
  for (const auto& m : b.Received()) {
    if (m.has_prepare()) b_leads.push_back(m.prepare().lead());
  }
  EXPECT_EQ(b_leads, (std::vector<bool>{false, true})) << "b leads the second phase's setup";
  EXPECT_EQ(a.CountReceived(MsgCase::kCleanup), 0);
  EXPECT_EQ(b.CountReceived(MsgCase::kCleanup), 1) << "the cleanup goes to the new lead";
}

// A coordinator that stopped after the first phase: its journal ends at
// that phase's end line. A new controller takes the run back from it, its
// agents dial in again, and the second phase runs.
TEST_F(RunControllerTest, ARestartedCoordinatorTakesTheRunBackFromItsJournal) {
  FakeAgent a(&registry_, "a"), b(&registry_, "b");
  v1::RunResult first = Run(TwoPhasePlan("{min: 2}"));
  ASSERT_TRUE(first.ok()) << first.error();
  {
    std::vector<std::string> kept;
    for (const std::string& line : JournalLines("")) {
      if (line.find("\"type\":\"phase_start\"") != std::string::npos && line.find("\"index\":1") != std::string::npos) {
        break;
      }
      kept.push_back(line);
    }
    std::ofstream out(dir_ / "journal.jsonl", std::ios::trunc);
    for (const std::string& line : kept) out << line << "\n";
  }
  // As the daemon does: the journal is read before agents are served.
  RunOptions o;
  o.resumable = true;
  o.resume_dir = dir_.string();
  controller_ = std::make_shared<RunController>(std::move(o), &registry_);
  ASSERT_TRUE(controller_->LoadForResume().ok());
  registry_.SetListener(controller_);
  a.Reconnect(true);
  b.Reconnect(true);
  const v1::RunResult r = controller_->Run();
  registry_.SetListener(nullptr);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(JournalLines("\"event\":\"restarted\"").size(), 1u);
  EXPECT_EQ(OkOps("one"), 600u) << "the first phase counted once";
  EXPECT_EQ(OkOps("two"), 600u);
  EXPECT_EQ(JournalLines("\"type\":\"end\"").size(), 1u);
}

TEST_F(RunControllerTest, AFailedFaultIsJournalledAndTheRunGoesOn) {
  FakeAgentScript owner;
  owner.nodes = {"db1"};
  owner.fail_faults = true;
  FakeAgent a(&registry_, "a", owner);
  const v1::RunResult r = Run(TwoPhasePlan("{min: 1}", "faults:\n  - {at: one+200ms, action: kill, node: db1}\n"));
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(a.CountReceived(MsgCase::kFault), 1);
  EXPECT_EQ(a.Received(MsgCase::kFault).fault().node(), "db1");
  const auto done = JournalLines("the script fails every fault");
  ASSERT_EQ(done.size(), 1u);
  EXPECT_NE(done[0].find("\"ok\":false"), std::string::npos) << done[0];
  EXPECT_EQ(OkOps("two"), 300u);
}

TEST_F(RunControllerTest, AFaultOnANodeNoAgentDeclaresRunsNothing) {
  FakeAgent a(&registry_, "a");
  const v1::RunResult r = Run(TwoPhasePlan("{min: 1}", "faults:\n  - {at: one+200ms, action: kill, node: db9}\n"));
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error().find("'db9' is not declared by any connected agent"), std::string::npos) << r.error();
  EXPECT_EQ(a.CountReceived(MsgCase::kPrepare), 0);
}

}  // namespace
}  // namespace stampede::coordinator

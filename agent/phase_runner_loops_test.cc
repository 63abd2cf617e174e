// The runner against a scripted driver (drivers/fake_async_driver.h): what
// it counts for every outcome, retries, op_timeout, the deadline's missed
// operations, reconnects and cancellation, in milliseconds and without a
// server. Phases are short and timed for real; every check is a count, or
// a bound far above what the phase needs, never a tight time.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "agent/phase_runner.h"
#include "common/clock.h"
#include "drivers/fake_async_driver.h"

namespace stampede::agent {
namespace {

using drivers::FakeAnswer;
using drivers::FakeCall;

// What a phase's snapshots added up to.
struct Totals {
  std::array<uint64_t, kNumOutcomes> outcomes{};
  uint64_t retries = 0, missed = 0;
  std::map<std::string, v1::EndpointStats> endpoints;
  bool final_seen = false;

  uint64_t outcome(Outcome o) const { return outcomes[size_t(o)]; }
  uint64_t errors() const { return outcomes[1] + outcomes[2] + outcomes[3] + outcomes[4]; }
  uint64_t done() const { return outcomes[0] + errors(); }
};

class PhaseRunnerLoopsTest : public ::testing::Test {
 protected:
  PhaseRunnerLoopsTest() {
    v1::Target* t = plan_.mutable_target();
    t->set_driver("fake");
    t->set_flavor("fake");
    t->add_endpoints("127.0.0.1:1");
    t->set_connect_timeout_ms(1000);
    plan_.set_seed(7);
    v1::Phase* p = plan_.add_phases();
    p->set_name("load");
    p->set_workload("kv");
    p->set_workers(1);
    (*p->mutable_params())["read"] = "1";  // reads only: a lost one is unavailable
  }
  v1::Phase& phase() { return *plan_.mutable_phases(0); }

  // Prepares and runs the phase, starting 20 ms from now; returns what its
  // snapshots said. *runner_out, if given, sees the runner while it runs.
  Totals Run(std::atomic<PhaseRunner*>* runner_out = nullptr) {
    PhaseRunnerOptions o;
    o.plan = plan_;
    o.run_id = "test";
    o.agent_name = "a";
    o.threads = 2;
    o.agent_index = agent_index_;
    o.phase_index = phase_index_;
    o.agent_count = agent_count_;
    o.on_snapshot = [this](const v1::Snapshot& s) { Add(s); };
    {
      std::lock_guard<std::mutex> lock(mu_);
      totals_ = Totals();
    }
    runner_ = PhaseRunner::Create(std::move(o));
    prepared_ = runner_->Prepare();
    if (!prepared_.ok()) return totals_;
    if (runner_out) runner_out->store(runner_.get());
    runner_->Run(MonoNowNs() + 20 * kNsPerMs);
    std::lock_guard<std::mutex> lock(mu_);
    return totals_;
  }

  drivers::FakeCluster cluster_;
  drivers::ScopedTestDriver fake_{drivers::FakeDriverInfo(&cluster_)};
  v1::Plan plan_;
  uint32_t agent_index_ = 0, agent_count_ = 1, phase_index_ = 0;
  std::unique_ptr<PhaseRunner> runner_;
  Status prepared_;

 private:
  void Add(const v1::Snapshot& s) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const v1::OpStats& op : s.ops()) {
      for (int i = 0; i < op.outcomes_size() && i < kNumOutcomes; ++i) totals_.outcomes[size_t(i)] += op.outcomes(i);
      totals_.retries += op.retries();
      totals_.missed += op.missed();
    }
    for (const v1::EndpointStats& e : s.endpoints()) {
      v1::EndpointStats& into = totals_.endpoints[e.endpoint()];
      into.set_lost(into.lost() + e.lost());
      into.set_reconnects(into.reconnects() + e.reconnects());
      into.set_connect_failures(into.connect_failures() + e.connect_failures());
      into.set_ok(into.ok() + e.ok());
    }
    totals_.final_seen |= s.final();
  }
  std::mutex mu_;
  Totals totals_;
};

TEST_F(PhaseRunnerLoopsTest, CountsEveryOperationOfAnOpsBoundedPhaseOnce) {
  phase().set_workers(4);
  phase().set_ops(400);
  phase().set_timeout_ms(10'000);
  const Totals t = Run();
  ASSERT_TRUE(prepared_.ok()) << prepared_.message();
  EXPECT_EQ(t.outcome(Outcome::kOk), 400u);
  EXPECT_EQ(t.errors(), 0u);
  EXPECT_EQ(t.missed, 0u);
  EXPECT_EQ(cluster_.calls.load(), 400u);
  EXPECT_EQ(runner_->owed_ops(), 400);
  EXPECT_FALSE(runner_->timed_out());
  EXPECT_TRUE(t.final_seen);
  EXPECT_EQ(t.endpoints.at("127.0.0.1:1").ok(), 400u);
}

// The second of two agents runs its half of the workers, and owes and
// does their half of the operations.
TEST_F(PhaseRunnerLoopsTest, RunsItsShareOfTheWorkersAndOperations) {
  agent_index_ = 1;
  agent_count_ = 2;
  phase().set_workers(5);
  phase().set_ops(500);
  phase().set_timeout_ms(10'000);
  const Totals t = Run();
  EXPECT_EQ(runner_->workers(), 2u);  // workers 3 and 4
  EXPECT_EQ(runner_->owed_ops(), 200);
  EXPECT_EQ(t.outcome(Outcome::kOk), 200u);
  EXPECT_EQ(cluster_.calls.load(), 200u);
}

TEST_F(PhaseRunnerLoopsTest, PipelinesInBatchesAndCountsEachOperation) {
  phase().set_workers(2);
  phase().set_ops(200);
  phase().set_timeout_ms(10'000);
  phase().set_pipeline(8);
  const Totals t = Run();
  EXPECT_EQ(t.outcome(Outcome::kOk), 200u);
  EXPECT_EQ(cluster_.calls.load(), 200u);
  EXPECT_EQ(t.missed, 0u);
}

// A connection lost in the middle of a batch of writes: what was answered
// stays ok, the rest is ambiguous, one by one, and the worker reconnects.
TEST_F(PhaseRunnerLoopsTest, APipelineLostMidBatchLeavesTheRestAmbiguous) {
  phase().set_ops(40);
  phase().set_timeout_ms(10'000);
  phase().set_pipeline(4);
  (*phase().mutable_params())["read"] = "0";
  cluster_.answer = [](const FakeCall& c) { return FakeAnswer{Outcome::kOk, 0, c.n == 5}; };
  const Totals t = Run();
  EXPECT_EQ(t.outcome(Outcome::kAmbiguous), 3u);  // the batch's second to fourth
  EXPECT_EQ(t.outcome(Outcome::kOk), 37u);
  EXPECT_EQ(t.endpoints.at("127.0.0.1:1").lost(), 1u);
  EXPECT_EQ(cluster_.connects.load(), 2u);
}

TEST_F(PhaseRunnerLoopsTest, CountsEachErrorOutcomeAsItsOwn) {
  phase().set_ops(40);
  phase().set_timeout_ms(10'000);
  cluster_.answer = [](const FakeCall& c) {
    static constexpr Outcome kCycle[] = {Outcome::kOk, Outcome::kFatal, Outcome::kRetryable, Outcome::kOk};
    return FakeAnswer{kCycle[c.n % 4]};
  };
  const Totals t = Run();  // no retry policy: one attempt each
  EXPECT_EQ(t.outcome(Outcome::kOk), 20u);
  EXPECT_EQ(t.outcome(Outcome::kFatal), 10u);
  EXPECT_EQ(t.outcome(Outcome::kRetryable), 10u);
  EXPECT_EQ(t.retries, 0u);
}

TEST_F(PhaseRunnerLoopsTest, RetriesARetryableOutcomeAndCountsTheRetries) {
  phase().set_ops(50);
  phase().set_timeout_ms(10'000);
  plan_.mutable_retry()->set_max_attempts(3);
  plan_.mutable_retry()->set_backoff_ms(1);
  // One worker: every first attempt fails, every second one succeeds.
  cluster_.answer = [](const FakeCall& c) { return FakeAnswer{c.n % 2 == 0 ? Outcome::kRetryable : Outcome::kOk}; };
  const Totals t = Run();
  EXPECT_EQ(t.outcome(Outcome::kOk), 50u);
  EXPECT_EQ(t.errors(), 0u);
  EXPECT_EQ(t.retries, 50u);
  EXPECT_EQ(cluster_.calls.load(), 100u);
}

TEST_F(PhaseRunnerLoopsTest, GivesUpAfterMaxAttempts) {
  phase().set_ops(20);
  phase().set_timeout_ms(10'000);
  plan_.mutable_retry()->set_max_attempts(3);
  plan_.mutable_retry()->set_backoff_ms(1);
  cluster_.answer = [](const FakeCall&) { return FakeAnswer{Outcome::kRetryable}; };
  const Totals t = Run();
  EXPECT_EQ(t.outcome(Outcome::kRetryable), 20u);
  EXPECT_EQ(t.retries, 40u);
  EXPECT_EQ(cluster_.calls.load(), 60u);
}

// A read cut at op_timeout is unavailable, a write ambiguous; either way
// the connection is gone and the worker reconnects before the next one.
TEST_F(PhaseRunnerLoopsTest, CutsAnOperationAtOpTimeout) {
  for (const char* read : {"1", "0"}) {
    cluster_.calls = 0;
    cluster_.aborts = 0;
    cluster_.connects = 0;
    phase().set_ops(3);
    phase().set_timeout_ms(10'000);
    (*phase().mutable_params())["read"] = read;
    plan_.mutable_target()->set_op_timeout_ms(50);
    cluster_.answer = [](const FakeCall&) { return FakeAnswer{Outcome::kOk, 30 * kNsPerSec}; };
    const int64_t began = MonoNowNs();
    const Totals t = Run();
    const Outcome lost = read[0] == '1' ? Outcome::kUnavailable : Outcome::kAmbiguous;
    EXPECT_EQ(t.outcome(lost), 3u) << "read " << read;
    EXPECT_EQ(t.done(), 3u);
    EXPECT_EQ(cluster_.aborts.load(), 3u);
    EXPECT_EQ(cluster_.connects.load(), 4u);  // the first, and one after each cut
    EXPECT_LT(MonoNowNs() - began, 5 * kNsPerSec);
  }
}

// A node that drops its connections and refuses new ones: the worker goes
// to the next endpoint and carries on there.
TEST_F(PhaseRunnerLoopsTest, ReconnectsToTheNextEndpointWhenANodeGoes) {
  plan_.mutable_target()->add_endpoints("127.0.0.1:2");
  phase().set_ops(40);
  phase().set_timeout_ms(10'000);
  std::atomic<bool> down{false};
  cluster_.answer = [&down](const FakeCall& c) {
    if (c.port == 1 && c.n >= 10) {
      down = true;
      return FakeAnswer{Outcome::kOk, 0, true};
    }
    return FakeAnswer{};
  };
  cluster_.connect = [&down](int port) { return port == 1 && down ? Status::Error("refused") : Status::Ok(); };
  const Totals t = Run();
  EXPECT_EQ(t.outcome(Outcome::kOk), 39u);
  EXPECT_EQ(t.outcome(Outcome::kUnavailable), 1u);
  EXPECT_EQ(cluster_.calls_on[1].load(), 11u);
  EXPECT_EQ(cluster_.calls_on[2].load(), 29u);
  EXPECT_EQ(t.endpoints.at("127.0.0.1:1").lost(), 1u);
  EXPECT_EQ(t.endpoints.at("127.0.0.1:1").ok(), 10u);
  EXPECT_EQ(t.endpoints.at("127.0.0.1:2").reconnects(), 1u);
  EXPECT_EQ(t.endpoints.at("127.0.0.1:2").ok(), 29u);
}

// Open loop against a node that stops answering: whatever was due and not
// done by the deadline is missed, and done + missed is what was owed.
TEST_F(PhaseRunnerLoopsTest, AccountsForEveryScheduledOperationWhenTheClusterStalls) {
  for (uint32_t op_timeout_ms : {0u, 100u}) {
    phase().set_rate(100);
    phase().set_duration_ms(600);
    plan_.mutable_target()->set_op_timeout_ms(op_timeout_ms);
    cluster_.answer = [](const FakeCall& c) {
      return FakeAnswer{Outcome::kOk, c.n < 10 ? 0 : 30 * kNsPerSec};  // stalls after 10
    };
    cluster_.calls = 0;
    const int64_t began = MonoNowNs();
    const Totals t = Run();
    EXPECT_EQ(runner_->owed_ops(), 60) << "op_timeout " << op_timeout_ms;
    EXPECT_EQ(t.done() + t.missed, 60u) << "op_timeout " << op_timeout_ms;
    EXPECT_EQ(t.outcome(Outcome::kOk), 10u);
    EXPECT_GT(t.missed, 0u);
    // The deadline, then at most the hard stop's second: never the stall's 30 s.
    EXPECT_LT(MonoNowNs() - began, 5 * kNsPerSec);
  }
}

TEST_F(PhaseRunnerLoopsTest, CancelEndsTheRunAndCountsNothingMissed) {
  phase().set_workers(4);
  phase().set_rate(200);
  phase().set_duration_ms(30'000);
  std::atomic<PhaseRunner*> running{nullptr};
  std::thread canceller([&running] {
    while (!running.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    running.load()->Cancel();
  });
  const int64_t began = MonoNowNs();
  const Totals t = Run(&running);
  canceller.join();
  EXPECT_LT(MonoNowNs() - began, 5 * kNsPerSec);
  EXPECT_GT(t.outcome(Outcome::kOk), 0u);
  EXPECT_EQ(t.missed, 0u);
  EXPECT_TRUE(t.final_seen);
}

// A server that answers connection attempts one at a time (as PostgreSQL
// spends CPU on each one's authentication): 400 workers connecting at
// once would wait in its queue past connect_timeout. The runner keeps a
// few attempts in flight per loop, and an attempt's timeout starts when
// it is made, so all of them connect.
TEST_F(PhaseRunnerLoopsTest, ManyWorkersConnectingAtOnceDoNotTimeOutInTheServersQueue) {
  phase().set_workers(400);
  phase().set_ops(400);
  phase().set_timeout_ms(30'000);
  plan_.mutable_target()->set_connect_timeout_ms(300);
  constexpr int64_t kEachNs = 2 * kNsPerMs;  // the whole queue: 800 ms
  std::atomic<int64_t> busy_until{0};
  cluster_.connect_delay = [&busy_until](int) {
    const int64_t now = MonoNowNs();
    int64_t prev = busy_until.load();
    int64_t done;
    do {
      done = std::max(now, prev) + kEachNs;
    } while (!busy_until.compare_exchange_weak(prev, done));
    return done - now;
  };
  const Totals t = Run();
  EXPECT_TRUE(prepared_.ok()) << prepared_.message();
  EXPECT_EQ(cluster_.connect_timeouts.load(), 0u);
  EXPECT_EQ(t.outcome(Outcome::kOk), 400u);
}

// An endpoint that never answers: the first attempt to time out fails the
// phase's Prepare, and the workers still waiting for their turn give up
// instead of each waiting out its own connect_timeout.
TEST_F(PhaseRunnerLoopsTest, AnEndpointThatNeverAnswersFailsPrepareInOneRound) {
  phase().set_workers(640);
  phase().set_ops(640);
  plan_.mutable_target()->set_connect_timeout_ms(200);
  cluster_.connect_delay = [](int) { return 60 * kNsPerSec; };
  Run();
  ASSERT_FALSE(prepared_.ok());
  EXPECT_EQ(prepared_.message(), "127.0.0.1:1: timeout expired");
  // Two loops' first turns, not 640 attempts.
  EXPECT_LE(cluster_.connects.load(), uint64_t(2 * 32));
}

// A later phase that starts while no endpoint takes a read-write session
// (a failover between phases): the workers keep trying every endpoint, and
// the phase runs once one does.
TEST_F(PhaseRunnerLoopsTest, ALaterPhaseWaitsOutAShortFailoverBeforeItStarts) {
  *plan_.add_phases() = phase();
  phase_index_ = 1;
  v1::Phase& later = *plan_.mutable_phases(1);
  later.set_workers(4);
  later.set_ops(40);
  later.set_timeout_ms(10'000);
  plan_.mutable_target()->add_endpoints("127.0.0.1:2");
  plan_.mutable_target()->set_session("read-write");
  const int64_t leader_at = MonoNowNs() + 500 * kNsPerMs;
  cluster_.connect = [leader_at](int port) {
    return port == 2 && MonoNowNs() >= leader_at ? Status::Ok() : Status::Error("session is read-only");
  };
  const Totals t = Run();
  ASSERT_TRUE(prepared_.ok()) << prepared_.message();
  EXPECT_EQ(t.outcome(Outcome::kOk), 40u);
  EXPECT_EQ(cluster_.calls_on[2].load(), 40u);
}

TEST_F(PhaseRunnerLoopsTest, PrepareNamesTheEndpointThatRefused) {
  phase().set_ops(1);
  cluster_.connect = [](int) { return Status::Error("password authentication failed"); };
  Run();
  ASSERT_FALSE(prepared_.ok());
  EXPECT_EQ(prepared_.message(), "127.0.0.1:1: password authentication failed");
}

}  // namespace
}  // namespace stampede::agent

// Many simulated agents against one real coordinator: each opens a real
// gRPC session, says hello, answers PreparePhase with PHASE_READY and, once
// the phase starts, sends one snapshot per second (two ops, a realistic
// sparse histogram) and heartbeats, then PHASE_DONE. The run is submitted
// here too, and every live progress line the coordinator sends back is
// timed against the end of the second it covers: that is the merge lag a
// user watching the run sees.
//
//   agents_sim --coordinator 127.0.0.1:PORT --agents 1000 --seconds 20
//
// bench/agents starts the coordinator (on one core) and runs this.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/histogram.h"
#include "common/outcome.h"
#include "common/rng.h"
#include "coordinator/access.h"
#include "plan/plan_loader.h"
#include "proto/histogram_codec.h"
#include "proto/stampede.grpc.pb.h"

namespace stampede {
namespace {

using v1::AgentMessage;
using v1::CoordinatorMessage;

struct Options {
  std::string coordinator;
  int agents = 1000;
  int seconds = 20;
  std::string token_file;  // the coordinator's submit token
};

class SimAgent {
 public:
  SimAgent(std::shared_ptr<grpc::Channel> channel, std::string name)
      : stub_(v1::Coordinator::NewStub(channel)), name_(std::move(name)) {}

  bool Open() {
    stream_ = stub_->Session(&context_);
    AgentMessage m;
    m.mutable_hello()->set_name(name_);
    m.mutable_hello()->set_version("sim");
    m.mutable_hello()->set_agent_time_ns(MonoNowNs());
    return Send(m);
  }

  // The session's reader: answers the coordinator until it stops the run.
  void Read() {
    CoordinatorMessage m;
    while (stream_->Read(&m)) {
      if (m.has_assignment()) {
        run_id_ = m.assignment().run_id();
      } else if (m.has_prepare()) {
        AgentMessage e;
        e.mutable_event()->set_kind(v1::Event::PHASE_READY);
        e.mutable_event()->set_run_id(run_id_);
        e.mutable_event()->set_phase_index(m.prepare().phase_index());
        e.mutable_event()->set_owed_ops(-1);
        e.mutable_event()->set_time_ns(MonoNowNs());
        Send(e);
      } else if (m.has_start()) {
        phase_ = m.start().phase_index();
        start_ns_.store(m.start().start_ns());
      } else if (m.has_stop()) {
        break;
      }
    }
    done_.store(true);
  }

  // Snapshot seq of the running phase (1-based), final with the last.
  void Snapshot(uint32_t seq, bool final, const std::vector<v1::OpStats>& ops) {
    const int64_t start = start_ns_.load();
    AgentMessage m;
    v1::Snapshot* s = m.mutable_snapshot();
    s->set_run_id(run_id_);
    s->set_agent(name_);
    s->set_phase_index(phase_);
    s->set_seq(seq);
    s->set_start_ns(start + int64_t(seq - 1) * kNsPerSec);
    s->set_end_ns(start + int64_t(seq) * kNsPerSec);
    s->set_active_workers(1);
    s->set_final(final);
    s->set_cpu_ns(1000000);
    for (const auto& op : ops) *s->add_ops() = op;
    Send(m);
    if (final) {
      AgentMessage e;
      e.mutable_event()->set_kind(v1::Event::PHASE_DONE);
      e.mutable_event()->set_run_id(run_id_);
      e.mutable_event()->set_phase_index(phase_);
      e.mutable_event()->set_time_ns(MonoNowNs());
      Send(e);
    }
  }

  void Heartbeat() {
    AgentMessage m;
    m.mutable_heartbeat()->set_agent_send_ns(MonoNowNs());
    Send(m);
  }

  void Close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stream_->WritesDone();
    }
    context_.TryCancel();
  }

  int64_t start_ns() const { return start_ns_.load(); }
  bool done() const { return done_.load(); }

 private:
  bool Send(const AgentMessage& m) {
    std::lock_guard<std::mutex> lock(mu_);
    return stream_->Write(m);
  }

  std::unique_ptr<v1::Coordinator::Stub> stub_;
  std::string name_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<AgentMessage, CoordinatorMessage>> stream_;
  std::mutex mu_;  // one writer at a time
  std::string run_id_;
  uint32_t phase_ = 0;
  std::atomic<int64_t> start_ns_{0};
  std::atomic<bool> done_{false};
};

// What one agent with a few workers reports in a second: reads and writes,
// latencies spread over 200 µs .. 20 ms.
std::vector<v1::OpStats> SampleOps() {
  std::vector<v1::OpStats> ops;
  Rng rng(3);
  for (const char* name : {"read", "write"}) {
    Histogram h;
    for (int i = 0; i < 500; ++i) h.Record(200'000 + rng.Uniform(20'000'000));
    v1::OpStats op;
    op.set_op(name);
    for (int o = 0; o < kNumOutcomes; ++o) op.add_outcomes(o == 0 ? 500 : 0);
    HistogramToProto(h, op.mutable_latency());
    ops.push_back(op);
  }
  return ops;
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

// Heartbeats every second until the phase starts; then a snapshot per
// agent per second at each second's end, by four writers. Returns, per
// second, its end -> its last snapshot written.
std::vector<double> DriveSeconds(const Options& o, const std::vector<std::unique_ptr<SimAgent>>& agents,
                                 const std::atomic<bool>& over, int64_t* start_out) {
  const std::vector<v1::OpStats> ops = SampleOps();
  int64_t start = 0;
  while (!over.load() && (start = agents[0]->start_ns()) == 0) {
    for (auto& a : agents) a->Heartbeat();
    SleepUntilMonoNs(MonoNowNs() + kNsPerSec / 2);
  }
  *start_out = start;
  const int writers = 4;
  std::vector<double> send_spread;
  for (int seq = 1; seq <= o.seconds && !over.load(); ++seq) {
    SleepUntilMonoNs(start + int64_t(seq) * kNsPerSec);
    std::vector<std::thread> pool;
    for (int w = 0; w < writers; ++w) {
      pool.emplace_back([&, w, seq] {
        for (size_t i = size_t(w); i < agents.size(); i += writers) {
          agents[i]->Snapshot(uint32_t(seq), seq == o.seconds, ops);
          agents[i]->Heartbeat();
        }
      });
    }
    for (auto& t : pool) t.join();
    send_spread.push_back(double(MonoNowNs() - (start + int64_t(seq) * kNsPerSec)) / 1e9);
  }
  return send_spread;
}

int Main(const Options& o) {
  const std::string plan_text =
      "name: agents-sim\n"
      "target: {driver: redis, endpoints: [127.0.0.1:9]}\n"
      "agents: {min: " +
      std::to_string(o.agents) +
      ", wait: 120s}\n"
      "phases:\n"
      "  - {name: run, workload: kv, workers: " +
      std::to_string(o.agents) + ", duration: " + std::to_string(o.seconds) + "s}\n";
  plan::PlanLoadResult plan = plan::LoadPlanText(plan_text, "agents-sim");
  if (!plan.ok()) {
    std::fprintf(stderr, "agents_sim: %s\n", plan.errors.front().c_str());
    return 2;
  }
  // Agents share a few HTTP/2 connections, as agents behind one NAT would
  // not; distinct connections per agent are what a real fleet has, at the
  // cost of a file descriptor each on the coordinator: 1 per 10 agents here.
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < std::max(1, o.agents / 10); ++i) {
    grpc::ChannelArguments args;
    args.SetInt("stampede.sim.channel", i);  // distinct arguments: distinct connections
    channels.push_back(grpc::CreateCustomChannel(o.coordinator, grpc::InsecureChannelCredentials(), args));
  }
  std::vector<std::unique_ptr<SimAgent>> agents;
  std::vector<std::thread> readers;
  const int64_t t0 = MonoNowNs();
  for (int i = 0; i < o.agents; ++i) {
    agents.push_back(std::make_unique<SimAgent>(channels[size_t(i) % channels.size()], "sim-" + std::to_string(i)));
    if (!agents.back()->Open()) {
      std::fprintf(stderr, "agents_sim: agent %d could not open its session\n", i);
      return 1;
    }
    readers.emplace_back([a = agents.back().get()] { a->Read(); });
  }
  std::fprintf(stderr, "agents_sim: %d sessions open in %.2f s\n", o.agents, double(MonoNowNs() - t0) / 1e9);

  // The submitter: progress lines, timed on arrival.
  auto submitter = v1::Coordinator::NewStub(channels[0]);
  grpc::ClientContext submit_context;
  if (!o.token_file.empty()) {
    std::ifstream in(o.token_file);
    std::string token;
    std::getline(in, token);
    submit_context.AddMetadata(coordinator::kTokenMetadata, token);
  }
  v1::SubmitRunRequest request;
  *request.mutable_plan() = plan.plan;
  request.set_plan_yaml(plan_text);
  auto updates = submitter->SubmitRun(&submit_context, request);
  std::vector<std::pair<int64_t, double>> progress;  // arrival, elapsed_s
  std::mutex progress_mu;
  std::atomic<bool> over{false};
  std::string result_line;
  std::thread watcher([&] {
    v1::RunUpdate u;
    while (updates->Read(&u)) {
      if (u.has_progress()) {
        std::lock_guard<std::mutex> lock(progress_mu);
        progress.emplace_back(MonoNowNs(), u.progress().elapsed_s());
      } else if (u.has_result()) {
        result_line = u.result().ok() ? "ok" : "failed: " + u.result().error();
      }
    }
    over.store(true);
  });

  int64_t start = 0;
  const std::vector<double> send_spread = DriveSeconds(o, agents, over, &start);
  watcher.join();
  for (auto& a : agents) a->Close();
  for (auto& t : readers) t.join();

  // The i-th progress line of the phase covers [start + (i-1) s, start + i s].
  std::vector<double> lags;
  for (size_t i = 0; i < progress.size(); ++i) {
    lags.push_back(double(progress[i].first - (start + int64_t(i + 1) * kNsPerSec)) / 1e9);
  }
  std::printf("agents %d, seconds %d, progress lines %zu, run %s\n", o.agents, o.seconds, progress.size(),
              result_line.c_str());
  std::printf("merge lag (end of second -> progress line at the submitter): p50 %.3f s, p90 %.3f s, max %.3f s\n",
              Quantile(lags, 0.5), Quantile(lags, 0.9),
              lags.empty() ? 0.0 : *std::max_element(lags.begin(), lags.end()));
  std::printf("the simulator's own share (end of second -> last snapshot written): p50 %.3f s, max %.3f s\n",
              Quantile(send_spread, 0.5),
              send_spread.empty() ? 0.0 : *std::max_element(send_spread.begin(), send_spread.end()));
  return result_line == "ok" ? 0 : 1;
}

}  // namespace
}  // namespace stampede

int main(int argc, char** argv) {
  stampede::Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--coordinator") {
      o.coordinator = argv[i + 1];
    } else if (k == "--agents") {
      o.agents = std::atoi(argv[i + 1]);
    } else if (k == "--seconds") {
      o.seconds = std::atoi(argv[i + 1]);
    } else if (k == "--token-file") {
      o.token_file = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: agents_sim --coordinator HOST:PORT [--agents N] [--seconds S] [--token-file F]\n");
      return 2;
    }
  }
  if (o.coordinator.empty() || o.agents < 1 || o.agents > 10000 || o.seconds < 2 || o.seconds > 3600) {
    std::fprintf(stderr, "usage: agents_sim --coordinator HOST:PORT [--agents 1..10000] [--seconds 2..3600]\n");
    return 2;
  }
  return stampede::Main(o);
}

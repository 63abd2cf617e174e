#include "agent/agent.h"

#include <condition_variable>
#include <thread>

#include "agent/clock_sync.h"
#include "agent/node_sampler.h"
#include "agent/outbox.h"
#include "agent/spool.h"
#include "agent/thread_cpu.h"
#include "common/backoff.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/version.h"
#include "proto/grpc_status.h"
#include "proto/stampede.grpc.pb.h"

namespace stampede::agent {
namespace {

constexpr int64_t kHeartbeatNs = 1 * kNsPerSec;
constexpr int64_t kSilenceNs = 3 * kNsPerSec;

}  // namespace

// What outlives the agent's sessions.
struct Agent::State {
  explicit State(const AgentOptions& o)
      : spool(o.config.spool_dir, o.name, o.config.spool_max_bytes),
        run(o.name, o.engine, &o.config, &spool, &clock, &outbox, o.metrics, &cpu),
        sampler(&o.config.faults, &clock, &outbox, &cpu) {}
  ThreadCpu cpu;  // first: every thread below counts in it
  ClockSync clock;
  Outbox outbox;
  Spool spool;
  AgentRun run;
  NodeSampler sampler;  // last: stopped first
};

// One stream to the coordinator: the reader hands messages to the run, a
// writer thread sends the outbox and the heartbeats, and ends the session
// when the coordinator has been silent for 3 s.
class Agent::Connection {
 public:
  Connection(const AgentOptions& options, State* state, std::shared_ptr<grpc::Channel> channel)
      : options_(options), state_(state), stub_(v1::Coordinator::NewStub(channel)) {}

  ~Connection() { StopWriter(); }

  // Returns the stream's final status.
  grpc::Status Serve() {
    stream_ = stub_->Session(&ctx_);
    v1::AgentMessage hello;
    auto* h = hello.mutable_hello();
    h->set_name(options_.name);
    for (const auto& [k, v] : options_.labels) (*h->mutable_labels())[k] = v;
    h->set_capacity(options_.capacity);
    h->set_version(kVersion);
    for (const std::string& node : options_.config.faults.nodes()) h->add_nodes(node);
    if (!state_->run.Position(h->mutable_run())) h->clear_run();
    hello_run_ = h->run().run_id();
    hello_sent_ns_ = MonoNowNs();
    h->set_agent_time_ns(hello_sent_ns_);
    last_heard_ns_ = MonoNowNs();
    if (stream_->Write(hello)) {
      state_->outbox.Open();
      writer_ = std::thread([this] {
        ThreadCpu::Scope counted(&state_->cpu);
        WriterMain();
      });
      v1::CoordinatorMessage msg;
      while (stream_->Read(&msg)) {
        last_heard_ns_ = MonoNowNs();
        Handle(msg);
      }
    }
    state_->outbox.Close();
    StopWriter();
    stream_->WritesDone();
    return stream_->Finish();
  }

  void Cancel() { ctx_.TryCancel(); }
  bool welcomed() const { return welcomed_.load(); }

 private:
  void WriterMain() {
    int64_t next_heartbeat = MonoNowNs();
    while (!stop_writer_.load()) {
      const int64_t now = MonoNowNs();
      if (now - last_heard_ns_.load() > kSilenceNs) {
        SLOG(kWarn) << "coordinator " << options_.coordinator << " silent for "
                    << (now - last_heard_ns_.load()) / kNsPerMs << " ms: redialling";
        ctx_.TryCancel();
        return;
      }
      if (now >= next_heartbeat) {
        v1::AgentMessage m;
        m.mutable_heartbeat()->set_agent_send_ns(now);
        if (!stream_->Write(m)) return;
        next_heartbeat = now + kHeartbeatNs;
      }
      auto m = state_->outbox.Pop(std::chrono::milliseconds(100));
      if (m && !stream_->Write(*m)) return;
    }
  }

  void StopWriter() {
    stop_writer_ = true;
    if (writer_.joinable()) writer_.join();
  }

  void Handle(const v1::CoordinatorMessage& msg) {
    AgentRun& run = state_->run;
    switch (msg.msg_case()) {
      case v1::CoordinatorMessage::kWelcome:
        state_->clock.AddSample(hello_sent_ns_, msg.welcome().coord_time_ns(), MonoNowNs());
        welcomed_ = true;
        SLOG(kInfo) << "connected to coordinator " << options_.coordinator;
        run.OnWelcome(msg.welcome(), hello_run_);
        break;
      case v1::CoordinatorMessage::kHeartbeatAck:
        state_->clock.AddSample(msg.heartbeat_ack().echo_agent_ns(), msg.heartbeat_ack().coord_time_ns(), MonoNowNs());
        break;
      case v1::CoordinatorMessage::kAssignment:
        run.OnAssignment(msg.assignment());
        break;
      case v1::CoordinatorMessage::kPrepare:
        run.OnPrepare(msg.prepare());
        break;
      case v1::CoordinatorMessage::kCleanup:
        run.OnCleanup(msg.cleanup());
        break;
      case v1::CoordinatorMessage::kStart:
        run.OnStart(msg.start());
        break;
      case v1::CoordinatorMessage::kAdopt:
        run.OnAdopt(msg.adopt());
        break;
      case v1::CoordinatorMessage::kFault:
        run.OnFault(msg.fault());
        break;
      case v1::CoordinatorMessage::kStop:
        run.OnStop(msg.stop());
        break;
      case v1::CoordinatorMessage::kNotice:
        SLOG(kWarn) << "coordinator: " << msg.notice();
        break;
      default:
        break;
    }
  }

  const AgentOptions& options_;
  State* const state_;
  std::unique_ptr<v1::Coordinator::Stub> stub_;
  grpc::ClientContext ctx_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::AgentMessage, v1::CoordinatorMessage>> stream_;
  int64_t hello_sent_ns_ = 0;
  std::string hello_run_;  // the run the hello said it was in
  std::atomic<int64_t> last_heard_ns_{0};
  std::atomic<bool> welcomed_{false};
  std::atomic<bool> stop_writer_{false};
  std::thread writer_;
};

Agent::Agent(AgentOptions options) : options_(std::move(options)) {
  if (!options_.credentials) options_.credentials = grpc::InsecureChannelCredentials();
  state_ = std::make_unique<State>(options_);
}

Agent::~Agent() {
  Shutdown();
  state_->run.Shutdown();
}

Status Agent::Start() {
  if (started_) return Status::Ok();
  // A partition or a disk fill left by an agent killed before it could heal
  // outlives it: nothing this agent knows is applied yet, so nothing is kept.
  options_.config.faults.ClearLeftovers();
  if (Status s = options_.config.faults.StartProxies(); !s.ok()) return s;
  started_ = true;
  return Status::Ok();
}

Status Agent::Run() {
  if (Status s = Start(); !s.ok()) return s;
  // This thread reads the session; the fault proxy's thread and gRPC's own
  // are the process's, not this agent's.
  ThreadCpu::Scope counted(&state_->cpu);
  state_->run.LoadPrevious();
  Mutex timer_mu;
  std::condition_variable timer_cv;
  std::thread timer([&] {
    ThreadCpu::Scope timer_counted(&state_->cpu);
    MutexLock lock(timer_mu);
    while (!shutdown_.load()) {
      timer_cv.wait_for(lock.native(), std::chrono::milliseconds(250));
      lock.Unlock();
      state_->run.Tick();
      lock.Lock();
    }
  });
  Status result = Status::Ok();
  Backoff redial(200 * kNsPerMs);
  std::string last_error;
  while (!shutdown_.load()) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    // Redial at once after a loss: no connection back-off inside gRPC.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
    auto channel = grpc::CreateCustomChannel(options_.coordinator, options_.credentials, args);
    auto session = std::make_shared<Connection>(options_, state_.get(), channel);
    {
      MutexLock lock(mu_);
      if (shutdown_.load()) break;
      current_ = session;
    }
    grpc::Status status = session->Serve();
    const bool welcomed = session->welcomed();
    {
      MutexLock lock(mu_);
      current_.reset();
    }
    state_->run.OnCoordinatorLost();
    if (shutdown_.load()) break;
    std::string error = status.error_message();
    // Refused (a name taken, a hello or a certificate not accepted): asking
    // again would be refused again.
    if (const StatusKind kind = FromGrpc(status).kind();
        kind == StatusKind::kAlreadyExists || kind == StatusKind::kInvalidInput || kind == StatusKind::kPermission) {
      result = Status::Error("coordinator " + options_.coordinator + " refused agent " + options_.name + ": " + error);
      break;
    }
    if (!options_.reconnect) {
      if (!welcomed) {
        result = Status::Error("cannot reach coordinator at " + options_.coordinator + ": " + error +
                               options_.unreachable_hint);
      }
      break;
    }
    if (welcomed) {
      SLOG(kWarn) << "lost coordinator " << options_.coordinator << ": " << error << "; reconnecting";
      redial.Reset();
    } else if (error != last_error) {
      SLOG(kWarn) << "cannot reach coordinator at " << options_.coordinator << ": " << error
                  << options_.unreachable_hint << "; retrying";
    }
    last_error = error;
    const int64_t wait_ms = redial.Next() / kNsPerMs;
    for (int64_t slept = 0; slept < wait_ms && !shutdown_.load(); slept += 50) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  shutdown_ = true;
  timer_cv.notify_all();
  timer.join();
  state_->run.Shutdown();
  return result;
}

void Agent::Shutdown() {
  shutdown_.store(true);
  MutexLock lock(mu_);
  if (current_) current_->Cancel();
}

}  // namespace stampede::agent

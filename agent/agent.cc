#include "agent/agent.h"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <thread>

#include "agent/clock_sync.h"
#include "agent/phase_runner.h"
#include "common/clock.h"
#include "common/log.h"
#include "proto/stampede.grpc.pb.h"

namespace stampede::agent {
namespace {

constexpr int64_t kHeartbeatNs = 1 * kNsPerSec;
constexpr char kVersion[] = "0.1.0";

}  // namespace

// One stream to the coordinator and everything that runs on its behalf.
class Agent::Session {
 public:
  Session(const AgentOptions& options, std::shared_ptr<grpc::Channel> channel)
      : options_(options), stub_(v1::Coordinator::NewStub(channel)) {}

  ~Session() {
    StopWork();
    JoinHeartbeat();
  }

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
    hello_sent_ns_ = MonoNowNs();
    h->set_agent_time_ns(hello_sent_ns_);
    if (Send(hello)) {
      heartbeat_ = std::thread([this] { HeartbeatLoop(); });
      v1::CoordinatorMessage msg;
      while (stream_->Read(&msg)) Handle(msg);
    }
    StopWork();
    JoinHeartbeat();
    {
      std::lock_guard<std::mutex> lock(write_mu_);
      stream_->WritesDone();
    }
    return stream_->Finish();
  }

  void Cancel() { ctx_.TryCancel(); }
  bool welcomed() const { return welcomed_.load(); }

 private:
  bool Send(const v1::AgentMessage& m) {
    std::lock_guard<std::mutex> lock(write_mu_);
    return stream_->Write(m);
  }

  void SendEvent(v1::Event::Kind kind, uint32_t phase, const std::string& message,
                 int64_t owed_ops = -1, bool timed_out = false) {
    v1::AgentMessage m;
    auto* e = m.mutable_event();
    e->set_owed_ops(owed_ops);
    e->set_timed_out(timed_out);
    e->set_kind(kind);
    e->set_run_id(run_id_);
    e->set_phase_index(phase);
    e->set_time_ns(MonoNowNs() + clock_.OffsetNs());
    e->set_message(message);
    Send(m);
  }

  void HeartbeatLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      lock.unlock();
      v1::AgentMessage m;
      m.mutable_heartbeat()->set_agent_send_ns(MonoNowNs());
      if (!Send(m)) return;
      lock.lock();
      cv_.wait_for(lock, std::chrono::nanoseconds(kHeartbeatNs), [&] { return stopping_; });
    }
  }

  void Handle(const v1::CoordinatorMessage& msg) {
    switch (msg.msg_case()) {
      case v1::CoordinatorMessage::kWelcome:
        clock_.AddSample(hello_sent_ns_, msg.welcome().coord_time_ns(), MonoNowNs());
        welcomed_ = true;
        SLOG(kInfo) << "connected to coordinator " << options_.coordinator;
        break;
      case v1::CoordinatorMessage::kHeartbeatAck:
        clock_.AddSample(msg.heartbeat_ack().echo_agent_ns(), msg.heartbeat_ack().coord_time_ns(),
                         MonoNowNs());
        break;
      case v1::CoordinatorMessage::kAssignment:
        StopWork();
        assignment_ = msg.assignment();
        run_id_ = assignment_.run_id();
        SLOG(kInfo) << "assigned run " << run_id_ << " as agent " << assignment_.agent_index() + 1
                    << " of " << assignment_.agent_count();
        break;
      case v1::CoordinatorMessage::kPrepare:
        if (msg.prepare().run_id() == run_id_) StartPhaseThread(msg.prepare().phase_index());
        break;
      case v1::CoordinatorMessage::kStart: {
        std::lock_guard<std::mutex> lock(mu_);
        if (msg.start().run_id() == run_id_ && msg.start().phase_index() == phase_index_) {
          start_ns_ = msg.start().start_ns();
        }
        cv_.notify_all();
        break;
      }
      case v1::CoordinatorMessage::kFault:
        QueueFault(msg.fault());
        break;
      case v1::CoordinatorMessage::kStop:
        if (msg.stop().run_id() == run_id_) {
          SLOG(kInfo) << "run " << run_id_ << " stopped: " << msg.stop().reason();
          CancelPhase();
        }
        break;
      default:
        break;
    }
  }

  // Fault actions run on their own thread, never on the stream's reader.
  void QueueFault(const v1::FaultCommand& f) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      faults_.push_back(f);
      if (!fault_thread_.joinable()) fault_thread_ = std::thread([this] { FaultLoop(); });
    }
    cv_.notify_all();
  }

  void FaultLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      if (faults_.empty()) {
        cv_.wait(lock);
        continue;
      }
      v1::FaultCommand f = faults_.front();
      faults_.pop_front();
      lock.unlock();
      Status s = options_.config.faults.Check(f.action(), f.node());
      if (!s.ok()) {
        SLOG(kWarn) << "refused fault " << f.action() << " on " << f.node() << " from coordinator "
                    << options_.coordinator << ": " << s.message();
      } else {
        SLOG(kInfo) << "fault: " << f.action() << " " << f.node();
        s = options_.config.faults.Run(f.action(), f.node());
      }
      v1::AgentMessage m;
      auto* e = m.mutable_event();
      e->set_kind(s.ok() ? v1::Event::FAULT_DONE : v1::Event::FAULT_FAILED);
      e->set_run_id(f.run_id());
      e->set_fault_index(f.fault_index());
      e->set_time_ns(MonoNowNs() + clock_.OffsetNs());
      e->set_message(s.ok() ? f.action() + " " + f.node() : s.message());
      Send(m);
      lock.lock();
    }
  }

  void StartPhaseThread(uint32_t phase_index) {
    if (phase_thread_.joinable()) phase_thread_.join();
    {
      std::lock_guard<std::mutex> lock(mu_);
      phase_index_ = phase_index;
      start_ns_ = 0;
      phase_cancelled_ = false;
    }
    phase_thread_ = std::thread([this, phase_index] { PhaseMain(phase_index); });
  }

  void PhaseMain(uint32_t phase_index) {
    const v1::Plan& plan = assignment_.plan();
    PhaseRunnerOptions o;
    o.plan = plan;
    o.run_id = run_id_;
    o.agent_name = options_.name;
    o.phase_index = phase_index;
    o.agent_index = assignment_.agent_index();
    o.agent_count = assignment_.agent_count();
    const std::string& env = plan.target().password_env();
    if (!env.empty()) {
      const char* value = std::getenv(env.c_str());
      if (value == nullptr) {
        SendEvent(v1::Event::ERROR, phase_index,
                  "target.password_env: environment variable " + env + " is not set on agent " +
                      options_.name);
        return;
      }
      o.password = value;
    }
    if (phase_index >= uint32_t(plan.phases_size())) {
      // One past the last phase: the run's cleanup (the coordinator sends
      // this to agent 0 only, after every agent finished).
      Status s = RunFinalCleanup(o);
      if (!s.ok()) SLOG(kError) << s.message();
      SendEvent(s.ok() ? v1::Event::PHASE_READY : v1::Event::ERROR, phase_index, s.message());
      return;
    }
    o.clock_offset_ns = [this] { return clock_.OffsetNs(); };
    o.on_snapshot = [this, phase = plan.phases(phase_index).name()](const v1::Snapshot& s) {
      if (options_.metrics) options_.metrics->OnSnapshot(phase, s);
      v1::AgentMessage m;
      *m.mutable_snapshot() = s;
      Send(m);
    };
    o.on_log = [this, phase_index](const std::string& line) {
      SendEvent(v1::Event::LOG, phase_index, line);
    };
    auto runner = std::make_shared<PhaseRunner>(std::move(o));
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (phase_cancelled_) return;
      runner_ = runner;
    }
    Status s = runner->Prepare();
    if (!s.ok()) {
      SLOG(kError) << "phase " << plan.phases(phase_index).name() << ": " << s.message();
      SendEvent(v1::Event::ERROR, phase_index, s.message());
    } else {
      SendEvent(v1::Event::PHASE_READY, phase_index, "", runner->owed_ops());
      int64_t start_ns = 0;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return start_ns_ != 0 || phase_cancelled_ || stopping_; });
        start_ns = phase_cancelled_ || stopping_ ? 0 : start_ns_;
      }
      if (start_ns != 0) {
        runner->Run(start_ns);
        SendEvent(v1::Event::PHASE_DONE, phase_index, "", -1, runner->timed_out());
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    runner_.reset();
  }

  void CancelPhase() {
    std::shared_ptr<PhaseRunner> runner;
    {
      std::lock_guard<std::mutex> lock(mu_);
      phase_cancelled_ = true;
      runner = runner_;
    }
    cv_.notify_all();
    if (runner) runner->Cancel();
  }

  void StopWork() {
    CancelPhase();
    if (phase_thread_.joinable()) phase_thread_.join();
  }

 public:
  void JoinHeartbeat() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (heartbeat_.joinable()) heartbeat_.join();
    if (fault_thread_.joinable()) fault_thread_.join();
  }

 private:
  const AgentOptions& options_;
  std::unique_ptr<v1::Coordinator::Stub> stub_;
  grpc::ClientContext ctx_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::AgentMessage, v1::CoordinatorMessage>> stream_;
  std::mutex write_mu_;  // serializes stream_->Write
  ClockSync clock_;
  int64_t hello_sent_ns_ = 0;
  std::atomic<bool> welcomed_{false};

  // Reader-thread state.
  v1::Assignment assignment_;
  std::string run_id_;
  std::thread phase_thread_;
  std::thread heartbeat_;
  std::thread fault_thread_;

  std::mutex mu_;
  std::condition_variable cv_;
  uint32_t phase_index_ = 0;                // guarded by mu_
  int64_t start_ns_ = 0;                    // guarded by mu_
  bool phase_cancelled_ = false;            // guarded by mu_
  bool stopping_ = false;                   // guarded by mu_
  std::shared_ptr<PhaseRunner> runner_;     // guarded by mu_
  std::deque<v1::FaultCommand> faults_;     // guarded by mu_
};

Agent::Agent(AgentOptions options) : options_(std::move(options)) {
  if (!options_.credentials) options_.credentials = grpc::InsecureChannelCredentials();
}

Agent::~Agent() { Shutdown(); }

Status Agent::Run() {
  int64_t backoff_ms = 200;
  std::string last_error;
  while (!shutdown_.load()) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    auto channel = grpc::CreateCustomChannel(options_.coordinator, options_.credentials, args);
    auto session = std::make_shared<Session>(options_, channel);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (shutdown_.load()) break;
      current_ = session;
    }
    grpc::Status status = session->Serve();
    bool welcomed = session->welcomed();
    {
      std::lock_guard<std::mutex> lock(mu_);
      current_.reset();
    }
    if (shutdown_.load()) break;
    std::string error = status.error_message();
    if (status.error_code() == grpc::StatusCode::ALREADY_EXISTS ||
        status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      return Status::Error("coordinator " + options_.coordinator + " refused agent " +
                           options_.name + ": " + error);
    }
    if (!options_.reconnect) {
      if (welcomed) return Status::Ok();
      return Status::Error("cannot reach coordinator at " + options_.coordinator + ": " + error);
    }
    if (welcomed) {
      SLOG(kWarn) << "lost coordinator " << options_.coordinator << ": " << error
                  << "; reconnecting";
      backoff_ms = 200;
    } else if (error != last_error) {
      SLOG(kWarn) << "cannot reach coordinator at " << options_.coordinator << ": " << error
                  << "; retrying";
    }
    last_error = error;
    for (int64_t slept = 0; slept < backoff_ms && !shutdown_.load(); slept += 50) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    backoff_ms = std::min<int64_t>(backoff_ms * 2, 5000);
  }
  return Status::Ok();
}

void Agent::Shutdown() {
  shutdown_.store(true);
  std::lock_guard<std::mutex> lock(mu_);
  if (current_) current_->Cancel();
}

}  // namespace stampede::agent

#include "coordinator/fake_agent.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>

#include "common/clock.h"
#include "common/outcome.h"

namespace stampede::coordinator {
namespace {

constexpr int64_t kBeatNs = 300 * kNsPerMs;  // well inside the 3 s of silence
constexpr int64_t kIdleNs = 50 * kNsPerMs;   // the longest the loop sleeps

}  // namespace

// Two queues, one each way. The coordinator's side is the AgentLink; the
// agent's side is Send and Next.
class FakeAgent::QueueLink final : public AgentLink {
 public:
  bool Read(v1::AgentMessage* message) override {
    MutexLock lock(mu_);
    while (!closed_ && to_coordinator_.empty()) cv_.wait(lock.native());
    if (closed_) return false;
    *message = std::move(to_coordinator_.front());
    to_coordinator_.pop_front();
    return true;
  }
  bool Write(const v1::CoordinatorMessage& message) override {
    MutexLock lock(mu_);
    if (closed_) return false;
    to_agent_.push_back(message);
    cv_.notify_all();
    return true;
  }
  void Cancel() override { Close(); }

  void Close() {
    MutexLock lock(mu_);
    closed_ = true;
    cv_.notify_all();
  }
  void Send(v1::AgentMessage message) {
    MutexLock lock(mu_);
    if (closed_) return;
    to_coordinator_.push_back(std::move(message));
    cv_.notify_all();
  }
  enum class Next { kMessage, kIdle, kClosed };
  // The next message to the agent, waiting until until_ns (monotonic) at most.
  Next Take(v1::CoordinatorMessage* message, int64_t until_ns) {
    MutexLock lock(mu_);
    while (!closed_ && to_agent_.empty()) {
      const int64_t left = until_ns - MonoNowNs();
      if (left <= 0) return Next::kIdle;
      cv_.wait_for(lock.native(), std::chrono::nanoseconds(left));
    }
    if (closed_) return Next::kClosed;
    *message = std::move(to_agent_.front());
    to_agent_.pop_front();
    return Next::kMessage;
  }

 private:
  Mutex mu_;
  std::condition_variable cv_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<v1::AgentMessage> to_coordinator_ ABSL_GUARDED_BY(mu_);
  std::deque<v1::CoordinatorMessage> to_agent_ ABSL_GUARDED_BY(mu_);
};

FakeAgent::FakeAgent(AgentRegistry* registry, std::string name, FakeAgentScript script)
    : registry_(registry), name_(std::move(name)), script_(std::move(script)) {
  Connect(v1::RunPosition());
}

FakeAgent::~FakeAgent() { Close(); }

void FakeAgent::Close() {
  if (link_) link_->Close();
  if (agent_.joinable()) agent_.join();
  if (serve_.joinable()) serve_.join();
  link_.reset();
}

void FakeAgent::Connect(const v1::RunPosition& position) {
  v1::Hello hello;
  hello.set_name(name_);
  for (const std::string& n : script_.nodes) hello.add_nodes(n);
  if (!position.run_id().empty()) *hello.mutable_run() = position;
  link_ = std::make_shared<QueueLink>();
  serve_ = std::thread([this, link = link_, hello] { (void)ServeAgent(registry_, link.get(), hello, "fake"); });
  agent_ = std::thread([this, link = link_] { AgentLoop(link); });
}

void FakeAgent::Reconnect(bool running) {
  Close();
  v1::RunPosition position;
  position.set_run_id(run_id_);
  position.set_phase_index(phase_.index);
  position.set_running(running && phase_.start_ns != 0 && !phase_.done);
  position.set_restarted(!running);
  if (!running) phase_ = Phase();
  drop_at_ns_ = 0;
  silent_ = false;
  Connect(position);
}

std::vector<v1::CoordinatorMessage> FakeAgent::Received() const {
  MutexLock lock(mu_);
  return received_;
}

int FakeAgent::CountReceived(v1::CoordinatorMessage::MsgCase kind) const {
  MutexLock lock(mu_);
  return int(std::count_if(received_.begin(), received_.end(), [&](const auto& m) { return m.msg_case() == kind; }));
}

v1::CoordinatorMessage FakeAgent::Received(v1::CoordinatorMessage::MsgCase kind) const {
  MutexLock lock(mu_);
  for (const auto& m : received_) {
    if (m.msg_case() == kind) return m;
  }
  return {};
}

int64_t FakeAgent::ReceivedAt(v1::CoordinatorMessage::MsgCase kind) const {
  MutexLock lock(mu_);
  for (size_t i = 0; i < received_.size(); ++i) {
    if (received_[i].msg_case() == kind) return received_ns_[i];
  }
  return 0;
}

void FakeAgent::AgentLoop(std::shared_ptr<QueueLink> link) {
  next_beat_ns_ = MonoNowNs();
  for (;;) {
    const int64_t next = Tick(MonoNowNs(), link.get());
    v1::CoordinatorMessage m;
    const QueueLink::Next got = link->Take(&m, next);
    if (got == QueueLink::Next::kClosed) return;
    if (got == QueueLink::Next::kMessage) {
      {
        MutexLock lock(mu_);
        received_.push_back(m);
        received_ns_.push_back(MonoNowNs());
      }
      Handle(m, link.get());
    }
  }
}

void FakeAgent::Handle(const v1::CoordinatorMessage& m, QueueLink* link) {
  switch (m.msg_case()) {
    case v1::CoordinatorMessage::kAssignment:
      run_id_ = m.assignment().run_id();
      plan_ = m.assignment().plan();
      break;
    case v1::CoordinatorMessage::kPrepare:
      OnPrepare(m.prepare());
      break;
    case v1::CoordinatorMessage::kStart:
      OnStart(m.start());
      break;
    case v1::CoordinatorMessage::kFault:
      SendEvent(link, script_.fail_faults ? v1::Event::FAULT_FAILED : v1::Event::FAULT_DONE, phase_.index, -1,
                m.fault().fault_index(), script_.fail_faults ? "the script fails every fault" : "");
      break;
    case v1::CoordinatorMessage::kCleanup:
      SendEvent(link, v1::Event::CLEANUP_DONE, uint32_t(plan_.phases_size()));
      break;
    case v1::CoordinatorMessage::kStop:
      if (!m.stop().finished() && phase_.start_ns != 0 && !phase_.done) {
        // Its runner is cancelled: what it measured so far, then done.
        phase_.end_ns = std::min(phase_.end_ns, MonoNowNs());
      }
      break;
    default:
      break;
  }
}

void FakeAgent::OnPrepare(const v1::PreparePhase& p) {
  phase_ = Phase();
  phase_.index = p.phase_index();
  ready_at_ns_ = MonoNowNs() + script_.ready_delay_ns;
}

void FakeAgent::OnStart(const v1::StartPhase& s) {
  if (s.phase_index() != phase_.index) return;
  const v1::Phase& plan_phase = plan_.phases(int(phase_.index));
  const int64_t duration_ns = plan_phase.duration_ms() ? int64_t(plan_phase.duration_ms()) * kNsPerMs : kNsPerSec;
  phase_.start_ns = s.start_ns();
  phase_.end_ns = s.start_ns() + duration_ns;
  if (int(phase_.index) == script_.drop_phase) drop_at_ns_ = s.start_ns() + script_.drop_after_ns;
  if (int(phase_.index) == script_.silent_phase) silent_ = true;
}

int64_t FakeAgent::Tick(int64_t now_ns, QueueLink* link) {
  if (drop_at_ns_ && now_ns >= drop_at_ns_) {
    drop_at_ns_ = 0;
    link->Close();
    return now_ns;
  }
  if (!silent_ && now_ns >= next_beat_ns_) {
    v1::AgentMessage beat;
    beat.mutable_heartbeat()->set_agent_send_ns(now_ns);
    link->Send(std::move(beat));
    next_beat_ns_ = now_ns + kBeatNs;
  }
  if (ready_at_ns_ && now_ns >= ready_at_ns_) {
    ready_at_ns_ = 0;
    SendEvent(link, v1::Event::PHASE_READY, phase_.index);
  }
  SendSeconds(now_ns, link);
  int64_t next = now_ns + kIdleNs;
  if (!silent_) next = std::min(next, next_beat_ns_);
  if (ready_at_ns_) next = std::min(next, ready_at_ns_);
  if (drop_at_ns_) next = std::min(next, drop_at_ns_);
  return next;
}

void FakeAgent::SendSeconds(int64_t now_ns, QueueLink* link) {
  if (phase_.start_ns == 0 || phase_.done || silent_) return;
  for (;;) {
    const int64_t from = phase_.start_ns + int64_t(phase_.next_seq) * kNsPerSec;
    const int64_t to = std::min(from + kNsPerSec, phase_.end_ns);
    if (to > now_ns || from > to) return;
    v1::AgentMessage m;
    v1::Snapshot* s = m.mutable_snapshot();
    s->set_run_id(run_id_);
    s->set_agent(name_);
    s->set_phase_index(phase_.index);
    s->set_seq(phase_.next_seq++);
    s->set_start_ns(from);
    s->set_end_ns(to);
    s->set_active_workers(1);
    const bool final = to == phase_.end_ns;
    s->set_final(final);
    v1::OpStats* op = s->add_ops();
    op->set_op("read");
    op->add_outcomes(script_.ok_per_second * uint64_t(to - from) / uint64_t(kNsPerSec));
    for (int k = 1; k < kNumOutcomes; ++k) op->add_outcomes(0);
    if (op->outcomes(0)) {
      op->mutable_latency()->add_index(100);
      op->mutable_latency()->add_count(op->outcomes(0));
      op->mutable_latency()->set_sum_ns(op->outcomes(0) * 1000);
      op->mutable_latency()->set_max_ns(1000);
    }
    link->Send(std::move(m));
    if (final) {
      phase_.done = true;
      v1::AgentMessage done;
      v1::Event* e = done.mutable_event();
      e->set_kind(v1::Event::PHASE_DONE);
      e->set_run_id(run_id_);
      e->set_phase_index(phase_.index);
      e->set_time_ns(phase_.end_ns);
      e->set_owed_ops(-1);
      link->Send(std::move(done));
      return;
    }
  }
}

void FakeAgent::SendEvent(QueueLink* link, v1::Event::Kind kind, uint32_t phase, int64_t owed, uint32_t fault,
                          const std::string& message) {
  v1::AgentMessage m;
  v1::Event* e = m.mutable_event();
  e->set_kind(kind);
  e->set_run_id(run_id_);
  e->set_phase_index(phase);
  e->set_time_ns(MonoNowNs());
  e->set_owed_ops(owed);
  e->set_fault_index(fault);
  e->set_message(message);
  link->Send(std::move(m));
}

}  // namespace stampede::coordinator

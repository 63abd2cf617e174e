// RunController: agents lost and back (see run_controller.h).
#include <cstdio>

#include "common/clock.h"
#include "common/log.h"
#include "coordinator/run_controller.h"
#include "plan/phase_shape.h"
#include "report/text_format.h"

namespace stampede::coordinator {
namespace {

constexpr int64_t kJoinLeadNs = 300 * kNsPerMs;

}  // namespace

void RunController::OnAgentLost(const std::string& agent, const std::string& reason) {
  const std::string& policy = options_.plan.agents().on_loss();
  bool was_active;
  int64_t last_heard;
  int phase = -1;
  {
    MutexLock lock(mu_);
    auto it = agents_.find(agent);
    if (it == agents_.end() || !it->second.session) return;  // not in this run, or lost already
    Agent& a = it->second;
    last_heard = a.session->last_heard_ns();
    a.session.reset();
    a.lost = true;
    was_active = a.active;
    a.active = a.joining = a.join_pending = false;
    losses_.push_back(agent + " at " + report::Secs(Since(MonoNowNs())) + " (" + reason + ")");
    if (policy == "abort") {
      if (!error_) error_ = "lost agent " + agent + " (agents.on_loss: abort): " + reason;
    } else {
      if (phase_running_ && was_active) mergers_[size_t(phase_)]->DropAgent(agent);
      if (policy == "redistribute" && was_active && phase_running_) redistribute_.push_back(agent);
    }
    if (phase_running_ && was_active) phase = phase_;
  }
  // What it recorded since its last snapshot is gone unless its runner
  // goes on and hands it in (OnAgentJoined).
  if (phase >= 0) HistoryGap(uint32_t(phase), agent, "agent " + agent + " was lost mid-phase, with the events it held");
  record::AgentEvent lost;
  lost.event = "lost";
  lost.agent = agent;
  lost.t = Since(MonoNowNs());
  lost.last_heard_t = Since(last_heard);
  lost.reason = reason;
  Emit(lost);
  const std::string what = policy == "abort"          ? "aborting the run"
                           : policy == "redistribute" ? "handing its share to another agent"
                                                      : "continuing without its share";
  Log("lost agent " + agent + " (" + reason + "); " + what);
  v1::CoordinatorMessage notice;
  notice.set_notice("agent " + agent + " was lost (" + reason + "); the run is " + what);
  SendToActive(notice);
  cv_.notify_all();
}

void RunController::OnAgentJoined(const std::shared_ptr<RemoteAgent>& session, v1::Welcome* welcome) {
  const v1::RunPosition& pos = session->hello().run();
  bool replaced = false;
  {
    MutexLock lock(mu_);
    auto it = agents_.find(session->name());
    if (it == agents_.end()) return;  // not in this run: it idles
    Agent& a = it->second;
    if (a.session == session) return;  // its first session: the run took it in already
    replaced = a.session != nullptr;
    if (!replaced) {
      a.session = session;
      a.join_pending = true;
    }
    if (pos.run_id() == run_id_) {
      // Everything it spooled since the phase before the one it was in:
      // duplicates of what the journal has are dropped.
      welcome->set_run_id(run_id_);
      welcome->set_resend_from_phase(pos.phase_index() > 0 ? pos.phase_index() - 1 : 0);
    }
  }
  if (replaced) {
    // Back before its silent session was noticed: lost, then back.
    OnAgentLost(session->name(), "silent, then a new session of it opened");
    MutexLock lock(mu_);
    Agent& a = agents_.at(session->name());
    a.session = session;
    a.join_pending = true;
  }
  cv_.notify_all();
}

// On the run thread: the agents that came back, and the shares to hand over.
void RunController::TakeInJoins() {
  std::vector<std::string> joins, handover;
  {
    MutexLock lock(mu_);
    for (const auto& [name, a] : agents_) {
      if (a.join_pending && a.session && a.session->welcomed()) joins.push_back(name);
    }
    handover.swap(redistribute_);
  }
  for (const std::string& name : joins) TakeIn(name);
  for (const std::string& name : handover) Redistribute(name);
}

void RunController::TakeIn(const std::string& name) {
  v1::RunPosition pos;
  std::string how;
  bool assign = false, prepare = false;
  int whole = -1;  // the phase whose history it makes whole again
  v1::CoordinatorMessage m;
  {
    MutexLock lock(mu_);
    Agent& a = agents_.at(name);
    if (!a.join_pending || !a.session) return;
    a.join_pending = false;
    a.lost = false;
    pos = a.session->hello().run();
    const bool same_run = pos.run_id() == run_id_ && !pos.restarted();
    const bool free_slot = slots_.count(name) && !adopted_.count(name);
    assign = !same_run;
    if (same_run && pos.running() && phase_running_ && int(pos.phase_index()) == phase_ && free_slot) {
      // Its runner never stopped: its seconds count again, the ones it
      // missed come from its spool.
      a.active = true;
      mergers_[size_t(phase_)]->AddAgent(name);
      how = "its runner went on; rejoined phase " + options_.plan.phases(phase_).name();
      whole = phase_;
    } else if (phase_running_ && free_slot && plan::SharesMoveMidPhase(options_.plan.phases(phase_)) &&
               !(same_run && pos.running())) {
      // A new process, or one whose runner stopped: its share of the phase
      // from the next second on.
      a.joining = true;
      prepare = true;
      auto* p = m.mutable_prepare();
      p->set_run_id(run_id_);
      p->set_phase_index(uint32_t(phase_));
      p->set_slot(slots_.at(name));
      p->set_slots(slot_count_);
      for (uint32_t w : slot_weights_) p->add_weights(w);
      how = "rejoining phase " + options_.plan.phases(phase_).name() + " at the next second";
    } else {
      how = "takes part again from the next phase";
    }
  }
  // Its spool hands in every event it recorded meanwhile.
  if (whole >= 0) HistoryGap(uint32_t(whole), name, "");
  Emit(record::AgentEvent{"back", name, Since(MonoNowNs()), "", how, "", std::nullopt});
  Log("agent " + name + " is back: " + how);
  if (assign) SendAssignment(name);
  if (prepare) Send(name, m);
}

// A rejoining agent that has prepared its share starts it at the next
// whole second of the phase: what was due before is not its to do.
void RunController::StartJoiners() {
  std::vector<std::pair<std::string, v1::CoordinatorMessage>> starts;
  {
    MutexLock lock(mu_);
    if (!phase_running_) return;
    for (auto& [name, a] : agents_) {
      if (!a.joining || !a.session || !barrier_.Has(Mark::kReady, uint32_t(phase_), name)) continue;
      a.joining = false;
      a.active = true;
      const int64_t since = MonoNowNs() + kJoinLeadNs - phase_start_ns_;
      const int64_t join_ns = phase_start_ns_ + (since / kNsPerSec + 1) * kNsPerSec;
      mergers_[size_t(phase_)]->AddAgent(name);
      v1::CoordinatorMessage m;
      m.mutable_start()->set_run_id(run_id_);
      m.mutable_start()->set_phase_index(uint32_t(phase_));
      m.mutable_start()->set_start_ns(phase_start_ns_);
      m.mutable_start()->set_join_ns(join_ns);
      starts.emplace_back(name, m);
    }
  }
  for (const auto& [name, m] : starts) Send(name, m);
}

// on_loss: redistribute. The lost agent's share of a timed open-loop phase
// goes to the next agent (in assignment order) from the next second on;
// any other phase's share waits for the next phase, split over those left.
void RunController::Redistribute(const std::string& lost) {
  std::string adopter, phase_name;
  v1::CoordinatorMessage m;
  {
    MutexLock lock(mu_);
    if (!phase_running_ || !slots_.count(lost)) return;
    const v1::Phase& phase = options_.plan.phases(phase_);
    phase_name = phase.name();
    if (plan::SharesMoveMidPhase(phase)) {
      const size_t n = names_.size();
      const size_t from = agents_.at(lost).index;
      for (size_t k = 1; k < n && adopter.empty(); ++k) {
        const std::string& candidate = names_[(from + k) % n];
        const Agent& c = agents_.at(candidate);
        if (c.active && c.session) adopter = candidate;
      }
    }
    if (!adopter.empty()) {
      adopted_[lost] = adopter;
      const int64_t since = MonoNowNs() + 2 * kJoinLeadNs - phase_start_ns_;
      auto* a = m.mutable_adopt();
      a->set_run_id(run_id_);
      a->set_phase_index(uint32_t(phase_));
      a->set_slot(slots_.at(lost));
      a->set_slots(slot_count_);
      for (uint32_t w : slot_weights_) a->add_weights(w);
      a->set_start_ns(phase_start_ns_);
      a->set_join_ns(phase_start_ns_ + (since / kNsPerSec + 1) * kNsPerSec);
      a->set_source(lost);
      mergers_[size_t(phase_)]->AddAgent(adopter + "+" + lost);
    }
  }
  if (adopter.empty()) {
    Log("agent " + lost + "'s share of phase " + phase_name +
        " cannot move mid-phase (not a timed open-loop phase): it is missed; the next phase is split over the agents "
        "left");
    return;
  }
  Emit(record::AgentEvent{"adopted", adopter, Since(MonoNowNs()), "", "", lost, std::nullopt});
  Log("agent " + adopter + " takes over " + lost + "'s share of phase " + phase_name);
  Send(adopter, m);
}

}  // namespace stampede::coordinator

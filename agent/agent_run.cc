#include "agent/agent_run.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "agent/one_off_statements.h"
#include "common/clock.h"
#include "common/log.h"

namespace stampede::agent {

AgentRun::AgentRun(std::string name, EngineOptions engine, const AgentConfig* config, Spool* spool, ClockSync* clock,
                   Outbox* outbox, metrics::MetricsExporter* metrics, ThreadCpu* cpu)
    : name_(std::move(name)),
      engine_(std::move(engine)),
      config_(config),
      spool_(spool),
      clock_(clock),
      outbox_(outbox),
      metrics_(metrics),
      cpu_(cpu) {}

AgentRun::~AgentRun() { Shutdown(); }

void AgentRun::LoadPrevious() {
  std::string run_id;
  if (!spool_->LoadPrevious(&run_id)) return;
  MutexLock lock(mu_);
  run_id_ = run_id;
  restarted_ = true;
  SLOG(kInfo) << "found the spool of run " << run_id << " (" << spool_->path()
              << "): it goes to the coordinator if it knows the run";
}

bool AgentRun::Position(v1::RunPosition* pos) const {
  MutexLock lock(mu_);
  if (run_id_.empty()) return false;
  pos->set_run_id(run_id_);
  pos->set_phase_index(phase_ ? phase_->index : spool_->last_phase());
  pos->set_running(phase_ && phase_->running);
  pos->set_restarted(restarted_);
  return true;
}

void AgentRun::Record(uint32_t phase, const v1::AgentMessage& m) {
  spool_->Append(phase, m);
  outbox_->Push(m);
}

void AgentRun::Event(v1::Event::Kind kind, uint32_t phase, const std::string& message, int64_t owed, bool timed_out,
                     const v1::WritesCheck* writes, int64_t time_ns) {
  v1::AgentMessage m;
  auto* e = m.mutable_event();
  e->set_kind(kind);
  {
    MutexLock lock(mu_);
    e->set_run_id(run_id_);
  }
  e->set_phase_index(phase);
  e->set_time_ns(time_ns ? time_ns : MonoNowNs() + clock_->OffsetNs());
  e->set_message(message);
  e->set_owed_ops(owed);
  e->set_timed_out(timed_out);
  if (writes) *e->mutable_writes() = *writes;
  Record(phase, m);
}

void AgentRun::OnWelcome(const v1::Welcome& welcome, const std::string& hello_run) {
  std::string run;
  {
    MutexLock lock(mu_);
    run = run_id_;
    // The welcome answers the hello: a run assigned since is not its business.
    if (run.empty() || run != hello_run) return;
    if (welcome.run_id() == run) lost_since_ns_ = 0;
  }
  if (welcome.run_id() != run) {
    StopRun("the coordinator does not know run " + run + " (any more)", true);
    return;
  }
  // Everything the coordinator may have missed; it drops what it has.
  const auto records = spool_->Since(welcome.resend_from_phase());
  SLOG(kInfo) << "back with the coordinator in run " << run << ": handing in " << records.size()
              << " spooled record(s) from phase " << welcome.resend_from_phase();
  for (const v1::AgentMessage& m : records) outbox_->Push(m);
}

void AgentRun::OnAssignment(const v1::Assignment& assignment) {
  MutexLock lock(mu_);
  if (assignment.run_id() != run_id_ || !restarted_) {
    CancelRunnersLocked();
    Status s = spool_->Begin(assignment.run_id());
    if (!s.ok()) SLOG(kWarn) << s.message() << "; records are kept in memory only";
  }
  restarted_ = false;
  ledger_.reset();
  assignment_ = assignment;
  ledger_ = std::make_unique<plan::FaultLedger>(assignment_.plan());
  run_id_ = assignment.run_id();
  assigned_ = true;
  lost_since_ns_ = 0;
  paused_resumed_ = false;
  SLOG(kInfo) << "assigned run " << run_id_ << " as agent " << assignment.agent_index() + 1 << " of "
              << assignment.agent_count();
}

void AgentRun::OnPrepare(const v1::PreparePhase& prepare) {
  MutexLock lock(mu_);
  if (!assigned_ || prepare.run_id() != run_id_ || stopping_) return;
  // A runner still on an earlier phase (this agent was away while the run
  // moved on) stops: that phase is over. So does one prepared but not
  // started (a restarted coordinator prepares its phase again).
  if (phase_ &&
      (phase_->index < prepare.phase_index() || (phase_->index == prepare.phase_index() && !phase_->running))) {
    phase_->cancelled = true;
    if (phase_->runner) phase_->runner->Cancel();
  }
  auto phase = std::make_shared<Phase>();
  phase->index = prepare.phase_index();
  phase_ = phase;
  std::thread previous = std::move(phase_thread_);
  phase_thread_ = std::thread([this, prepare, prev = std::move(previous)]() mutable {
    if (prev.joinable()) prev.join();
    PhaseMain(prepare);
  });
  cv_.notify_all();
}

void AgentRun::OnStart(const v1::StartPhase& start) {
  {
    MutexLock lock(mu_);
    if (start.run_id() != run_id_ || !phase_ || phase_->index != start.phase_index()) return;
    phase_->start_ns = start.start_ns();
    phase_->join_ns = start.join_ns();
    phase_->started = true;
  }
  cv_.notify_all();
}

void AgentRun::OnStop(const v1::Stop& stop) {
  if (stop.finished()) {
    {
      MutexLock lock(mu_);
      if (stop.run_id() != run_id_) return;
    }
    SLOG(kInfo) << "run " << stop.run_id() << " over: " << stop.reason();
    StopRun("", false);
    return;
  }
  MutexLock lock(mu_);
  if (stop.run_id() != run_id_) return;
  SLOG(kInfo) << "run " << run_id_ << " stopped: " << stop.reason();
  CancelRunnersLocked();
  cv_.notify_all();
}

void AgentRun::CancelRunnersLocked() {
  if (!phase_) return;
  phase_->cancelled = true;
  if (phase_->runner) phase_->runner->Cancel();
}

PhaseRunnerOptions AgentRun::RunnerOptions(uint32_t phase, uint32_t slot, uint32_t slots, bool lead,
                                           const std::string& source, const std::vector<uint32_t>& weights) {
  PhaseRunnerOptions o;
  {
    MutexLock lock(mu_);
    o.plan = assignment_.plan();
    o.run_id = run_id_;
    o.agent_index = slots ? slot : assignment_.agent_index();
    o.agent_count = slots ? slots : assignment_.agent_count();
  }
  if (slots && weights.size() == slots) o.weights = weights;
  o.agent_name = source.empty() ? name_ : name_ + "+" + source;
  o.threads = engine_.threads;
  o.phase_index = phase;
  o.lead = lead;
  o.cpu = cpu_;
  o.clock_offset_ns = [this] { return clock_->OffsetNs(); };
  o.clock_uncertainty_ns = [this] { return clock_->UncertaintyNs(); };
  const std::string phase_name = phase < uint32_t(o.plan.phases_size()) ? o.plan.phases(int(phase)).name() : "";
  o.on_snapshot = [this, phase, phase_name](const v1::Snapshot& s) {
    if (metrics_ && s.part() == 0) metrics_->OnSnapshot(phase_name, s);
    v1::AgentMessage m;
    *m.mutable_snapshot() = s;
    Record(phase, m);
  };
  o.on_log = [this, phase](const std::string& line) { Event(v1::Event::LOG, phase, line); };
  return o;
}

void AgentRun::OnCleanup(const v1::RunCleanup& cleanup) {
  MutexLock lock(mu_);
  if (!assigned_ || cleanup.run_id() != run_id_ || stopping_) return;
  // Every agent is done with the last phase: this one's runner has ended.
  std::thread previous = std::move(phase_thread_);
  phase_thread_ = std::thread([this, prev = std::move(previous)]() mutable {
    if (prev.joinable()) prev.join();
    CleanupMain();
  });
}

void AgentRun::CleanupMain() {
  ThreadCpu::Scope counted(cpu_);
  uint32_t index;
  {
    MutexLock lock(mu_);
    index = uint32_t(assignment_.plan().phases_size());
  }
  PhaseRunnerOptions o = RunnerOptions(index, 0, 0, true, "");
  if (!Admit(&o)) return;
  Status s = RunFinalCleanup(o);
  if (!s.ok()) SLOG(kError) << s.message();
  Event(s.ok() ? v1::Event::CLEANUP_DONE : v1::Event::ERROR, index, s.message());
}

// Before any connection: may a plan make this agent do this, can it do the
// plan's faults on its nodes, and is the target's password here? Says why
// not (ERROR) if not.
bool AgentRun::Admit(PhaseRunnerOptions* o) {
  Status allowed = config_->allow.Check(o->plan);
  const std::vector<std::string> mine = config_->faults.nodes();
  for (int i = 0; i < o->plan.faults_size() && allowed.ok(); ++i) {
    const v1::Fault& f = o->plan.faults(i);
    if (std::find(mine.begin(), mine.end(), f.node()) == mine.end()) continue;
    if (Status s = config_->faults.Check(f.action(), f.node(), f.net()); !s.ok()) {
      allowed = Status::Error("faults[" + std::to_string(i) + "] (" + f.action() + " " + f.node() +
                              ") cannot be done by agent " + name_ + ": " + s.message());
    }
  }
  if (!allowed.ok()) {
    SLOG(kError) << allowed.message();
    Event(v1::Event::ERROR, o->phase_index, allowed.message());
    return false;
  }
  const std::string missing = ReadPasswords(o);
  if (missing.empty()) return true;
  Event(v1::Event::ERROR, o->phase_index, missing + " is not set on agent " + name_);
  return false;
}

std::string AgentRun::ReadPasswords(PhaseRunnerOptions* o) {
  const v1::Target& t = o->plan.target();
  std::string missing;
  for (auto [field, env, into] :
       {std::tuple{"target.password_env", &t.password_env(), &o->password},
        std::tuple{"target.sentinel.password_env", &t.sentinel().password_env(), &o->sentinel_password}}) {
    if (env->empty()) continue;
    const char* value = std::getenv(env->c_str());
    if (value != nullptr) {
      *into = value;
    } else if (missing.empty()) {
      missing = std::string(field) + ": environment variable " + *env;
    }
  }
  return missing;
}

void AgentRun::PhaseMain(v1::PreparePhase prepare) {
  ThreadCpu::Scope counted(cpu_);
  const uint32_t index = prepare.phase_index();
  PhaseRunnerOptions o = RunnerOptions(index, prepare.slot(), prepare.slots(), prepare.lead(), "",
                                       {prepare.weights().begin(), prepare.weights().end()});
  if (index >= uint32_t(o.plan.phases_size())) {
    Event(v1::Event::ERROR, index, "the plan has no phase " + std::to_string(index));
    return;
  }
  if (!Admit(&o)) return;
  std::shared_ptr<PhaseRunner> runner = PhaseRunner::Create(std::move(o));
  std::shared_ptr<Phase> phase;
  {
    MutexLock lock(mu_);
    if (!phase_ || phase_->index != index || phase_->cancelled) return;
    phase = phase_;
    phase->runner = runner;
  }
  const int64_t prepare_ns = MonoNowNs();
  Status s = runner->Prepare();
  if (!s.ok()) {
    SLOG(kError) << "phase " << index << ": " << s.message();
    Event(v1::Event::ERROR, index, s.message());
    return;
  }
  char took[32];
  std::snprintf(took, sizeof(took), "%.2fs", double(MonoNowNs() - prepare_ns) / 1e9);
  SLOG(kInfo) << "phase " << index << ": " << runner->workers() << " workers connected in " << took;
  Event(v1::Event::PHASE_READY, index, "", runner->owed_ops());
  {
    MutexLock lock(mu_);
    while (!phase->started && !phase->cancelled && !stopping_) cv_.wait(lock.native());
    if (!phase->started || phase->cancelled || stopping_) return;
    phase->running = true;
  }
  runner->Run(phase->start_ns, phase->join_ns);
  std::vector<std::shared_ptr<PhaseRunner>> adopted;
  {
    // A share this agent took over in this phase ends with it.
    MutexLock lock(mu_);
    while (phase->adopting != 0) cv_.wait(lock.native());
    phase->running = false;
    adopted.swap(phase->adopted);
  }
  // Dated when its last worker stopped, not after its connections closed.
  Event(v1::Event::PHASE_DONE, index, "", -1, runner->timed_out(), nullptr, runner->ended_coord_ns());
  if (runner->check_writes()) CheckWrites(index, runner.get(), adopted);
}

// The read-back of this agent's share and of the shares it took over, as
// one answer, all under one budget.
void AgentRun::CheckWrites(uint32_t index, PhaseRunner* runner,
                           const std::vector<std::shared_ptr<PhaseRunner>>& adopted) {
  const int64_t until = MonoNowNs() + PhaseRunner::kWritesCheckBudgetNs;
  v1::WritesCheck check = runner->CheckWrites(PhaseRunner::kWritesCheckBudgetNs);
  for (const auto& other : adopted) {
    PhaseRunner::AddWritesCheck(other->CheckWrites(std::max<int64_t>(0, until - MonoNowNs())), &check);
  }
  SLOG(kInfo) << "phase " << index << ": writes checked: " << check.acked() << " acknowledged, " << check.lost()
              << " lost, " << check.unchecked() << " unchecked";
  Event(v1::Event::WRITES_CHECKED, index, "", -1, false, &check);
}

void AgentRun::OnAdopt(const v1::AdoptShare& adopt) {
  MutexLock lock(mu_);
  if (adopt.run_id() != run_id_ || !phase_ || phase_->index != adopt.phase_index() || !phase_->running) {
    SLOG(kWarn) << "cannot take over " << adopt.source() << "'s share of phase " << adopt.phase_index()
                << ": this agent is not running that phase";
    return;
  }
  phase_->adopting++;
  adopt_threads_.emplace_back([this, adopt, phase = phase_] { AdoptMain(adopt, phase); });
}

void AgentRun::AdoptMain(v1::AdoptShare adopt, std::shared_ptr<Phase> phase) {
  ThreadCpu::Scope counted(cpu_);
  PhaseRunnerOptions o = RunnerOptions(adopt.phase_index(), adopt.slot(), adopt.slots(), false, adopt.source(),
                                       {adopt.weights().begin(), adopt.weights().end()});
  ReadPasswords(&o);  // a missing one shows as the connections' error
  Status s = config_->allow.Check(o.plan);
  std::shared_ptr<PhaseRunner> runner = s.ok() ? PhaseRunner::Create(std::move(o)) : nullptr;
  if (s.ok()) s = runner->Prepare();
  if (s.ok()) {
    SLOG(kInfo) << "took over " << adopt.source() << "'s share of phase " << adopt.phase_index();
    runner->Run(adopt.start_ns(), adopt.join_ns());
  } else {
    Event(v1::Event::LOG, adopt.phase_index(), "could not take over " + adopt.source() + "'s share: " + s.message());
  }
  MutexLock lock(mu_);
  if (s.ok()) phase->adopted.push_back(runner);
  phase->adopting--;
  cv_.notify_all();
}

// Fault actions run on their own thread, never on the stream's reader.
void AgentRun::OnFault(const v1::FaultCommand& f) {
  {
    MutexLock lock(mu_);
    if (f.run_id() != run_id_) return;
    faults_.push_back(f);
    if (!fault_thread_.joinable()) fault_thread_ = std::thread([this] { FaultMain(); });
  }
  cv_.notify_all();
}

void AgentRun::FaultMain() {
  ThreadCpu::Scope counted(cpu_);
  MutexLock lock(mu_);
  while (!stopping_ || !faults_.empty()) {
    if (faults_.empty()) {
      cv_.wait(lock.native());
      continue;
    }
    v1::FaultCommand f = faults_.front();
    faults_.pop_front();
    fault_busy_ = true;
    if (ledger_ && f.fault_index() < uint32_t(assignment_.plan().faults_size())) ledger_->Sent(int(f.fault_index()));
    lock.Unlock();
    Status s = config_->faults.Check(f.action(), f.node(), f.net());
    if (!s.ok()) {
      SLOG(kWarn) << "refused fault " << f.action() << " on " << f.node() << ": " << s.message();
    } else {
      SLOG(kInfo) << "fault: " << f.action() << " " << f.node();
      s = config_->faults.Run(f.action(), f.node(), f.net(), f.disk());
    }
    lock.Lock();
    if (s.ok() && ledger_) ledger_->TookEffect(f.action(), f.node());
    lock.Unlock();
    if (!f.run_id().empty()) {
      v1::AgentMessage m;
      auto* e = m.mutable_event();
      e->set_kind(s.ok() ? v1::Event::FAULT_DONE : v1::Event::FAULT_FAILED);
      e->set_run_id(f.run_id());
      e->set_fault_index(f.fault_index());
      e->set_time_ns(MonoNowNs() + clock_->OffsetNs());
      e->set_message(s.ok() ? f.action() + " " + f.node() : s.message());
      uint32_t phase;
      {
        MutexLock l(mu_);
        phase = phase_ ? phase_->index : 0;
      }
      Record(phase, m);
    } else {
      if (s.ok()) {
        SLOG(kInfo) << "undo " << f.action() << " " << f.node() << ": done";
      } else {
        SLOG(kError) << "undo " << f.action() << " " << f.node() << ": " << s.message();
      }
    }
    lock.Lock();
    fault_busy_ = false;
    cv_.notify_all();
  }
}

void AgentRun::UndoLocal(bool resumes_only, const std::string& why) {
  MutexLock lock(mu_);
  if (!ledger_) return;
  for (const plan::FaultLedger::Undo& u : ledger_->Pending()) {
    if (resumes_only && u.action != "resume" && u.action != "heal") continue;
    SLOG(kWarn) << "undo: " << u.action << " " << u.node << " (" << why << ")";
    v1::FaultCommand f;  // no run id: done here, not for a coordinator
    f.set_action(u.action);
    f.set_node(u.node);
    faults_.push_back(f);
    if (!fault_thread_.joinable()) fault_thread_ = std::thread([this] { FaultMain(); });
  }
  cv_.notify_all();
}

void AgentRun::OnCoordinatorLost() {
  MutexLock lock(mu_);
  if (!run_id_.empty() && lost_since_ns_ == 0) lost_since_ns_ = MonoNowNs();
}

void AgentRun::Tick() {
  int64_t lost;
  bool resumed;
  {
    MutexLock lock(mu_);
    lost = lost_since_ns_ ? MonoNowNs() - lost_since_ns_ : 0;
    resumed = paused_resumed_;
    if (lost >= config_->resume_paused_after_ms * kNsPerMs) paused_resumed_ = true;
  }
  if (!lost) return;
  const std::string gone = "no coordinator for " + std::to_string(lost / kNsPerSec) + " s";
  if (!resumed && lost >= config_->resume_paused_after_ms * kNsPerMs) {
    UndoLocal(true, gone + " (coordinator_lost.resume_paused_after)");
  }
  if (lost >= config_->stop_run_after_ms * kNsPerMs) {
    StopRun(gone + " (coordinator_lost.stop_run_after)", true);
  }
}

void AgentRun::StopRun(const std::string& why, bool keep_spool) {
  std::string run;
  {
    MutexLock lock(mu_);
    run = run_id_;
    if (run.empty()) return;
    CancelRunnersLocked();
  }
  if (!why.empty()) {
    SLOG(kWarn) << "stopping run " << run << ": " << why;
    UndoLocal(false, why);
  }
  // Let the undo finish before the run is forgotten.
  {
    MutexLock lock(mu_);
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(config_->faults.timeout_ms() + 1000);
    while (!faults_.empty() || fault_busy_) {
      if (cv_.wait_until(lock.native(), until) == std::cv_status::timeout) break;
    }
    run_id_.clear();
    assigned_ = false;
    restarted_ = false;
    lost_since_ns_ = 0;
    ledger_.reset();
  }
  if (keep_spool) {
    const std::string kept = spool_->Keep();
    if (!kept.empty()) {
      SLOG(kWarn) << "the spool of run " << run << " is kept in " << kept << ": stampede report RESULTS_DIR --spool "
                  << kept;
    }
  } else {
    spool_->Drop();
  }
}

void AgentRun::Shutdown() {
  {
    MutexLock lock(mu_);
    if (stopping_) return;
    CancelRunnersLocked();
  }
  // Nothing this agent paused or killed stays so because it went away.
  UndoLocal(false, "the agent is shutting down");
  std::vector<std::thread> threads;
  {
    MutexLock lock(mu_);
    stopping_ = true;
    threads.swap(adopt_threads_);
    threads.push_back(std::move(phase_thread_));
    threads.push_back(std::move(fault_thread_));
  }
  cv_.notify_all();
  for (auto& t : threads) {
    if (t.joinable()) t.join();
  }
}

}  // namespace stampede::agent

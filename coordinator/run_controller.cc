#include "coordinator/run_controller.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "common/clock.h"
#include "common/duration.h"
#include "common/log.h"
#include "common/strings.h"
#include "coordinator/agent_roles.h"
#include "coordinator/baseline.h"
#include "coordinator/result_files.h"
#include "plan/fault_loader.h"
#include "plan/plan_expander.h"
#include "record/record_codec.h"

namespace stampede::coordinator {
namespace {

std::string UtcNow(const char* format) {
  std::time_t t = std::time(nullptr);
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), format, &tm);
  return buf;
}

std::string TargetDescription(const v1::Target& t) {
  std::vector<std::string> eps(t.endpoints().begin(), t.endpoints().end());
  return t.driver() + " (" + t.flavor() + ") " + Join(eps, ", ");
}

std::string PlanJson(const v1::Plan& plan) {
  std::string text;
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(plan, &text, o);
  return text;
}

}  // namespace

RunController::RunController(RunOptions options, AgentRegistry* registry)
    : options_(std::move(options)),
      registry_(registry),
      health_([this](const record::HealthPoll& poll) { OnHealthPoll(poll); },
              [this](const std::string& l) { Log(l); }) {}

void RunController::OnHealthPoll(const record::HealthPoll& poll) {
  {
    MutexLock lock(mu_);
    recent_polls_.emplace_back(run_start_ns_ + int64_t(poll.t * 1e9), poll.healthy);
    if (recent_polls_.size() > kRecentPolls) recent_polls_.pop_front();
  }
  Emit(poll);
}

FaultSchedule::Progress RunController::RollProgress() {
  FaultSchedule::Progress p;
  p.healthy_polls_needed = int(std::max<uint32_t>(1, options_.plan.target().health().consecutive()));
  std::deque<std::pair<int64_t, bool>> polls;
  {
    MutexLock lock(mu_);
    p.done_ns = fault_done_ns_;
    polls = recent_polls_;
  }
  p.healthy_polls_since = [polls = std::move(polls)](int64_t since) {
    int n = 0;
    for (auto it = polls.rbegin(); it != polls.rend() && it->first >= since && it->second; ++it) ++n;
    return n;
  };
  return p;
}

RunController::~RunController() { health_.Stop(); }

bool RunController::Cancelled() { return options_.observer && options_.observer->Cancelled(); }

void RunController::Log(const std::string& line) {
  SLOG(kInfo) << line;
  if (options_.observer) options_.observer->OnLog(line);
}

void RunController::Emit(const record::Record& r) {
  if (std::holds_alternative<record::FaultSent>(r) || std::holds_alternative<record::HealthPoll>(r)) {
    MutexLock lock(move_mu_);
    move_.Add(r);
  }
  Status s = journal_.Append(r);
  if (options_.on_record) options_.on_record(r);
  JournalWritten(s);
}

void RunController::JournalWritten(const Status& s) {
  if (s.ok() || journal_failed_.exchange(true)) return;
  // A journal that cannot be written (a full disk) ends the run: what it
  // holds so far stays readable.
  const std::string why =
      "results: " + s.message() + "; the run was stopped and the journal keeps what was written before";
  SLOG(kError) << why;
  {
    MutexLock lock(mu_);
    if (!error_) error_ = why;
  }
  cv_.notify_all();
}

void RunController::Send(const std::string& name, const v1::CoordinatorMessage& m) {
  std::shared_ptr<RemoteAgent> session;
  {
    MutexLock lock(mu_);
    auto it = agents_.find(name);
    if (it != agents_.end()) session = it->second.session;
  }
  if (session) session->Send(m);
}

void RunController::SendToActive(const v1::CoordinatorMessage& m) {
  std::vector<std::shared_ptr<RemoteAgent>> to;
  {
    MutexLock lock(mu_);
    for (const auto& [name, a] : agents_) {
      if (a.active && a.session) to.push_back(a.session);
    }
  }
  for (const auto& s : to) s->Send(m);
}

std::vector<std::string> RunController::ActiveNamesLocked() const {
  std::vector<std::string> out;
  for (const std::string& n : names_) {
    const Agent& a = agents_.at(n);
    if (a.session && !a.lost) out.push_back(n);
  }
  return out;
}

std::vector<std::string> RunController::LoadNamesLocked() const {
  const std::vector<std::string> active = ActiveNamesLocked();
  std::vector<const v1::Hello*> hellos;
  for (const std::string& n : active) hellos.push_back(&agents_.at(n).session->hello());
  auto load = LoadAgents(options_.plan.agents(), active, hellos);
  return load.ok() && !load->empty() ? *load : active;
}

void RunController::AssignSlotsLocked(const std::vector<std::string>& by_slot) {
  slots_.clear();
  for (size_t i = 0; i < by_slot.size(); ++i) slots_[by_slot[i]] = uint32_t(i);
  slot_count_ = uint32_t(by_slot.size());
  slot_weights_.clear();
  if (options_.plan.agents().split() != "capacity") return;
  std::vector<uint32_t> capacity;
  for (const std::string& name : by_slot) {
    const Agent& a = agents_.at(name);
    capacity.push_back(a.session ? a.session->hello().capacity() : 0);
  }
  slot_weights_ = ShareWeights(capacity);
}

StatusOr<std::map<std::string, std::string>> RunController::AgentRoles() {
  MutexLock lock(mu_);
  std::vector<const v1::Hello*> hellos;
  for (const std::string& n : names_) hellos.push_back(&agents_.at(n).session->hello());
  auto load = LoadAgents(options_.plan.agents(), names_, hellos);
  if (!load.ok()) return Status::Error(load.status().message() + "; nothing was run");
  std::map<std::string, std::string> roles;
  for (size_t i = 0; i < names_.size(); ++i) {
    const bool loads = std::find(load->begin(), load->end(), names_[i]) != load->end();
    roles[names_[i]] = RoleOf(*hellos[i], loads);
  }
  return roles;
}

v1::RunResult RunController::Run() {
  int first = 0;
  bool in_progress = false;
  Status s = options_.resume_dir.empty() ? Begin() : Resume(&first, &in_progress);
  if (!s.ok()) {
    v1::RunResult r = Finish(false, s.message());
    r.set_bad_input(s.kind() == StatusKind::kInvalidInput);
    return r;
  }
  for (int p = first; p < options_.plan.phases_size(); ++p) {
    // A resumed run picks its phase in progress up where it is.
    if (in_progress && p == first) {
      s = EndPhase(p, WaitFor(Mark::kDone, uint32_t(p), {}));
      if (s.ok() && options_.plan.phases(p).check_writes()) s = CheckWrites(p);
    } else {
      s = RunPhase(p);
    }
    if (!s.ok()) return Finish(false, s.message());
  }
  s = RunFinalCleanup();
  return Finish(s.ok(), s.message());
}

// The results directory, the agents, the run line and the assignments.
Status RunController::Begin() {
  // Stepped workloads become one phase per step; plan.yaml keeps the plan
  // as written, the run line the plan as submitted.
  const std::string submitted = PlanJson(options_.plan);
  options_.plan = plan::ExpandSteps(options_.plan);
  const v1::Plan& plan = options_.plan;
  run_start_ns_ = MonoNowNs();
  if (plan.timeout_ms()) run_deadline_ns_ = run_start_ns_ + int64_t(plan.timeout_ms()) * kNsPerMs;
  const std::string started_at = UtcNow("%Y-%m-%dT%H:%M:%SZ");
  run_id_ = UtcNow("%Y%m%d-%H%M%S") + "-" + plan.name();
  auto dir = MakeRunDir(options_.results_root, options_.results_dir, run_id_, options_.plan_yaml);
  if (!dir.ok()) return dir.status();
  dir_ = *dir;
  Status s = journal_.Open(dir_ + "/journal.jsonl");
  if (!s.ok()) return s.WithContext("results");
  journal_open_ = true;
  if (!(s = WaitForAgents()).ok()) return s;
  if (!(s = CheckFaultOwners()).ok()) return s;
  auto roles = AgentRoles();
  if (!roles.ok()) return roles.status();
  record::RunStart run;
  run.run_id = run_id_;
  run.plan_name = plan.name();
  run.results_dir = dir_;
  run.started_at = started_at;
  run.target = TargetDescription(plan.target());
  run.recovery = {plan.recovery().baseline_ms() / 1000.0, plan.recovery().recovered_fraction(),
                  plan.recovery().hold_ms() / 1000.0, int(plan.target().health().consecutive()),
                  plan.recovery().balance_tolerance() > 0 ? plan.recovery().balance_tolerance() : 0.1};
  {
    MutexLock lock(move_mu_);
    move_ = report::MoveProgress(run.recovery.balance_tolerance);
  }
  run.agents = names_;
  run.roles = *roles;
  run.ns_per_op = plan.report().ns_per_op();
  run.hdr_log = plan.report().hdr_log();
  run.resumable = options_.resumable;
  run.mono_start_ns = run_start_ns_;
  run.plan_json = submitted;
  for (const v1::Expectation& e : plan.expect()) {
    if (auto parsed = record::ParseExpectation(e.scope(), e.subject(), e.text()); parsed.ok()) {
      run.expect.push_back(std::move(*parsed));
    }
  }
  const std::string baseline = ReadBaseline(options_.history, plan, &run);
  Emit(run);
  if (!baseline.empty()) Log(baseline);
  SetRecording(true);
  if (options_.observer) options_.observer->OnStarted(run_id_, dir_);
  Log("run " + run_id_ + " with " + std::to_string(names_.size()) + " agent(s): " + Join(names_, ", "));
  health_.Start(plan.target(), run_start_ns_);
  for (const std::string& name : names_) SendAssignment(name);
  return Status::Ok();
}

Status RunController::WaitForAgents() {
  const v1::Plan& plan = options_.plan;
  const uint32_t min_agents = plan.agents().min();
  if (registry_->size() < min_agents) {
    Log("waiting up to " + std::to_string(plan.agents().wait_ms() / 1000) + "s for " + std::to_string(min_agents) +
        " agent(s), " + std::to_string(registry_->size()) + " connected");
  }
  size_t n = registry_->WaitForAgents(min_agents, run_start_ns_ + int64_t(plan.agents().wait_ms()) * kNsPerMs,
                                      [this] { return Cancelled(); });
  if (Cancelled()) return Status::Error("aborted before start");
  if (n < min_agents) {
    std::vector<std::string> names;
    for (const auto& a : registry_->Connected()) names.push_back(a->name());
    return Status::Error("waited " + std::to_string(plan.agents().wait_ms() / 1000) + "s for " +
                         std::to_string(min_agents) + " agent(s); " + std::to_string(n) + " connected" +
                         (names.empty() ? "" : " (" + Join(names, ", ") + ")"));
  }
  MutexLock lock(mu_);
  for (const auto& session : registry_->Connected()) {
    Agent& a = agents_[session->name()];
    a.index = uint32_t(names_.size());
    a.session = session;
    names_.push_back(session->name());
  }
  return Status::Ok();
}

// Every fault must name a node that a connected agent declares.
Status RunController::CheckFaultOwners() {
  const v1::Plan& plan = options_.plan;
  std::vector<std::string> declared;
  {
    MutexLock lock(mu_);
    for (const std::string& name : names_) {
      const auto& nodes = agents_.at(name).session->hello().nodes();
      for (const std::string& node : nodes) {
        if (!node_owner_.count(node)) node_owner_[node] = name;
      }
      std::vector<std::string> list(nodes.begin(), nodes.end());
      declared.push_back(name + ": " + (list.empty() ? "none" : Join(list, " ")));
    }
  }
  for (int i = 0; i < plan.faults_size(); ++i) {
    const v1::Fault& f = plan.faults(i);
    if (node_owner_.count(f.node())) continue;
    return Status::Invalid("faults[" + std::to_string(i) + "].node: '" + f.node() +
                           "' is not declared by any connected agent (" + Join(declared, "; ") +
                           "); nothing was run: the agent that owns it must declare it in its own config "
                           "(stampede agent --config AGENT.yaml; `stampede validate PLAN --agent-config AGENT.yaml` "
                           "checks the two together)");
  }
  return Status::Ok();
}

void RunController::SendAssignment(const std::string& name) {
  v1::CoordinatorMessage m;
  auto* a = m.mutable_assignment();
  a->set_run_id(run_id_);
  *a->mutable_plan() = options_.plan;
  {
    MutexLock lock(mu_);
    a->set_agent_index(agents_.at(name).index);
  }
  a->set_agent_count(uint32_t(names_.size()));
  Send(name, m);
}

RunController::Wait RunController::WaitFor(Mark mark, uint32_t p, const std::vector<std::string>& names,
                                           int64_t until_ns) {
  int64_t next_flush = MonoNowNs();
  while (true) {
    bool phase_running;
    {
      MutexLock lock(mu_);
      cv_.wait_for(lock.native(), std::chrono::milliseconds(faults_.empty() ? 100 : 5));
      if (error_) return Wait::kError;
      const bool all = barrier_.All(mark, p, AwaitedLocked(names));
      if (all) return Wait::kDone;
      if (until_ns && MonoNowNs() >= until_ns) return Wait::kTimedOut;
      if (run_deadline_ns_ && MonoNowNs() >= run_deadline_ns_) {
        error_ = "the run timed out after " + FormatDurationNs(int64_t(options_.plan.timeout_ms()) * kNsPerMs) +
                 " (its timeout) in phase " + options_.plan.phases(std::max(0, phase_)).name() +
                 "; results so far are kept";
        return Wait::kError;
      }
      phase_running = phase_running_;
    }
    if (Cancelled()) return Wait::kCancelled;
    Tick(phase_running);
    if (phase_running && MonoNowNs() >= next_flush) {
      FlushSeconds(false);
      next_flush = MonoNowNs() + 200 * kNsPerMs;
    }
  }
}

std::vector<std::string> RunController::AwaitedLocked(const std::vector<std::string>& names) const {
  std::vector<std::string> out;
  for (const auto& [name, a] : agents_) {
    if (a.active && (names.empty() || std::find(names.begin(), names.end(), name) != names.end())) out.push_back(name);
  }
  return out;
}

void RunController::Tick(bool phase_running) {
  SendDueFaults();  // also between the steps of a plan phase
  TakeInJoins();
  if (phase_running) StartJoiners();
}

void RunController::SendDueFaults() {
  const int64_t now = MonoNowNs();
  for (int i : faults_.TakeDue(now, group_ops_.load(), RollProgress())) {
    const v1::Fault& f = options_.plan.faults(i);
    const std::string& owner = node_owner_.at(f.node());
    bool reachable;
    {
      MutexLock lock(mu_);
      reachable = ConnectedLocked(owner);
    }
    if (!reachable) {
      Log("fault " + std::to_string(i) + " (" + f.action() + " " + f.node() + ") not sent: the agent that owns " +
          f.node() + (owner.empty() ? "" : " (" + owner + ")") + " is lost");
      continue;
    }
    v1::CoordinatorMessage m;
    auto* c = m.mutable_fault();
    c->set_run_id(run_id_);
    c->set_fault_index(static_cast<uint32_t>(i));
    c->set_action(f.action());
    c->set_node(f.node());
    if (f.has_net()) *c->mutable_net() = f.net();
    if (f.has_disk()) *c->mutable_disk() = f.disk();
    {
      MutexLock lock(mu_);
      ledger_.Sent(i);
      faults_sent_.insert(uint32_t(i));
    }
    // Journal the request before sending it: the agent's answer (a
    // fault_result line) can arrive before Send() returns.
    record::FaultSent sent{uint32_t(i), f.phase(),  f.action(), f.node(),
                           owner,       Since(now), false,      plan::NetFaultDetail(f)};
    if (f.has_roll()) {
      sent.roll = int(f.roll().id());
      sent.roll_step = f.roll().step();
      sent.roll_steps = f.roll().steps();
      sent.roll_floor = f.roll().throughput_floor();
    }
    Emit(sent);
    Send(owner, m);
    Log("fault " + std::to_string(i) + ": " + f.action() + " " + f.node() + " (agent " + owner + ")");
  }
}

void RunController::FlushSeconds(bool all) {
  std::vector<record::Second> seconds;
  std::string phase;
  PhaseEnd end;
  std::vector<HistoryBatch> history;
  {
    MutexLock lock(mu_);
    if (phase_ >= 0 && size_t(phase_) < mergers_.size() && mergers_[size_t(phase_)]) {
      seconds = mergers_[size_t(phase_)]->Flush(MonoNowNs(), all);
      phase = options_.plan.phases(phase_).name();
      end = {phase_owed_, double(options_.plan.phases(phase_).duration_ms()) / 1000.0, phase_progress_rows_};
    }
    for (auto& l : lines_) seconds.push_back(std::move(l));
    lines_.clear();
    history = TakeHistoryLocked();
  }
  if (!history.empty()) WriteHistory(std::move(history));
  for (record::Second& second : seconds) {
    CountSecond(&second, phase, end);
    Emit(second);
    ReportSecond(second);
  }
}

// The live op count PHASE@PERCENT faults fire on, and how far the phase
// is: of the operations it owes, or of its duration.
void RunController::CountSecond(record::Second* second, const std::string& phase, const PhaseEnd& end) {
  if (second->phase != phase) return;
  group_ops_ += second->Count();
  phase_done_ += second->Count();
  phase_missed_ += second->Missed();
  for (const auto& [name, op] : second->ops) phase_rows_ += op.rows;
  if (second->late) return;
  const double elapsed = second->phase_t + second->interval_s;
  if (end.owed > 0) {
    // A load counts its rows (its parts differ in size), anything else
    // its operations; a phase whose operations are all done is done.
    const bool rows = end.rows > 0;
    const uint64_t ops = phase_done_ + phase_missed_;
    const double done = rows ? double(phase_rows_) : double(ops);
    const double total = rows ? double(end.rows) : double(end.owed);
    second->progress = ops >= uint64_t(end.owed) ? 1.0 : std::min(0.999, done / total);
    second->progress_done = uint64_t(second->progress >= 1 ? total : done);
    second->progress_total = uint64_t(total);
    second->progress_unit = rows ? "rows" : "ops";
    // Time left at the pace since the phase's first line (its first
    // second includes connecting: on a cluster with a node down, seconds
    // of it), over at most the last minute. A closed-loop load's pace
    // swings by half from one second to the next as its workers move
    // from wide rows to narrow ones in step (TPC-C's stock, then its
    // order lines): the pace of the last 3 s put the time left 42% off
    // at the halfway point where this pace was 19% off. The minute
    // still follows a lasting change (a node lost) in a long phase.
    if (pace_phase_ != phase) pace_.clear();
    pace_phase_ = phase;
    pace_.emplace_back(elapsed, done);
    while (pace_.size() > 2 && pace_[1].first <= elapsed - kPaceWindowS) pace_.pop_front();
    const auto& [t0, done0] = pace_.front();
    const double rate = pace_.size() > 1 && elapsed > t0 ? (done - done0) / (elapsed - t0) : 0;
    if (rate > 0) second->left_s = std::max(0.0, total - done) / rate;
  } else if (end.duration_s > 0) {
    second->progress = std::min(1.0, elapsed / end.duration_s);
    second->left_s = std::max(0.0, end.duration_s - elapsed);
  }
}

void RunController::OnSnapshot(const std::string& agent, const v1::Snapshot& snapshot) {
  (void)agent;
  MutexLock lock(mu_);
  const size_t p = snapshot.phase_index();
  if (snapshot.run_id() != run_id_ || p >= mergers_.size() || !mergers_[p]) return;
  // A phase that ended already takes it as a late line.
  for (auto& l : mergers_[p]->Add(snapshot)) lines_.push_back(std::move(l));
}

void RunController::OnNodeStats(const std::string& agent, const v1::NodeStats& stats) {
  MutexLock lock(node_mu_);
  if (!recording_) return;
  Emit(record::NodeSample{stats.node(), agent, Since(stats.time_ns()), stats.running(), stats.disk_bytes(),
                          stats.rss_bytes(), stats.cpu_s()});
}

void RunController::OnEvent(const std::string& agent, const v1::Event& event) {
  if (event.run_id() != run_id_) return;
  switch (event.kind()) {
    case v1::Event::LOG: {
      {
        MutexLock lock(mu_);
        if (!logged_.insert({agent, event.message()}).second) return;  // handed in again
      }
      Emit(record::LogLine{agent, event.message(), ""});
      Log("agent " + agent + ": " + event.message());
      return;
    }
    case v1::Event::FAULT_DONE:
    case v1::Event::FAULT_FAILED: {
      const bool ok = event.kind() == v1::Event::FAULT_DONE;
      const uint32_t i = event.fault_index();
      const bool undo = i >= uint32_t(options_.plan.faults_size());
      {
        MutexLock lock(mu_);
        if (!fault_results_.insert(i).second) return;  // handed in again
      }
      Emit(record::FaultDone{i, agent, ok, Since(event.time_ns()), event.message(), ""});
      Log(std::string(undo ? "undo " : "fault ") + std::to_string(i) + (ok ? " done: " : " FAILED: ") +
          event.message());
      {
        MutexLock lock(mu_);
        if (undo) undo_results_[i] = ok;
        if (ok && !undo) ledger_.TookEffect(options_.plan.faults(int(i)).action(), options_.plan.faults(int(i)).node());
        if (ok && !undo) fault_done_ns_[int(i)] = event.time_ns();  // a rolling restart's next step waits on it
        if (ok && undo && undo_actions_.count(i)) {
          ledger_.TookEffect(undo_actions_[i].action, undo_actions_[i].node);
        }
      }
      cv_.notify_all();
      return;
    }
    case v1::Event::ERROR: {
      MutexLock lock(mu_);
      auto it = agents_.find(agent);
      if (it != agents_.end() && it->second.joining) {
        // An agent that could not rejoin the phase stays out of it.
        it->second.joining = false;
        SLOG(kWarn) << "agent " << agent << " could not rejoin phase " << event.phase_index() << ": "
                    << event.message();
      } else if (!error_) {
        error_ = "agent " + agent + ": " + event.message();
      }
      break;
    }
    case v1::Event::WRITES_CHECKED: {
      MutexLock lock(mu_);
      if (phase_ == int(event.phase_index())) {
        writes_[agent] = event.writes();
        barrier_.Checked(event.phase_index(), agent);
      }
      break;
    }
    case v1::Event::PHASE_READY:
    case v1::Event::PHASE_DONE:
    case v1::Event::CLEANUP_DONE: {
      MutexLock lock(mu_);
      if (event.kind() == v1::Event::PHASE_READY) {
        barrier_.Ready(event.phase_index(), agent, event.time_ns(), event.owed_ops());
      } else {
        barrier_.Done(event.phase_index(), agent, event.time_ns(), event.timed_out());
      }
      break;
    }
    default:
      break;
  }
  cv_.notify_all();
}

}  // namespace stampede::coordinator

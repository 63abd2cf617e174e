// RunController: one phase after another (see run_controller.h). The lead
// prepares first (it runs the setup), then the others; all start at one
// aligned time; the phase ends when every agent still taking part is done.
#include "common/clock.h"
#include "common/duration.h"
#include "common/log.h"
#include "coordinator/run_controller.h"
#include "plan/stage_schedule.h"
#include "workloads/workload_registry.h"

namespace stampede::coordinator {
namespace {

constexpr int64_t kStartLeadNs = 500 * kNsPerMs;
constexpr int64_t kStopWaitNs = 10 * kNsPerSec;
// Agents bound their read-back (agent::PhaseRunner::kWritesCheckBudgetNs,
// 60 s); this bounds the wait for their answers.
constexpr int64_t kWritesWaitNs = 90 * kNsPerSec;
constexpr size_t kMaxLostIds = 20;
constexpr uint64_t kMaxCount = 1'000'000'000'000'000;  // an agent's numbers, capped

}  // namespace

Status RunController::RunPhase(int p) {
  Status s = PreparePhase(p);
  if (!s.ok()) return s;
  StartPhase(p);
  s = EndPhase(p, WaitFor(Mark::kDone, uint32_t(p), {}));
  if (s.ok() && options_.plan.phases(p).check_writes()) s = CheckWrites(p);
  return s;
}

Status RunController::CheckWrites(int p) {
  const v1::Phase& phase = options_.plan.phases(p);
  Log("phase " + phase.name() + ": reading back its writes");
  const Wait w = WaitFor(Mark::kChecked, uint32_t(p), {}, MonoNowNs() + kWritesWaitNs);
  record::WritesChecked line;
  line.phase = phase.name();
  line.index = uint32_t(p);
  {
    MutexLock lock(mu_);
    const std::vector<std::string> awaited = AwaitedLocked({});
    for (const std::string& agent : phase_agents_) {
      // Lost during the phase: the inserts its workers made before that
      // are known to no one (a share handed over is read back by the
      // agent that took it).
      if (std::find(awaited.begin(), awaited.end(), agent) == awaited.end()) {
        line.agents_missing.push_back(agent + " (lost during the phase)");
      }
    }
    for (const std::string& agent : awaited) {
      auto it = writes_.find(agent);
      if (it == writes_.end()) {
        line.agents_missing.push_back(agent);
        continue;
      }
      const v1::WritesCheck& c = it->second;
      line.supported &= c.supported();
      line.acked += std::min(c.acked(), kMaxCount);
      line.lost += std::min(c.lost(), kMaxCount);
      line.ambiguous += std::min(c.ambiguous(), kMaxCount);
      line.ambiguous_found += std::min(c.ambiguous_found(), kMaxCount);
      line.unchecked += std::min(c.unchecked(), kMaxCount);
      line.failed += std::min(c.failed(), kMaxCount);
      line.failed_found += std::min(c.failed_found(), kMaxCount);
      for (int64_t id : c.lost_ids()) {
        if (line.lost_ids.size() < kMaxLostIds) line.lost_ids.push_back(id);
      }
      for (int64_t id : c.failed_found_ids()) {
        if (line.failed_found_ids.size() < kMaxLostIds) line.failed_found_ids.push_back(id);
      }
      if (line.note.empty() && !c.note().empty()) line.note = agent + ": " + c.note().substr(0, 300);
    }
    writes_.clear();
  }
  Emit(line);
  if (w == Wait::kDone || w == Wait::kTimedOut) return Status::Ok();
  v1::CoordinatorMessage stop;
  stop.mutable_stop()->set_run_id(run_id_);
  stop.mutable_stop()->set_abort(true);
  stop.mutable_stop()->set_reason(w == Wait::kCancelled ? "aborted by user" : "run aborted");
  SendToActive(stop);
  MutexLock lock(mu_);
  return Status::Error(error_.value_or("aborted by user"));
}

// The phase's shares go to the agents present now; the lead (the first of
// them) runs the phase's setup before anyone else prepares statements.
Status RunController::PreparePhase(int p) {
  const uint32_t index = uint32_t(p);
  std::vector<std::string> present;
  {
    MutexLock lock(mu_);
    phase_ = p;
    phase_running_ = false;
    mergers_.resize(size_t(p) + 1);
    present = LoadNamesLocked();
    if (present.empty()) return Status::Error("no agent is left to run phase " + options_.plan.phases(p).name());
    AssignSlotsLocked(present);
    for (auto& [name, a] : agents_) {
      a.active = slots_.count(name) > 0;
      a.joining = false;
    }
    adopted_.clear();
  }
  const std::vector<std::string> lead = {present.front()};
  const std::vector<std::string> rest(present.begin() + 1, present.end());
  for (const auto* group : {&lead, &rest}) {
    for (const std::string& name : *group) {
      v1::CoordinatorMessage m;
      auto* prepare = m.mutable_prepare();
      prepare->set_run_id(run_id_);
      prepare->set_phase_index(index);
      {
        MutexLock lock(mu_);
        prepare->set_slot(slots_.at(name));
        for (uint32_t w : slot_weights_) prepare->add_weights(w);
      }
      prepare->set_slots(uint32_t(present.size()));
      prepare->set_lead(name == present.front());
      Send(name, m);
    }
    Wait w = WaitFor(Mark::kReady, index, *group);
    if (w == Wait::kDone) continue;
    v1::CoordinatorMessage stop;
    stop.mutable_stop()->set_run_id(run_id_);
    stop.mutable_stop()->set_abort(true);
    stop.mutable_stop()->set_reason("run aborted");
    SendToActive(stop);
    MutexLock lock(mu_);
    return Status::Error(error_.value_or("aborted by user"));
  }
  return Status::Ok();
}

uint64_t RunController::ProgressRowsOf(const v1::Phase& phase) {
  return workloads::ProgressRows(phase.workload(), {phase.params().begin(), phase.params().end()}, phase.step());
}

void RunController::StartPhase(int p) {
  const v1::Phase& phase = options_.plan.phases(p);
  const uint32_t index = uint32_t(p);
  const int64_t start_ns = MonoNowNs() + kStartLeadNs;
  std::set<std::string> active;
  int64_t owed;
  {
    MutexLock lock(mu_);
    const std::vector<std::string> awaited = AwaitedLocked({});
    active.insert(awaited.begin(), awaited.end());
    phase_agents_ = active;
    owed = barrier_.Owed(index, awaited);
    mergers_[size_t(p)] =
        std::make_unique<PhaseMerger>(phase.name(), index, start_ns, run_start_ns_, active, kMergeGraceNs);
    mergers_[size_t(p)]->SetSchedule(plan::ScheduledOpsBy(phase));
    phase_start_ns_ = start_ns;
    phase_owed_ = owed;
    phase_progress_rows_ = ProgressRowsOf(phase);
    phase_running_ = true;
  }
  phase_done_ = 0;
  phase_missed_ = 0;
  phase_rows_ = 0;
  Emit(record::PhaseStart{phase.name(), index, phase.workload(), phase.workers(), Since(start_ns), start_ns,
                          std::vector<std::string>(active.begin(), active.end()), std::max<int64_t>(-1, owed),
                          phase.group(), phase.step(), std::max<uint32_t>(1, phase.pipeline()),
                          std::max<uint32_t>(1, phase.batch()),
                          std::map<std::string, std::string>(phase.params().begin(), phase.params().end())});
  Log("phase " + phase.name() + ": " + phase.workload() + ", " + std::to_string(phase.workers()) + " workers");
  // The steps of one plan phase share its fault schedule: it starts with
  // the first step and runs on across the others.
  if (faults_.StartsGroup(p)) {
    group_ops_ = 0;
    faults_.StartGroup(p, start_ns);
  }
  v1::CoordinatorMessage start;
  start.mutable_start()->set_run_id(run_id_);
  start.mutable_start()->set_phase_index(index);
  start.mutable_start()->set_start_ns(start_ns);
  SendToActive(start);
}

Status RunController::EndPhase(int p, Wait w) {
  const v1::Phase& phase = options_.plan.phases(p);
  const uint32_t index = uint32_t(p);
  if (faults_.EndsGroup(p) || w != Wait::kDone) {
    for (int i : faults_.TakeUnsent()) {
      const v1::Fault& f = options_.plan.faults(i);
      Log("fault " + std::to_string(i) + " (" + f.action() + " " + f.node() + ") not sent: phase " + f.phase() +
          " ended first");
    }
  }
  if (w != Wait::kDone) {
    // Put the nodes back first: a paused node also holds up the agents'
    // operations in flight.
    UndoFaults();
    v1::CoordinatorMessage stop;
    stop.mutable_stop()->set_run_id(run_id_);
    stop.mutable_stop()->set_abort(true);
    stop.mutable_stop()->set_reason(w == Wait::kCancelled ? "aborted by user" : "run aborted");
    SendToActive(stop);
    // Let the agents deliver what they measured before writing results.
    const int64_t until = MonoNowNs() + kStopWaitNs;
    while (MonoNowNs() < until) {
      MutexLock lock(mu_);
      if (barrier_.All(Mark::kDone, index, AwaitedLocked({}))) break;
      cv_.wait_for(lock.native(), std::chrono::milliseconds(100));
    }
  }
  FlushSeconds(true);
  CheckHistory(p);
  int64_t end_ns = MonoNowNs(), start_ns;
  bool timed_out = false;
  int64_t owed = -1;
  {
    MutexLock lock(mu_);
    start_ns = phase_start_ns_;
    phase_running_ = false;
    const PhaseBarrier::End end = barrier_.EndOf(index);
    timed_out = end.timed_out;
    const int64_t last_done = end.last_done_ns;
    if (last_done) end_ns = last_done;
  }
  record::PhaseEnd line;
  line.phase = phase.name();
  line.index = index;
  line.duration_s = double(end_ns - start_ns) / 1e9;
  line.completed = w == Wait::kDone && !timed_out;
  // phase_start said what the phase owed; what no agent reported, done or
  // missed, is the shares of agents lost on the way.
  {
    MutexLock lock(mu_);
    owed = phase_owed_;
  }
  if (owed >= 0 && w == Wait::kDone) {
    const uint64_t reported = phase_done_ + phase_missed_;
    line.owed = owed;
    line.unaccounted = uint64_t(owed) > reported ? uint64_t(owed) - reported : 0;
  }
  line.timed_out = timed_out;
  Emit(line);
  if (w != Wait::kDone) {
    MutexLock lock(mu_);
    return Status::Error(error_.value_or("aborted by user"));
  }
  if (timed_out) {
    return Status::Error("phase " + phase.name() + " timed out after " +
                         FormatDurationNs(int64_t(phase.timeout_ms()) * kNsPerMs) +
                         " (its timeout); what it did not do is counted as missed");
  }
  return Status::Ok();
}

// The last phase's and the plan's cleanup, on the lead alone, once every
// agent has finished.
Status RunController::RunFinalCleanup() {
  const v1::Plan& plan = options_.plan;
  const bool cleanup =
      !plan.cleanup().empty() || (plan.phases_size() > 0 && !plan.phases(plan.phases_size() - 1).cleanup().empty());
  if (!cleanup) return Status::Ok();
  const uint32_t index = uint32_t(plan.phases_size());
  std::string lead;
  {
    MutexLock lock(mu_);
    const auto present = LoadNamesLocked();
    if (present.empty()) return Status::Error("no agent is left to run the cleanup");
    lead = present.front();
  }
  v1::CoordinatorMessage m;
  m.mutable_cleanup()->set_run_id(run_id_);
  Send(lead, m);
  Log("cleanup on " + lead);
  if (WaitFor(Mark::kDone, index, {lead}) != Wait::kDone) {
    MutexLock lock(mu_);
    return Status::Error(error_.value_or("aborted during cleanup"));
  }
  return Status::Ok();
}

// The observer's progress line.
void RunController::ReportSecond(const record::Second& second) {
  const uint64_t count = second.Count(), missed = second.Missed();
  // Late lines and the sliver after a phase's deadline say little live,
  // but for the phase's end: the line that says 100%.
  if (!options_.observer || second.late || (!second.HasRate() && second.progress < 1)) return;
  v1::Progress p;
  p.set_elapsed_s(second.t);
  p.set_phase(second.phase);
  p.set_ops_per_s(second.interval_s > 0 ? double(count) / second.interval_s : 0);
  p.set_p99_us(double(second.Latency().ValueAtQuantile(0.99)) / 1000.0);
  p.set_errors(second.Errors());
  p.set_missed(missed);
  p.set_agents(second.agents);
  p.set_active_workers(second.active_workers);
  uint64_t refused = 0;
  for (const auto& [endpoint, e] : second.endpoints) refused += e.connect_failures;
  p.set_connect_failures(refused);
  for (const std::string& agent : second.SaturatedAgents()) p.add_saturated_agents(agent);
  if (second.progress >= 0) {
    p.set_progress(second.progress);
    p.set_progress_done(second.progress_done);
    p.set_progress_total(second.progress_total);
    p.set_progress_unit(second.progress_unit);
    p.set_left_s(second.left_s);
    p.set_phase_t(second.phase_t + second.interval_s);
  }
  std::optional<report::MoveStatus> move;
  {
    MutexLock lock(move_mu_);
    move = move_.Current();
  }
  if (move && move->total > 0) {
    p.set_move(move->what);
    p.set_move_ratio(move->ratio);
    p.set_move_done(move->done);
    p.set_move_total(move->total);
    p.set_move_unit(move->unit);
    p.set_move_left_s(move->left_s);
  }
  options_.observer->OnProgress(p);
}

}  // namespace stampede::coordinator

// RunController: a restarted coordinator takes a run back from its journal
// (see run_controller.h). The run's agents went on with their phase and
// dial in again; what they spooled meanwhile fills the journal's hole.
#include <google/protobuf/util/json_util.h>

#include <fstream>
#include <sstream>

#include "common/clock.h"
#include "common/log.h"
#include "common/strings.h"
#include "coordinator/run_controller.h"
#include "plan/plan_expander.h"
#include "plan/stage_schedule.h"
#include "record/record_codec.h"

namespace stampede::coordinator {
namespace {

// What the journal says about one phase.
struct JournalPhase {
  bool started = false, ended = false;
  int64_t start_ns = 0;
  int64_t owed = -1;
  std::set<std::string> agents;
  std::vector<std::pair<std::string, uint32_t>> journalled;  // (agent, seq)
  int64_t max_seq = -1;
  uint64_t done = 0, missed = 0;
};

void CountOps(const record::Second& second, JournalPhase* p) {
  p->done += second.Count();
  p->missed += second.Missed();
}

}  // namespace

Status RunController::LoadForResume() {
  dir_ = options_.resume_dir;
  std::vector<std::string> warnings;
  std::vector<record::Record> journal;
  Status scanned = report::ScanRecords(
      dir_ + "/journal.jsonl", [&](record::Record&& r) { journal.push_back(std::move(r)); }, &warnings);
  for (const std::string& w : warnings) SLOG(kWarn) << w;
  if (!scanned.ok()) return scanned;
  const record::RunStart* run = nullptr;
  for (const record::Record& r : journal) {
    if (const auto* x = std::get_if<record::RunStart>(&r)) run = x;
  }
  if (!run) return Status::Error(dir_ + ": the journal has no run line: nothing to take back");
  v1::Plan plan;
  if (!google::protobuf::util::JsonStringToMessage(run->plan_json, &plan).ok()) {
    return Status::Error(dir_ + ": the run line's plan cannot be read");
  }
  MutexLock lock(mu_);
  run_id_ = run->run_id;
  names_ = run->agents;
  run_start_ns_ = run->mono_start_ns;
  options_.plan = plan::ExpandSteps(plan);
  for (size_t i = 0; i < names_.size(); ++i) agents_[names_[i]].index = uint32_t(i);
  resume_journal_ = std::move(journal);
  return Status::Ok();
}

// What the journal says about the run: its phases, the faults it sent and
// the undos it began.
struct RunController::Replay {
  std::map<uint32_t, JournalPhase> phases;
  std::set<int> sent;
  std::map<uint32_t, plan::FaultLedger::Undo> undo;
};

Status RunController::Resume(int* first_phase, bool* in_progress) {
  if (resume_journal_.empty()) {
    Status loaded = LoadForResume();
    if (!loaded.ok()) return loaded;
  }
  const std::vector<record::Record> journal = std::move(resume_journal_);
  {
    std::ifstream in(dir_ + "/plan.yaml");
    std::stringstream ss;
    ss << in.rdbuf();
    options_.plan_yaml = ss.str();
  }
  Status s = journal_.Open(dir_ + "/journal.jsonl");
  if (!s.ok()) return s.WithContext("results");
  journal_open_ = true;
  if (options_.on_record) {
    for (const record::Record& r : journal) options_.on_record(r);
  }
  if (options_.observer) options_.observer->OnStarted(run_id_, dir_);
  if (MonoNowNs() < run_start_ns_) {
    return Status::Error("the machine restarted since run " + run_id_ +
                         " began (its clock did): it cannot be taken back; what it journalled is kept");
  }
  if (options_.plan.timeout_ms()) run_deadline_ns_ = run_start_ns_ + int64_t(options_.plan.timeout_ms()) * kNsPerMs;

  Replay replay;
  {
    MutexLock lock(mu_);
    ReplayLocked(journal, &replay);
  }
  Emit(record::CoordinatorEvent{"restarted", Since(MonoNowNs()), "took the run back from its journal"});
  SetRecording(true);
  Log("took run " + run_id_ + " back from " + dir_ + "/journal.jsonl; waiting for its agents");

  const std::vector<std::string> missing = AwaitAgentsBack();
  for (const std::string& name : missing) {
    Emit(record::AgentEvent{"lost", name, Since(MonoNowNs()), "did not come back to the restarted coordinator", "", "",
                            std::nullopt});
  }
  if (!missing.empty() && options_.plan.agents().on_loss() == "abort") {
    return Status::Error("agent(s) " + Join(missing, ", ") +
                         " did not come back to the restarted coordinator (agents.on_loss: abort)");
  }
  for (int i = 0; i < options_.plan.faults_size(); ++i) {
    if (!node_owner_.count(options_.plan.faults(i).node())) node_owner_[options_.plan.faults(i).node()] = "";
  }

  // Where the run was.
  int last = -1;
  for (const auto& [index, p] : replay.phases) {
    if (p.started && index < uint32_t(options_.plan.phases_size())) last = std::max(last, int(index));
  }
  *in_progress = last >= 0 && !replay.phases[uint32_t(last)].ended;
  *first_phase = *in_progress ? last : last + 1;
  if (*in_progress) {
    // Its history's last second waited in the old process's memory to be
    // put in time order; the journal counts that second as merged.
    HistoryGap(uint32_t(last), "", "the coordinator restarted mid-phase, with the events it held");
    MutexLock lock(mu_);
    RestorePhaseLocked(last, &replay);
    Log("phase " + options_.plan.phases(last).name() + " was in progress: waiting for its agents to finish it");
  }
  health_.Start(options_.plan.target(), run_start_ns_);
  return Status::Ok();
}

void RunController::ReplayFaultLocked(const record::FaultSent& x, Replay* r) {
  if (x.undo) {
    r->undo[x.index] = {x.action, x.node};
    return;
  }
  r->sent.insert(int(x.index));
  ledger_.Sent(int(x.index));
  faults_sent_.insert(x.index);
}

void RunController::ReplayResultLocked(const record::FaultDone& x, Replay* r) {
  fault_results_.insert(x.index);
  if (!x.ok) return;
  if (x.index < uint32_t(options_.plan.faults_size())) {
    ledger_.TookEffect(options_.plan.faults(int(x.index)).action(), options_.plan.faults(int(x.index)).node());
  } else if (r->undo.count(x.index)) {
    ledger_.TookEffect(r->undo[x.index].action, r->undo[x.index].node);
  }
}

// Phases, faults, what is journalled already; a merger for every phase
// that started.
void RunController::ReplayLocked(const std::vector<record::Record>& journal, Replay* r) {
  // get_if, not visit: the analysis of what mu_ guards does not follow
  // into lambdas.
  for (const record::Record& rec : journal) {
    if (const auto* x = std::get_if<record::PhaseStart>(&rec)) {
      JournalPhase& p = r->phases[x->index];
      p.started = true;
      p.start_ns = x->start_ns;
      p.owed = x->owed;
      p.agents = std::set<std::string>(x->agents.begin(), x->agents.end());
    } else if (const auto* x = std::get_if<record::PhaseEnd>(&rec)) {
      r->phases[x->index].ended = true;
    } else if (const auto* x = std::get_if<record::Second>(&rec)) {
      JournalPhase& p = r->phases[x->index];
      for (const std::string& a : x->from) p.journalled.push_back({a, x->seq});
      if (!x->late) p.max_seq = std::max<int64_t>(p.max_seq, x->seq);
      CountOps(*x, &p);
    } else if (const auto* x = std::get_if<record::FaultSent>(&rec)) {
      ReplayFaultLocked(*x, r);
    } else if (const auto* x = std::get_if<record::FaultDone>(&rec)) {
      ReplayResultLocked(*x, r);
    } else if (const auto* x = std::get_if<record::LogLine>(&rec)) {
      logged_.insert({x->agent, x->message});
    } else if (const auto* x = std::get_if<record::AgentEvent>(&rec); x && x->event == "lost") {
      losses_.push_back(x->agent + " (before the coordinator restarted)");
    }
  }
  for (const auto& [index, p] : r->phases) {
    if (!p.started || index >= uint32_t(options_.plan.phases_size())) continue;
    if (mergers_.size() <= index) mergers_.resize(index + 1);
    auto m = std::make_unique<PhaseMerger>(options_.plan.phases(int(index)).name(), index, p.start_ns, run_start_ns_,
                                           p.agents, kMergeGraceNs);
    m->SetSchedule(plan::ScheduledOpsBy(options_.plan.phases(int(index))));
    for (const auto& [agent, seq] : p.journalled) m->MarkJournalled(agent, seq);
    // An ended phase takes whatever comes now as late lines.
    m->SetNextSeq(p.ended ? INT64_MAX : p.max_seq + 1);
    mergers_[index] = std::move(m);
    phase_agents_ = p.agents;  // the latest phase's, for its writes check
  }
}

// The run's agents dial in again (OnAgentJoined); those that do not within
// agents.wait are lost. The nodes of those back have their owners again.
std::vector<std::string> RunController::AwaitAgentsBack() {
  const int64_t until = MonoNowNs() + int64_t(options_.plan.agents().wait_ms()) * kNsPerMs;
  std::vector<std::string> missing;
  MutexLock lock(mu_);
  while (MonoNowNs() < until && !Cancelled()) {
    bool all = true;
    for (const auto& [name, a] : agents_) all &= a.session != nullptr;
    if (all) break;
    cv_.wait_for(lock.native(), std::chrono::milliseconds(100));
  }
  for (auto& [name, a] : agents_) {
    if (a.session) continue;
    missing.push_back(name);
    a.lost = true;
    losses_.push_back(name + " (did not come back to the restarted coordinator)");
  }
  for (const std::string& name : names_) {
    const Agent& a = agents_.at(name);
    if (!a.session) continue;
    for (const std::string& node : a.session->hello().nodes()) {
      if (!node_owner_.count(node)) node_owner_[node] = name;
    }
  }
  return missing;
}

// The phase in progress when the coordinator went away: its agents that
// went on with it are active in it again; the fault group's count resumes.
void RunController::RestorePhaseLocked(int last, Replay* r) {
  const JournalPhase& p = r->phases[uint32_t(last)];
  phase_ = last;
  phase_running_ = true;
  phase_start_ns_ = p.start_ns;
  phase_owed_ = p.owed;
  phase_progress_rows_ = ProgressRowsOf(options_.plan.phases(last));
  phase_done_ = p.done;
  phase_missed_ = p.missed;
  std::vector<std::string> by_slot;
  for (const std::string& name : names_) {
    if (p.agents.count(name)) by_slot.push_back(name);
  }
  AssignSlotsLocked(by_slot);
  for (auto& [name, a] : agents_) {
    const v1::RunPosition& pos = a.session ? a.session->hello().run() : v1::RunPosition();
    // Its runner went on with the phase (or finished it): its spool
    // brings the rest, PHASE_DONE included.
    if (a.session && pos.run_id() == run_id_ && !pos.restarted() && int(pos.phase_index()) == last &&
        slots_.count(name)) {
      a.active = true;
      a.join_pending = false;
    }
  }
  int group_first = last;
  while (!faults_.StartsGroup(group_first)) --group_first;
  uint64_t ops = 0;
  for (int q = group_first; q <= last; ++q) ops += r->phases[uint32_t(q)].done;
  group_ops_ = ops;
  faults_.StartGroup(group_first, r->phases[uint32_t(group_first)].start_ns, r->sent);
}

}  // namespace stampede::coordinator

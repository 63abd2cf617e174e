// RunController: how a run ends (see run_controller.h). Faults are undone,
// the journal gets its end line, agents are told, the reports are written.
#include "common/clock.h"
#include "common/log.h"
#include "common/strings.h"
#include "coordinator/run_controller.h"
#include "report/headline.h"
#include "report/run_summary.h"
#include "report/verdict.h"

namespace stampede::coordinator {
namespace {

// An undo waits for its agent as long as a fault command may take (the
// agents' fault_timeout, 60 s by default) and a little more.
constexpr int64_t kUndoWaitNs = 65 * kNsPerSec;

}  // namespace

void RunController::UndoFaults() {
  std::vector<plan::FaultLedger::Undo> undo;
  {
    MutexLock lock(mu_);
    undo = ledger_.Pending();
  }
  uint32_t index = uint32_t(options_.plan.faults_size());
  for (const plan::FaultLedger::Undo& u : undo) {
    const std::string& owner = node_owner_.at(u.node);
    const uint32_t i = index++;
    bool reachable;
    {
      MutexLock lock(mu_);
      reachable = ConnectedLocked(owner);
      undo_actions_[i] = u;
      if (reachable) undo_results_[i] = std::nullopt;
    }
    Emit(record::FaultSent{i, "", u.action, u.node, owner, Since(MonoNowNs()), true, ""});
    if (!reachable) {
      Emit(record::FaultDone{i, owner, false, Since(MonoNowNs()),
                             "agent " + owner + " is lost: " + u.action + " " + u.node + " by hand", ""});
      Log("cannot undo: " + u.action + " " + u.node + ": its agent " + owner + " is lost; do it by hand");
      continue;
    }
    Log("undo: " + u.action + " " + u.node + " (agent " + owner + "): the run ended before its plan did");
    v1::CoordinatorMessage m;
    auto* c = m.mutable_fault();
    c->set_run_id(run_id_);
    c->set_fault_index(i);
    c->set_action(u.action);
    c->set_node(u.node);
    Send(owner, m);
  }
  // Wait for the results: a node left paused or down is worse than a wait.
  const int64_t until = MonoNowNs() + kUndoWaitNs;
  // So does a planned fault still running (a start that waits for its node
  // to sync): whether the node came back belongs in the report.
  std::vector<uint32_t> in_flight;
  {
    MutexLock lock(mu_);
    in_flight = InFlightFaultsLocked();
  }
  for (uint32_t i : in_flight) {
    const v1::Fault& f = options_.plan.faults(int(i));
    Log("waiting for fault " + std::to_string(i) + " (" + f.action() + " " + f.node() + ", agent " +
        node_owner_.at(f.node()) + ") to finish");
  }
  MutexLock lock(mu_);
  while (MonoNowNs() < until) {
    bool pending = !InFlightFaultsLocked().empty();
    for (const auto& [i, r] : undo_results_) {
      pending |= !r.has_value() && ConnectedLocked(node_owner_.at(undo_actions_.at(i).node));
    }
    if (!pending) break;
    cv_.wait_for(lock.native(), std::chrono::milliseconds(50));
  }
  // What never answered is journalled as such, not left without a result.
  std::vector<std::pair<uint32_t, std::string>> unanswered;
  for (uint32_t i : faults_sent_) {
    if (fault_results_.count(i)) continue;
    const std::string& owner = node_owner_.at(options_.plan.faults(int(i)).node());
    unanswered.emplace_back(i, ConnectedLocked(owner) ? "no answer from agent " + owner +
                                                            " when the run ended (its action was still running)"
                                                      : "agent " + owner + " was lost before it answered");
  }
  for (const auto& [i, why] : unanswered) fault_results_.insert(i);
  lock.Unlock();
  for (const auto& [i, why] : unanswered) {
    Emit(record::FaultDone{i, node_owner_.at(options_.plan.faults(int(i)).node()), false, Since(MonoNowNs()), why, ""});
  }
}

// Planned faults sent to an agent that is still connected and not answered.
std::vector<uint32_t> RunController::InFlightFaultsLocked() const {
  std::vector<uint32_t> out;
  for (uint32_t i : faults_sent_) {
    if (fault_results_.count(i)) continue;
    if (ConnectedLocked(node_owner_.at(options_.plan.faults(int(i)).node()))) out.push_back(i);
  }
  return out;
}

bool RunController::ConnectedLocked(const std::string& agent) const {
  auto it = agents_.find(agent);
  return it != agents_.end() && it->second.session != nullptr;
}

v1::RunResult RunController::Finish(bool ok, const std::string& error) {
  v1::RunResult result;
  result.set_ok(ok);
  result.set_error(error);
  result.set_results_dir(dir_);
  if (!journal_open_) return result;
  UndoFaults();
  health_.Stop();
  std::string degraded;
  {
    MutexLock lock(mu_);
    if (!losses_.empty()) degraded = "agents lost during the run: " + Join(losses_, ", ");
  }
  record::RunEnd end{ok, error, std::nullopt};
  if (!degraded.empty()) end.degraded = degraded;
  SetRecording(false);
  Emit(end);
  journal_.Close();
  FinishHistory();
  // The run is over and journalled: the agents may drop their spools.
  v1::CoordinatorMessage stop;
  stop.mutable_stop()->set_run_id(run_id_);
  stop.mutable_stop()->set_abort(true);
  stop.mutable_stop()->set_finished(true);
  stop.mutable_stop()->set_reason(ok ? "run finished" : "run ended: " + error);
  {
    std::vector<std::shared_ptr<RemoteAgent>> to;
    {
      MutexLock lock(mu_);
      for (const auto& [name, a] : agents_) {
        if (a.session) to.push_back(a.session);
      }
    }
    for (const auto& s : to) s->Send(stop);
  }
  result.set_degraded(degraded);
  std::vector<std::string> warnings;
  report::RunSummary summary;
  Status s = report::WriteReports(dir_, &summary, &warnings);
  for (const std::string& w : warnings) SLOG(kWarn) << w;
  if (!s.ok()) {
    result.set_ok(false);
    if (error.empty()) result.set_error("results: " + s.message());
  }
  if (const report::Verdict verdict = report::Evaluate(summary); !verdict.passed()) {
    result.set_expectations_failed(report::FailedChecksLine(verdict));
    Log("expectations not met: " + result.expectations_failed());
  }
  result.set_report_md(report::RenderReportMarkdown(summary));
  result.set_headline(report::RenderHeadlineText(report::MakeHeadline(summary)));
  return result;
}

}  // namespace stampede::coordinator

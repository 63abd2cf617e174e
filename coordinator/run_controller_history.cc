// The run controller's part in an append phase's history
// (docs/consistency.md): the events of each merged second into
// history.jsonl, the check of a phase's history when it ends (a
// history_check line in the journal, which the reports, the verdict and the
// dashboard take from there), and history.json at the end.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/isolation.h"
#include "common/log.h"
#include "common/strings.h"
#include "coordinator/run_controller.h"
#include "report/history_check.h"

namespace stampede::coordinator {

std::vector<RunController::HistoryBatch> RunController::TakeHistoryLocked() {
  std::vector<HistoryBatch> batches;
  for (size_t i = 0; i < mergers_.size(); ++i) {
    if (!mergers_[i]) continue;
    HistoryBatch b;
    b.phase = uint32_t(i);
    b.dropped = mergers_[i]->TakeHistory(&b.events);
    if (!b.events.empty() || b.dropped) batches.push_back(std::move(b));
  }
  return batches;
}

void RunController::WriteHistory(std::vector<HistoryBatch> batches, bool all) {
  const v1::Target& t = options_.plan.target();
  const std::vector<std::string> endpoints(t.endpoints().begin(), t.endpoints().end());
  MutexLock lock(history_mu_);
  if (!history_.open()) {
    // A run without history (no append phase) leaves no history files.
    const bool any = std::any_of(batches.begin(), batches.end(),
                                 [](const HistoryBatch& b) { return !b.events.empty() || b.dropped; });
    if (!any) return;
    if (Status s = history_.Open(dir_ + "/history.jsonl"); !s.ok()) {
      SLOG(kError) << "history: " << s.message();
      return;
    }
  }
  for (HistoryBatch& b : batches) {
    history_events_[b.phase] += b.events.size();
    history_dropped_[b.phase] += b.dropped;
    const std::string& phase = options_.plan.phases(int(b.phase)).name();
    if (Status s = history_.Write(phase, run_start_ns_, endpoints, std::move(b.events)); !s.ok()) {
      SLOG(kError) << "history: " << s.message();
    }
  }
  if (all && history_.open()) {
    if (Status s = history_.Write("", run_start_ns_, endpoints, {}, true); !s.ok()) {
      SLOG(kError) << "history: " << s.message();
    }
  }
}

void RunController::HistoryGap(uint32_t phase, const std::string& who, const std::string& how) {
  MutexLock lock(history_mu_);
  if (how.empty()) {
    history_gaps_[phase].erase(who);
  } else {
    history_gaps_[phase][who] = how;
  }
}

void RunController::CheckHistory(int p) {
  const std::string& phase = options_.plan.phases(p).name();
  std::string path;
  uint64_t dropped = 0, out_of_order = 0;
  std::vector<std::string> gaps;
  WriteHistory({}, true);  // what waits to be put in order: the phase is over
  {
    MutexLock lock(history_mu_);
    if (!history_events_.count(uint32_t(p))) return;
    (void)history_.Flush();
    path = history_.path();
    dropped = history_dropped_[uint32_t(p)];
    for (const auto& [who, how] : history_gaps_[uint32_t(p)]) gaps.push_back(how);
    out_of_order = history_.out_of_order();
  }
  report::HistoryCheckOptions check;
  const v1::Target& t = options_.plan.target();
  const std::string& level =
      options_.plan.phases(p).isolation().empty() ? t.isolation() : options_.plan.phases(p).isolation();
  check.isolation = level.empty() ? DefaultIsolation(t.flavor()) : level;
  std::vector<std::pair<std::string, std::string>> dots;
  auto checked = report::CheckHistory(path, phase, uint32_t(p), check, &dots);
  WriteCycles(phase, dots);
  if (!checked.ok()) {
    Log("phase " + phase + ": the history could not be checked: " + checked.status().message());
    return;
  }
  std::vector<std::string> notes;
  checked->missing = dropped;
  checked->unknown = Join(gaps, "; ");
  if (out_of_order) {
    notes.push_back(std::to_string(out_of_order) +
                    " events came more than a second late and are out of time order (the run so far)");
  }
  if (!checked->note.empty()) notes.push_back(checked->note);
  checked->note.clear();
  for (const std::string& n : notes) checked->note += (checked->note.empty() ? "" : "; ") + n;
  uint64_t anomalies = 0;
  for (const auto& [kind, n] : checked->counts) anomalies += n;
  Log("phase " + phase + ": history checked: " + std::to_string(checked->transactions) + " transactions, " +
      std::to_string(checked->final_keys) + " keys' final reads, " + std::to_string(anomalies) + " anomalies" +
      (dropped || !gaps.empty() ? "; the history is not whole: unknown" : ""));
  Emit(*checked);
}

// Each example cycle as cycles/PHASE-KIND-N.dot, for Graphviz (dot -Tsvg).
void RunController::WriteCycles(const std::string& phase,
                                const std::vector<std::pair<std::string, std::string>>& dots) {
  if (dots.empty()) return;
  const std::string dir = dir_ + "/cycles";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string file = phase;
  std::replace(file.begin(), file.end(), '/', '-');
  for (const auto& [name, text] : dots) {
    std::ofstream out(dir + "/" + file + "-" + name + ".dot");
    out << text;
    if (!out) {
      SLOG(kError) << "history: " << dir << ": cannot write the cycles' DOT files";
      return;
    }
  }
}

void RunController::FinishHistory() {
  WriteHistory({}, true);
  MutexLock lock(history_mu_);
  if (!history_.open()) return;
  (void)history_.Flush();
  if (Status s = WriteHistoryArray(history_.path(), dir_ + "/history.json"); !s.ok()) {
    SLOG(kError) << "history: " << s.message();
  }
}

}  // namespace stampede::coordinator

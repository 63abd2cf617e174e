#include "report/headline.h"

#include <cstdlib>

#include "common/isolation.h"
#include "common/strings.h"
#include "proto/fault_action.h"
#include "report/text_format.h"
#include "report/verdict.h"

namespace stampede::report {
namespace {

std::string ErrorsInWords(const std::array<uint64_t, kNumOutcomes>& outcomes) {
  uint64_t total = 0;
  std::vector<std::string> kinds;
  for (int i = 1; i < kNumOutcomes; ++i) {
    if (!outcomes[i]) continue;
    total += outcomes[i];
    kinds.push_back(std::string(kOutcomeNames[i]) + " " + std::to_string(outcomes[i]));
  }
  if (total == 0) return "no errors";
  return std::to_string(total) + (total == 1 ? " error (" : " errors (") + Join(kinds, ", ") + ")";
}

// Seconds to the ms when measured so, else to a tenth.
std::string Seconds(double v, bool exact) { return exact ? Fixed(v, 3) + " s" : Secs(v); }

std::string FaultLine(const FaultRecovery& f, const FaultRecovery* next) {
  std::string line = f.action + " " + f.node + (f.detail.empty() ? "" : " (" + f.detail + ")") + " at " + f.When();
  // A start or restart takes effect when its command returns (a Galera
  // node's state transfer can take seconds): say so, or it reads as late.
  if (f.requested_t >= 0 && f.t - f.requested_t >= 0.05) {
    line += " (asked for at " + f.Asked() + ": the action took " + Secs(f.t - f.requested_t) + ")";
  }
  if (!f.ok) return line + ": FAILED: " + f.message;
  std::vector<std::string> parts;
  if (f.unavailable_s >= 0.1) parts.push_back("no operation succeeded for " + Seconds(f.unavailable_s, f.sub_second));
  parts.push_back(ErrorsInWords(f.outcomes));
  parts.push_back(RecoveryInWords(f, next));
  if (f.probed && f.healthy_s >= 0) parts.push_back("healthy after " + Secs(f.healthy_s));
  if (f.rebalance && IsTopologyAction(f.action)) {
    parts.push_back(f.rebalance->time_to_balanced_s >= 0 ? "balanced after " + Secs(f.rebalance->time_to_balanced_s)
                                                         : "not balanced within its window");
  }
  return line + ": " + Join(parts, "; ");
}

std::string WritesLine(const PhaseSummary& p) {
  const record::WritesChecked& w = *p.writes;
  std::string line = "writes in " + p.name + ": ";
  if (!w.supported) return line + "not checked (" + w.note + ")";
  line += std::to_string(w.acked) + " acknowledged, " +
          (w.lost ? std::to_string(w.lost) + " LOST" : std::string(w.unchecked ? "0 lost of those read" : "0 lost"));
  if (w.ambiguous) {
    line += "; of " + std::to_string(w.ambiguous) + " ambiguous, " + std::to_string(w.ambiguous_found) +
            " committed and " + std::to_string(w.ambiguous - w.ambiguous_found) + " did not";
  }
  if (w.failed_found) line += "; " + std::to_string(w.failed_found) + " failed inserts committed after all";
  if (w.unchecked) line += "; " + std::to_string(w.unchecked) + " not checked";
  return line;
}

std::array<uint64_t, kNumOutcomes> SumOutcomes(const RunSummary& s) {
  std::array<uint64_t, kNumOutcomes> sum{};
  for (const PhaseSummary& p : s.phases) {
    for (const OpSummary& o : p.ops) {
      for (int i = 0; i < kNumOutcomes; ++i) sum[i] += o.outcomes[i];
    }
  }
  return sum;
}

std::string ResultLine(const RunSummary& s) {
  uint64_t ops = 0, missed = 0;
  double seconds = 0;
  for (const PhaseSummary& p : s.phases) {
    for (const OpSummary& o : p.ops) ops += o.count();
    missed += p.missed();
    seconds += p.duration_s;
  }
  std::string verdict;
  const Verdict v = Evaluate(s);
  if (!s.ok) {
    verdict = "FAILED: " + s.error;
  } else if (!v.passed()) {
    verdict = "expectations not met (" + FailedChecksLine(v) + ")";
  } else if (!s.degraded.empty()) {
    verdict = "DEGRADED: " + s.degraded;
  } else {
    verdict = "ok";
    if (!v.checks.empty())
      verdict +=
          ", " + std::to_string(v.checks.size()) + " of " + std::to_string(v.checks.size()) + " expectations met";
  }
  if (s.phases.empty()) return "Result: " + verdict + ". No phase started: nothing was measured.";
  return "Result: " + verdict + ". " + std::to_string(ops) + " operations in " + Secs(seconds) + " over " +
         std::to_string(s.phases.size()) + (s.phases.size() == 1 ? " phase" : " phases") + ", " +
         ErrorsInWords(SumOutcomes(s)) + ", " + std::to_string(missed) + " missed.";
}

// "consistency in append: 0 anomalies at serializable, 20062 transactions
// checked" (or the anomalies by kind, or why the result is unknown), and
// what the level allows and was found.
std::string ConsistencyLine(const PhaseSummary& p) {
  const PhaseAnomalies& a = p.anomalies;
  std::string line = "consistency in " + p.name + ": ";
  if (const std::string why = a.HistoryUnknown(); !why.empty()) line += "UNKNOWN (" + why + "); in the rest, ";
  std::vector<std::string> kinds;
  for (const auto& [kind, n] : a.counts) kinds.push_back(kind + " " + std::to_string(n));
  line += a.total()
              ? std::to_string(a.total()) + (a.total() == 1 ? " ANOMALY (" : " ANOMALIES (") + Join(kinds, ", ") + ")"
              : "0 anomalies";
  if (!a.isolation.empty()) line += " at " + IsolationWords(a.isolation);
  if (a.history_checked) line += ", " + std::to_string(a.transactions) + " transactions checked";
  std::vector<std::string> allowed;
  for (const auto& [kind, n] : a.allowed) allowed.push_back(kind + " " + std::to_string(n));
  if (!allowed.empty()) line += "; allowed there and found: " + Join(allowed, ", ");
  return line;
}

}  // namespace

std::string RecoveryInWords(const FaultRecovery& f, const FaultRecovery* next) {
  if (f.recovered_s == 0) return "throughput held";
  if (f.recovered_s > 0) return "throughput recovered after " + Secs(f.recovered_s);
  if (!f.observed) return "nothing was measured after it";
  if (f.next_fault && next) {
    return "the next fault (" + next->action + " " + next->node + ") came " + Secs(next->requested_t - f.t) +
           " later, before throughput recovered";
  }
  return "throughput did not recover before the run ended";
}

Headline MakeHeadline(const RunSummary& s) {
  Headline h;
  h.result = ResultLine(s);
  for (size_t i = 0; i < s.faults.size(); ++i) {
    h.lines.push_back(FaultLine(s.faults[i], i + 1 < s.faults.size() ? &s.faults[i + 1] : nullptr));
  }
  for (const PhaseSummary& p : s.phases) {
    if (p.writes) h.lines.push_back(WritesLine(p));
    // A history checked, a bank's or register's reads, or anything found.
    const bool says =
        p.anomalies.history_checked || p.anomalies.total() > 0 || p.workload == "bank" || p.workload == "register";
    if (says) h.lines.push_back(ConsistencyLine(p));
  }
  return h;
}

std::string RenderHeadlineMarkdown(const Headline& h) {
  std::string md = "**" + h.result + "**\n";
  if (!h.lines.empty()) md += "\n";
  for (const std::string& l : h.lines) md += "- " + l + "\n";
  return md;
}

std::string RenderHeadlineText(const Headline& h) {
  std::string text = h.result + "\n";
  for (const std::string& l : h.lines) text += "- " + l + "\n";
  return text;
}

std::string ExplainCountNote(const std::string& note, const RunSummary& s) {
  // "...: phase GROUP/STEP: Count = N (expected M, K short)"
  const size_t phase_at = note.find("phase ");
  const size_t short_at = note.rfind(" short)");
  if (phase_at == std::string::npos || short_at == std::string::npos) return note;
  const size_t slash = note.find('/', phase_at);
  const size_t comma = note.rfind(", ", short_at);
  if (slash == std::string::npos || comma == std::string::npos) return note;
  const std::string group = note.substr(phase_at + 6, slash - phase_at - 6);
  const uint64_t short_by = std::strtoull(note.c_str() + comma + 2, nullptr, 10);
  for (const PhaseSummary& p : s.phases) {
    if (p.group != group || !p.writes || !p.writes->supported || p.writes->unchecked) continue;
    const record::WritesChecked& w = *p.writes;
    const uint64_t not_committed = w.ambiguous - w.ambiguous_found, failed = w.failed - w.failed_found;
    if (w.lost + not_committed + failed != short_by) return note;
    std::vector<std::string> why;
    if (not_committed) why.push_back("the " + std::to_string(not_committed) + " ambiguous inserts that did not commit");
    if (w.lost) why.push_back(std::to_string(w.lost) + " acknowledged inserts LOST");
    if (failed) why.push_back("the " + std::to_string(failed) + " inserts that failed");
    return note.substr(0, short_at) + " short: " + Join(why, ", ") + "; acknowledged writes of " + p.name + ")";
  }
  return note;
}

}  // namespace stampede::report

#include "report/anomalies.h"

#include <algorithm>
#include <sstream>

#include "common/isolation.h"
#include "report/text_format.h"

namespace stampede::report {

std::string PhaseAnomalies::HistoryUnknown() const {
  std::string why;
  if (history_missing)
    why = std::to_string(history_missing) + " history events missing (the agents could not send them)";
  if (!history_unknown.empty()) why += (why.empty() ? "" : "; ") + history_unknown;
  return why;
}

uint64_t PhaseAnomalies::total() const {
  uint64_t n = 0;
  for (const auto& [kind, c] : counts) n += c;
  return n;
}

void PhaseAnomalies::Add(const record::HistoryChecked& h) {
  history_checked = true;
  transactions += h.transactions;
  final_keys += h.final_keys;
  if (!h.note.empty()) history_note = h.note;
  history_missing += h.missing;
  if (!h.unknown.empty()) history_unknown = h.unknown;
  if (!h.isolation.empty()) isolation = h.isolation;
  for (const auto& [kind, n] : h.counts) counts[kind] += n;
  for (const auto& [kind, n] : h.allowed) allowed[kind] += n;
  for (const auto& [t, n] : h.seconds) {
    if (n > 0) seconds.push_back(t);
  }
  std::sort(seconds.begin(), seconds.end());
  seconds.erase(std::unique(seconds.begin(), seconds.end()), seconds.end());
  AddExamples(h.examples);
}

void PhaseAnomalies::AddExamples(const std::vector<record::AnomalyExample>& list) {
  for (const record::AnomalyExample& e : list) {
    const size_t of_kind = size_t(std::count_if(examples.begin(), examples.end(),
                                                [&](const record::AnomalyExample& x) { return x.kind == e.kind; }));
    if (of_kind < kExamplesPerKind || e.final) examples.push_back(e);
  }
  std::stable_sort(examples.begin(), examples.end(),
                   [](const record::AnomalyExample& a, const record::AnomalyExample& b) { return a.t < b.t; });
}

void PhaseAnomalies::Add(const record::Second& s) {
  uint64_t here = 0;
  for (const auto& [kind, c] : s.anomalies) {
    counts[kind] += c;
    here += c;
  }
  if (here > 0 && (seconds.empty() || seconds.back() != s.t)) seconds.push_back(s.t);
  AddExamples(s.anomaly_examples);
}

bool ChecksConsistency(const std::string& workload) {
  return workload == "bank" || workload == "register" || workload == "append" || workload == "tpcc";
}

std::string DescribeAnomaly(const record::AnomalyExample& e) {
  std::ostringstream out;
  if (e.op == "cycle") {  // the dependency graph's: the cycle in words
    out << e.detail;
  } else if (!e.detail.empty()) {  // a history check's
    out << "key " << e.key << ": " << e.detail;
    if (e.lag_s > 0) out << " " << HumanUs(e.lag_s * 1e6) << " before";
  } else if (e.kind == "wrong_total") {
    out << (e.final ? "the final read's total " : "read total ") << e.got << ", expected " << e.expected;
  } else if (e.kind == "stale_read") {
    out << "key " << e.key << " read " << e.got << " after " << e.expected << " was acknowledged";
    if (e.lag_s > 0) out << " " << HumanUs(e.lag_s * 1e6) << " before";
  } else if (e.kind.rfind("tpcc_", 0) == 0) {
    out << e.kind
        << (e.kind == "tpcc_ytd"
                ? " in warehouse " + std::to_string(e.key)
                : " in warehouse " + std::to_string(e.key / 100) + " district " + std::to_string(e.key % 100))
        << ": " << e.expected << " expected, " << e.got << " found";
  } else {
    out << e.kind << " key " << e.key << ": got " << e.got << ", expected " << e.expected;
  }
  out << " (" << (e.endpoint.empty() ? "?" : e.endpoint) << ", agent " << e.agent << ", " << Fixed(e.t, 2) << " s)";
  return out.str();
}

nlohmann::json AnomaliesToJson(const PhaseAnomalies& a) {
  nlohmann::json examples = nlohmann::json::array();
  for (const record::AnomalyExample& e : a.examples) {
    nlohmann::json j = {{"kind", e.kind},         {"t_s", e.t},   {"agent", e.agent},
                        {"endpoint", e.endpoint}, {"op", e.op},   {"key", e.key},
                        {"expected", e.expected}, {"got", e.got}, {"final", e.final}};
    if (e.lag_s > 0) j["lag_s"] = e.lag_s;
    if (!e.detail.empty()) j["detail"] = e.detail;
    j["text"] = DescribeAnomaly(e);
    examples.push_back(std::move(j));
  }
  nlohmann::json j = {
      {"total", a.total()}, {"by_kind", a.counts}, {"seconds", a.seconds}, {"examples", std::move(examples)}};
  if (a.history_checked) {
    j["history"] = {{"transactions", a.transactions}, {"final_keys", a.final_keys},    {"note", a.history_note},
                    {"missing", a.history_missing},   {"unknown", a.HistoryUnknown()}, {"isolation", a.isolation},
                    {"allowed_by_kind", a.allowed}};
  }
  return j;
}

namespace {

// "| kind | n | examples |" rows of report.md's anomalies table.
void KindRows(std::ostringstream& md, const PhaseAnomalies& a, const std::map<std::string, uint64_t>& kinds,
              const std::string& label) {
  for (const auto& [kind, n] : kinds) {
    md << "| " << kind << label << " | " << n << " | ";
    int shown = 0;
    for (const record::AnomalyExample& e : a.examples) {
      if (e.kind != kind || (shown >= 3 && !e.final)) continue;
      md << (shown++ ? "; " : "") << DescribeAnomaly(e);
    }
    md << " |\n";
  }
}

}  // namespace

std::string AnomaliesMarkdown(const PhaseAnomalies& a, const std::string& workload) {
  std::string history;
  if (a.history_checked) {
    history = " The history (history.jsonl): " + std::to_string(a.transactions) +
              " transactions and the final reads of " + std::to_string(a.final_keys) + " keys checked" +
              (a.isolation.empty() ? "" : ", judged at " + IsolationWords(a.isolation)) +
              (a.history_note.empty() ? "" : "; " + a.history_note) + ".";
  }
  uint64_t allowed = 0;
  for (const auto& [kind, n] : a.allowed) allowed += n;
  const std::string level = IsolationWords(a.isolation);
  if (allowed) {
    history += " Found besides, and allowed at " + level + ": " + std::to_string(allowed) +
               (allowed == 1 ? " cycle." : " cycles.");
  }
  // A check on part of the history proves nothing about the rest.
  const std::string why = a.HistoryUnknown();
  const std::string unknown = why.empty() ? "" : "**Consistency: unknown:** " + why + " (docs/consistency.md)";
  std::ostringstream md;
  if (a.total() == 0) {
    if (!unknown.empty()) {
      md << unknown << "; in the rest, no anomalies." << history;
    } else if (ChecksConsistency(workload)) {
      md << "Consistency: 0 anomalies (docs/consistency.md)." << history;
    }
    if (allowed == 0) return md.str();
  } else {
    const std::string found = std::to_string(a.total()) + (a.total() == 1 ? " anomaly" : " anomalies");
    if (!unknown.empty())
      md << unknown << "; in the rest, " << found << ", in ";
    else
      md << "**Consistency: " << found << "** (docs/consistency.md), in ";
    md << a.seconds.size() << " second" << (a.seconds.size() == 1 ? "" : "s") << "." << history;
  }
  md << "\n\n| anomaly | count | examples |\n|---|---:|---|\n";
  KindRows(md, a, a.counts, "");
  KindRows(md, a, a.allowed, " (allowed at " + level + ")");
  return md.str();
}

}  // namespace stampede::report

// `stampede check RESULTS_DIR`: the consistency checks of a run's append
// phases again, from history.jsonl alone (report/history_check.h), and
// whether they reach what the run's summary.json says.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/flags.h"
#include "common/isolation.h"
#include "report/anomalies.h"
#include "report/history_check.h"

namespace stampede::cli {
namespace po = boost::program_options;
namespace {

// summary.json's anomalies of each phase by name (empty if there is none).
std::map<std::string, nlohmann::json> SummaryAnomalies(const std::string& dir) {
  std::map<std::string, nlohmann::json> by_phase;
  std::ifstream in(dir + "/summary.json");
  const nlohmann::json s = nlohmann::json::parse(in, nullptr, false);
  if (!s.is_object() || !s.contains("phases") || !s["phases"].is_array()) return by_phase;
  for (const nlohmann::json& p : s["phases"]) {
    if (p.is_object() && p.contains("name") && p["name"].is_string() && p.contains("anomalies")) {
      by_phase[p["name"].get<std::string>()] = p["anomalies"];
    }
  }
  return by_phase;
}

// Why the run's history of the phase is not whole, as summary.json says
// ("" if it is, or says nothing).
std::string Unknown(const nlohmann::json& anomalies) {
  const nlohmann::json h = anomalies.value("history", nlohmann::json::object());
  const nlohmann::json u = h.is_object() ? h.value("unknown", nlohmann::json("")) : nlohmann::json("");
  return u.is_string() ? u.get<std::string>() : "";
}

// One phase's findings as lines; returns its anomalies (*unknown: the run
// lost part of the phase's history, so none found proves nothing).
uint64_t Report(const record::HistoryChecked& c, const std::map<std::string, nlohmann::json>& summary, bool* unknown) {
  uint64_t total = 0;
  for (const auto& [kind, n] : c.counts) total += n;
  std::cout << "phase " << c.phase << ": " << c.transactions << " transactions, the final reads of " << c.final_keys
            << " keys: " << total << " anomal" << (total == 1 ? "y" : "ies");
  for (const auto& [kind, n] : c.counts)
    std::cout << (kind == c.counts.begin()->first ? " (" : ", ") << kind << " " << n;
  std::cout << (c.counts.empty() ? "" : ")") << "\n";
  if (!c.isolation.empty()) std::cout << "  judged at " << IsolationWords(c.isolation) << "\n";
  for (const auto& [kind, n] : c.allowed)
    std::cout << "  allowed at " << IsolationWords(c.isolation) << ": " << kind << " " << n << "\n";
  if (!c.note.empty()) std::cout << "  note: " << c.note << "\n";
  size_t shown = 0;
  for (const record::AnomalyExample& e : c.examples) {
    if (shown++ < 10) std::cout << "  " << e.kind << ": " << report::DescribeAnomaly(e) << "\n";
  }
  const auto it = summary.find(c.phase);
  if (it == summary.end()) return total;
  if (const std::string why = Unknown(it->second); !why.empty()) {
    std::cout << "  unknown: " << why << "\n";
    *unknown = true;
  }
  const nlohmann::json by_kind = it->second.value("by_kind", nlohmann::json::object());
  if (by_kind == nlohmann::json(c.counts)) {
    std::cout << "  summary.json: the same\n";
  } else {
    std::cout << "  summary.json says otherwise: " << by_kind.dump() << "\n";
  }
  return total;
}

// The level the run judged the phase at, as summary.json says ("" if it
// says nothing).
std::string JudgedAt(const std::map<std::string, nlohmann::json>& summary, const std::string& phase) {
  const auto it = summary.find(phase);
  if (it == summary.end()) return "";
  const nlohmann::json h = it->second.value("history", nlohmann::json::object());
  const nlohmann::json i = h.is_object() ? h.value("isolation", nlohmann::json("")) : nlohmann::json("");
  return i.is_string() ? i.get<std::string>() : "";
}

}  // namespace

int CheckCommand(const Args& args) {
  std::string dir, isolation;
  po::options_description desc("check options");
  desc.add_options()("dir", po::value(&dir), "results directory of a run")(
      "isolation", po::value(&isolation),
      "judge the history at this level instead of the run's: read-committed, repeatable-read, snapshot or "
      "serializable");
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  const std::string usage =
      "usage: stampede check RESULTS_DIR [--isolation LEVEL]\n"
      "Checks the history of the run's append phases (history.jsonl) again, from that file alone, and says whether\n"
      "it finds what summary.json says, judged at the isolation level the run named (or --isolation). Exits 4\n"
      "when it finds anomalies that level forbids or the run lost part of a history, 0 when none\n"
      "(docs/consistency.md).";
  if (auto code = ParseFlags(usage, desc, pos, args, &vm)) return *code;
  if (dir.empty()) {
    std::cerr << usage << "\n";
    return kExitBadInput;
  }
  if (!isolation.empty() && IsolationSql(isolation, "postgres", nullptr).empty()) {
    std::cerr << "stampede: --isolation: expected read-committed, repeatable-read, snapshot or serializable, found '"
              << isolation << "'\n";
    return kExitBadInput;
  }
  const std::string path = dir + "/history.jsonl";
  auto phases = report::HistoryPhases(path);
  if (!phases.ok() || phases->empty()) {
    // Nothing checked is not a pass: a CI job reading exit 0 would think so.
    std::cerr << "stampede: nothing to check in " << dir << ": "
              << (phases.ok() ? path + " records no operation" : phases.status().message())
              << " (only a run with an append phase records a history)\n";
    return kExitBadInput;
  }
  const auto summary = SummaryAnomalies(dir);
  uint64_t anomalies = 0;
  bool unknown = false;
  for (size_t i = 0; i < phases->size(); ++i) {
    report::HistoryCheckOptions o;
    o.isolation = isolation.empty() ? JudgedAt(summary, (*phases)[i]) : isolation;
    auto checked = report::CheckHistory(path, (*phases)[i], uint32_t(i), o);
    if (!checked.ok()) {
      return Fail(checked.status());
    }
    anomalies += Report(*checked, summary, &unknown);
  }
  return anomalies || unknown ? kExitExpectations : kExitOk;
}

}  // namespace stampede::cli

// `stampede history`: the runs recorded in the run history
// (runs/run_store.h, docs/history.md): the plans, a plan's runs, one
// number over them, where the numbers changed level; `history import`
// records results directories of earlier runs.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/flags.h"
#include "common/strings.h"
#include "report/text_format.h"
#include "runs/exports.h"
#include "runs/history_html.h"
#include "runs/run_store.h"
#include "runs/trends.h"

namespace stampede::cli {
namespace po = boost::program_options;
namespace {

using Json = nlohmann::json;

std::string Cell(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  return report::Fixed(v, std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 10 ? 1 : 3);
}

// The name closest to what was typed: one it begins, else the nearest.
std::string Nearest(const std::string& typed, const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    if (n.rfind(typed, 0) == 0) return n;
  }
  return NearestWord(typed, names);
}

int ListPlans(runs::RunStore& store, bool json) {
  auto plans = store.Plans();
  if (!plans.ok()) return Fail(plans.status());
  if (json) {
    Json j = Json::array();
    for (const runs::PlanRuns& p : *plans) {
      j.push_back({{"plan", p.plan},
                   {"runs", p.runs},
                   {"last_started_at", p.last_started_at},
                   {"last_verdict", p.last_verdict}});
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  if (plans->empty()) {
    std::cout << "no runs recorded yet (every `stampede run` records its own; `stampede history import DIR...` "
                 "records earlier ones)\n";
    return kExitOk;
  }
  std::cout << "| plan | runs | last run | its result |\n|---|---:|---|---|\n";
  for (const runs::PlanRuns& p : *plans) {
    std::cout << "| " << p.plan << " | " << p.runs << " | " << p.last_started_at << " | " << p.last_verdict << " |\n";
  }
  return kExitOk;
}

Json RunsToJson(const std::vector<runs::RunRecord>& list) {
  Json j = Json::array();
  for (const runs::RunRecord& r : list) {
    Json metrics = Json::object();
    for (const runs::Metric& m : r.metrics) metrics[m.name] = m.value;
    j.push_back({{"run_id", r.run_id},
                 {"started_at", r.started_at},
                 {"verdict", r.verdict},
                 {"duration_s", r.duration_s},
                 {"plan_hash", r.plan_hash},
                 {"version", r.version},
                 {"target", r.target},
                 {"dir", r.dir},
                 {"metrics", metrics}});
  }
  return j;
}

// The runs, one row each: the chosen numbers as columns.
void PrintRuns(const std::vector<runs::RunRecord>& list, const std::vector<std::string>& columns) {
  std::cout << "| started | run | result | s |";
  for (const std::string& c : columns) std::cout << " " << c << " |";
  std::cout << "\n|---|---|---|---:|";
  for (size_t i = 0; i < columns.size(); ++i) std::cout << "---:|";
  std::cout << "\n";
  for (const runs::RunRecord& r : list) {
    std::cout << "| " << r.started_at << " | " << r.run_id << " | " << r.verdict << " | " << Cell(r.duration_s) << " |";
    for (const std::string& c : columns) {
      const runs::Metric* m = r.Find(c);
      std::cout << " " << (m ? Cell(m->value) : "") << " |";
    }
    std::cout << "\n";
  }
}

int PrintRegressions(const std::vector<runs::RunRecord>& list, bool json) {
  const std::vector<runs::LevelChange> changes = runs::FindLevelChanges(list);
  if (json) {
    Json j = Json::array();
    for (const runs::LevelChange& c : changes) {
      j.push_back({{"metric", c.metric},
                   {"run_id", list[c.run].run_id},
                   {"started_at", list[c.run].started_at},
                   {"before", c.before},
                   {"after", c.after},
                   {"change", c.change},
                   {"worse", c.worse},
                   {"p", c.p}});
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  if (changes.empty()) {
    std::cout << "no change points in " << list.size() << " runs (E-divisive means, p <= 0.01; a level needs 3 runs "
              << "on each side)\n";
    return kExitOk;
  }
  std::cout << "| metric | from run | started | before | after | change | |\n|---|---|---|---:|---:|---:|---|\n";
  for (const runs::LevelChange& c : changes) {
    std::cout << "| " << c.metric << " | " << list[c.run].run_id << " | " << list[c.run].started_at << " | "
              << Cell(c.before) << " | " << Cell(c.after) << " | " << (c.change >= 0 ? "+" : "")
              << report::Fixed(100 * c.change, 1) << "% | " << (c.worse ? "worse" : "better") << " |\n";
  }
  return kExitOk;
}

// --export: the runs for Otava (CSV, and the otava.yaml entry that reads
// it) or the last run for Bencher (BMF JSON).
int Export(const std::vector<runs::RunRecord>& list, const std::string& plan, const std::string& format) {
  if (format == "otava-csv") {
    runs::WriteOtavaCsv(list, std::cout);
  } else if (format == "otava-yaml") {
    std::cout << runs::OtavaConfig(plan, runs::ColumnName(plan) + ".csv", list);
  } else if (format == "bencher-json") {
    runs::WriteBencherJson(list.back(), std::cout);
  } else {
    std::cerr << "stampede: --export takes otava-csv, otava-yaml or bencher-json, not '" << format << "'\n";
    return kExitBadInput;
  }
  return kExitOk;
}

// --html FILE: the runs as a page of charts (runs/history_html.h).
int WriteHtml(const std::vector<runs::RunRecord>& list, const std::string& plan, const std::string& file) {
  const std::string dir = std::filesystem::path(file).parent_path().string();
  const std::string html =
      runs::RenderHistoryHtml(runs::HistoryView(plan, list, runs::FindLevelChanges(list), dir.empty() ? "." : dir));
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << html;
  out.close();
  if (!out) return Fail(Status::Error(file + ": cannot be written"));
  std::cout << "wrote " << file << " (" << list.size() << " runs of plan " << plan << ")\n";
  return kExitOk;
}

struct ShowOptions {
  std::string metric, export_format, html;
  bool regressions = false, json = false;
};

int ShowPlan(runs::RunStore& store, const std::string& plan, const ShowOptions& o) {
  const std::string& metric = o.metric;
  const bool json = o.json;
  auto list = store.Runs(plan);
  if (!list.ok()) return Fail(list.status());
  if (list->empty()) {
    std::vector<std::string> names;
    if (auto plans = store.Plans(); plans.ok()) {
      for (const runs::PlanRuns& p : *plans) names.push_back(p.plan);
    }
    const std::string near = Nearest(plan, names);
    std::cerr << "stampede: no runs of plan '" << plan << "' recorded"
              << (near.empty() ? "" : "; did you mean " + near + "?") << "\n";
    return kExitBadInput;
  }
  if (!o.export_format.empty()) return Export(*list, plan, o.export_format);
  if (!o.html.empty()) return WriteHtml(*list, plan, o.html);
  if (o.regressions) return PrintRegressions(*list, json);
  if (json) {
    std::cout << RunsToJson(*list).dump(2) << "\n";
    return kExitOk;
  }
  std::vector<std::string> columns;
  if (!metric.empty()) {
    std::vector<std::string> names;
    for (const runs::Metric& m : list->back().metrics) names.push_back(m.name);
    if (std::find(names.begin(), names.end(), metric) == names.end() && !list->back().Find(metric)) {
      const std::string near = Nearest(metric, names);
      std::cerr << "stampede: plan " << plan << "'s runs track no '" << metric << "'"
                << (near.empty() ? "" : "; did you mean '" + near + "'?") << " (`stampede history " << plan
                << " --json` lists them)\n";
      return kExitBadInput;
    }
    columns.push_back(metric);
  } else {
    for (const runs::Metric& m : list->back().metrics) {
      if (columns.size() < 4) columns.push_back(m.name);
    }
  }
  PrintRuns(*list, columns);
  return kExitOk;
}

// Each directory in turn: one that cannot be read is named and skipped,
// the others recorded (exit 2 if any was skipped).
int Import(runs::RunStore& store, const std::vector<std::string>& dirs) {
  int recorded = 0, known = 0, skipped = 0;
  for (const std::string& d : dirs) {
    auto r = runs::ReadRunRecord(d);
    if (!r.ok()) {
      std::cerr << "stampede: skipped " << r.status().message() << "\n";
      ++skipped;
      continue;
    }
    auto added = store.Record(*r);
    if (!added.ok()) return Fail(added.status());
    (*added ? recorded : known)++;
    std::cout << d << ": " << (*added ? "recorded" : "recorded before") << " (plan " << r->plan << ", run " << r->run_id
              << ")\n";
  }
  std::cout << recorded << " recorded, " << known << " already there"
            << (skipped ? ", " + std::to_string(skipped) + " skipped (not readable)" : "") << "\n";
  return skipped ? kExitBadInput : kExitOk;
}

}  // namespace

int HistoryCommand(const Args& args) {
  std::vector<std::string> words;
  std::string path = kDefaultHistory;
  ShowOptions show;
  po::options_description desc("history options");
  desc.add_options()("word", po::value(&words)->composing(), "PLAN, or import DIR...")(
      "history", po::value(&path)->default_value(path), "the run history (an SQLite file)")(
      "metric", po::value(&show.metric), "one tracked number over the runs")(
      "regressions", "where each tracked number changed level, worse or better")("json", "as JSON, for scripts")(
      "export", po::value(&show.export_format),
      "otava-csv (the runs as Apache Otava's CSV), otava-yaml (its otava.yaml entry) or bencher-json (the last run "
      "as Bencher Metric Format)")("html", po::value(&show.html),
                                   "write FILE: a page with a chart per tracked number, change points marked");
  po::positional_options_description pos;
  pos.add("word", -1);
  po::variables_map vm;
  const std::string usage =
      "usage: stampede history [PLAN [--metric NAME | --regressions | --export FORMAT | --html FILE]] [--json] "
      "[--history FILE]\n"
      "       stampede history import RESULTS_DIR... [--history FILE]\n"
      "The runs recorded in the run history (every `stampede run` records its own, in results/history.db unless\n"
      "--history says): the plans; a plan's runs with their numbers; one number over them; where each number\n"
      "changed level (E-divisive means). `import` records earlier runs' results directories (docs/history.md).";
  if (auto code = ParseFlags(usage, desc, pos, args, &vm)) return *code;
  const bool import = !words.empty() && words[0] == "import";
  if ((import && words.size() < 2) || (!import && words.size() > 1)) {
    std::cerr << usage << "\n";
    return kExitBadInput;
  }
  if (!import && words.empty() &&
      (vm.count("metric") || vm.count("regressions") || vm.count("export") || vm.count("html"))) {
    std::cerr << "stampede: --metric, --regressions, --export and --html need a PLAN\n" << usage << "\n";
    return kExitBadInput;
  }
  if (!import && !runs::RunStore::IsPostgres(path) && !std::filesystem::exists(path)) {
    // Reading creates nothing: a wrong path is said as such.
    std::cerr << "stampede: no run history at " << path
              << " yet (every `stampede run` records itself in history.db beside its results; --history FILE reads "
                 "another)\n";
    return words.empty() ? kExitOk : kExitBadInput;
  }
  auto store = runs::RunStore::Open(path);
  if (!store.ok()) return Fail(store.status());
  if (import) return Import(**store, std::vector<std::string>(words.begin() + 1, words.end()));
  if (words.empty()) return ListPlans(**store, vm.count("json") > 0);
  show.regressions = vm.count("regressions") > 0;
  show.json = vm.count("json") > 0;
  return ShowPlan(**store, words[0], show);
}

}  // namespace stampede::cli

#include "report/run_view.h"

#include <map>
#include <set>

#include "common/histogram.h"
#include "report/recovery.h"
#include "report/run_summary.h"

namespace stampede::report {

Json BuildRunView(const std::vector<Json>& journal) {
  Json view = Json::object();
  // Which ops each phase runs: in a second without any of them (an outage)
  // they are 0; ops of other phases are null there (a gap, not a dip).
  std::map<std::string, std::set<std::string>> phase_ops;
  for (const Json& line : journal) {
    if (line.value("type", "") != "second") continue;
    auto& set = phase_ops[line.value("phase", "")];
    const Json lo = line.value("ops", Json::object());
    for (auto it = lo.begin(); it != lo.end(); ++it) set.insert(it.key());
  }
  std::vector<double> t, p50, p99, active;
  std::map<std::string, Json> ops;                    // op -> ops/s (null: not this phase's op)
  std::map<std::string, std::vector<double>> errors;  // outcome -> errors/s
  Json phases = Json::array(), health = Json::array(), logs = Json::array();
  std::string status = "running", error, phase;
  size_t points = 0;
  for (const Json& line : journal) {
    const std::string type = line.value("type", "");
    if (type == "run") {
      view["run_id"] = line.value("run_id", "");
      view["plan_name"] = line.value("plan_name", "");
      view["target"] = line.value("target", "");
      view["started_at"] = line.value("started_at", "");
      view["agents"] = line.value("agents", std::vector<std::string>{});
      view["roles"] = line.value("roles", Json::object());
    } else if (type == "phase_start") {
      phase = line.value("phase", "");
      phases.push_back(
          {{"name", phase}, {"group", line.value("group", "")}, {"start", line.value("t", 0.0)}, {"end", nullptr}});
    } else if (type == "phase_end" && !phases.empty()) {
      const double start = phases.back().value("start", 0.0);
      phases.back()["end"] = start + line.value("duration_s", 0.0);
    } else if (type == "second" && !line.value("late", false)) {
      const double interval = line.value("interval_s", 1.0);
      if (interval < 0.2) continue;  // a phase's last sliver says little per second
      t.push_back(line.value("t", 0.0));
      Histogram merged;
      std::map<std::string, double> errs;
      std::map<std::string, double> rates;
      for (const std::string& op : phase_ops[line.value("phase", "")]) rates[op] = 0;
      const Json lo = line.value("ops", Json::object());
      for (auto it = lo.begin(); it != lo.end(); ++it) {
        const Json o = it.value().value("outcomes", Json::array());
        uint64_t count = 0;
        for (size_t i = 0; i < o.size(); ++i) {
          const uint64_t c = o[i].get<uint64_t>();
          count += c;
          if (i > 0 && i < size_t(kNumOutcomes) && c) errs[std::string(kOutcomeNames[i])] += double(c) / interval;
        }
        rates[it.key()] = double(count) / interval;
        const uint64_t missed = it.value().value("missed", uint64_t{0});
        if (missed) errs["missed"] += double(missed) / interval;
        MergeHistogramJson(it.value().value("latency", Json::object()), &merged);
      }
      for (const auto& [op, rate] : rates) {
        Json& series = ops[op];
        if (!series.is_array()) series = Json::array();
        while (series.size() < points) series.push_back(nullptr);
        series.push_back(rate);
      }
      for (const auto& [outcome, v] : errs) {
        auto& series = errors[outcome];
        series.resize(points, 0.0);
        series.push_back(v);
      }
      p50.push_back(merged.count() ? double(merged.ValueAtQuantile(0.5)) / 1e6 : 0.0);
      p99.push_back(merged.count() ? double(merged.ValueAtQuantile(0.99)) / 1e6 : 0.0);
      active.push_back(line.value("active_workers", 0.0));
      ++points;
    } else if (type == "health") {
      health.push_back({{"t", line.value("t", 0.0)},
                        {"healthy", line.value("healthy", false)},
                        {"detail", line.contains("detail") ? line["detail"] : line.value("error", Json(""))}});
    } else if (type == "log") {
      const std::string agent = line.value("agent", "");
      logs.push_back((agent.empty() ? "" : agent + ": ") + line.value("message", ""));
    } else if (type == "end") {
      status = !line.value("ok", false) ? "failed" : line.contains("degraded") ? "degraded" : "ok";
      error = line.value("error", "");
    }
  }
  for (auto& [name, s] : ops) {
    while (s.size() < points) s.push_back(nullptr);
  }
  for (auto& [name, s] : errors) s.resize(points, 0.0);
  view["status"] = status;
  view["error"] = error;
  view["phase"] = phase;
  view["series"] = {{"t", t},        {"ops", ops},       {"p50_ms", p50},
                    {"p99_ms", p99}, {"errors", errors}, {"active_workers", active}};
  view["phases"] = phases;
  view["health"] = health;
  view["logs"] = logs;
  Json faults = Json::array();
  for (const FaultRecovery& f : ComputeRecovery(journal)) faults.push_back(RecoveryToJson(f));
  view["faults"] = faults;
  RunSummary summary = BuildSummary(journal);
  Json s = SummaryToJson(summary);
  view["summary"] = {{"phases", s["phases"]}, {"groups", s["groups"]}};
  view["events"] = s["events"];
  view["undone"] = s["undone"];
  view["degraded"] = s["degraded"];
  return view;
}

}  // namespace stampede::report

#include "runs/run_record.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/compare.h"

namespace stampede::runs {
namespace {

using Json = nlohmann::json;

// FNV-1a, 64 bits, as hex: the same plan text, the same hash.
std::string Hash(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string Verdict(const Json& s) {
  if (!s.value("ok", false)) return "failed";
  const Json v = s.value("verdict", Json());
  if (v.is_object() && !v.value("passed", true)) return "expectations not met";
  if (s.contains("degraded") && s["degraded"].is_string()) return "degraded";
  return "ok";
}

}  // namespace

const Metric* RunRecord::Find(const std::string& name) const {
  for (const Metric& m : metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

StatusOr<RunRecord> ReadRunRecord(const std::string& dir) {
  std::ifstream in(dir + "/summary.json");
  if (!in) return Status::Error(dir + "/summary.json: cannot be read (not a finished run's results directory?)");
  const Json s = Json::parse(in, nullptr, false);
  if (!s.is_object() || !s.contains("run_id")) return Status::Error(dir + "/summary.json: not a run summary");
  RunRecord r;
  r.run_id = s.value("run_id", "");
  r.plan = s.value("plan_name", "");
  r.started_at = s.value("started_at", "");
  r.target = s.value("target", "");
  r.verdict = Verdict(s);
  r.dir = dir;
  for (const Json& p : s.value("phases", Json::array())) r.duration_s += p.value("duration_s", 0.0);
  std::ifstream plan(dir + "/plan.yaml");
  std::stringstream text;
  text << plan.rdbuf();
  r.plan_hash = plan ? Hash(text.str()) : "";
  if (const Json v = s.value("verdict", Json()); v.is_object() && v.contains("checks") && v["checks"].is_array()) {
    for (const Json& c : v["checks"]) {
      if (c.is_object() && c.contains("key") && c["key"].is_string() && c.contains("value") && c["value"].is_number()) {
        r.checks.push_back({c["key"].get<std::string>(), c["value"].get<double>(), false});
      }
    }
  }
  const report::Comparison c = report::Compare({s}, {dir});
  for (const report::CompareRow& row : c.rows) {
    if (!row.values.empty() && row.values[0]) r.metrics.push_back({row.label, *row.values[0], row.higher_is_better});
  }
  return r;
}

}  // namespace stampede::runs

#include "runs/exports.h"

#include <iomanip>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace stampede::runs {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Every tracked number of the runs, in the order they first appear.
std::vector<std::string> Columns(const std::vector<RunRecord>& runs) {
  std::vector<std::string> columns;
  std::set<std::string> seen;
  for (const RunRecord& r : runs) {
    for (const Metric& m : r.metrics) {
      if (seen.insert(m.name).second) columns.push_back(m.name);
    }
  }
  return columns;
}

std::string CsvNumber(double v) {
  std::ostringstream s;
  s << std::setprecision(10) << v;
  return s.str();
}

}  // namespace

std::string ColumnName(const std::string& metric) {
  std::string name = metric, out;
  for (size_t at; (at = name.find("µ")) != std::string::npos;) name.replace(at, std::string("µ").size(), "u");
  for (char c : name) {
    const bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    if (keep) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "metric" : out;
}

void WriteOtavaCsv(const std::vector<RunRecord>& runs, std::ostream& out) {
  const std::vector<std::string> columns = Columns(runs);
  out << "time,run,version,result";
  for (const std::string& c : columns) out << "," << ColumnName(c);
  out << "\n";
  for (const RunRecord& r : runs) {
    out << r.started_at << "," << ColumnName(r.run_id) << "," << (r.version.empty() ? "-" : ColumnName(r.version))
        << "," << ColumnName(r.verdict);
    for (const std::string& c : columns) {
      const Metric* m = r.Find(c);
      out << "," << (m ? CsvNumber(m->value) : "");
    }
    out << "\n";
  }
}

std::string OtavaConfig(const std::string& plan, const std::string& csv, const std::vector<RunRecord>& runs) {
  std::string metrics;
  for (const std::string& c : Columns(runs)) metrics += (metrics.empty() ? "" : ", ") + ColumnName(c);
  return "tests:\n  stampede." + ColumnName(plan) + ":\n    type: csv\n    file: " + csv +
         "\n    time_column: time\n    attributes: [run, version, result]\n    metrics: [" + metrics + "]\n";
}

void WriteBencherJson(const RunRecord& run, std::ostream& out) {
  nlohmann::json j = nlohmann::json::object();
  for (const Metric& m : run.metrics) {
    std::string benchmark = m.name, measure = "count";
    double value = m.value;
    if (EndsWith(m.name, " (ms)")) {
      benchmark = m.name.substr(0, m.name.size() - 5);
      measure = "latency";
      value *= 1e6;  // Bencher's latency is in nanoseconds
    } else if (EndsWith(m.name, " ops/s")) {
      benchmark = m.name.substr(0, m.name.size() - 6);
      measure = "throughput";
    } else if (EndsWith(m.name, " (s)")) {
      benchmark = m.name.substr(0, m.name.size() - 4);
      measure = "seconds";
    } else if (const size_t open = m.name.rfind(" ("); open != std::string::npos && EndsWith(m.name, ")")) {
      benchmark = m.name.substr(0, open);
      measure = m.name.substr(open + 2, m.name.size() - open - 3);
    }
    j[run.plan + ": " + benchmark][measure] = {{"value", value}};
  }
  out << j.dump(2) << "\n";
}

}  // namespace stampede::runs

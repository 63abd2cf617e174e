#include "report/compare.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

namespace stampede::report {
namespace {

std::string Num(double v) {
  char buf[32];
  if (v >= 1000 || (v == double(int64_t(v)) && v < 1e15))
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  else if (v >= 10)
    std::snprintf(buf, sizeof(buf), "%.1f", v);
  else
    std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

std::string Esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

// A network fault's numbers, " (5%)", so loss 5% and loss 20% are two rows.
std::string Detail(const Json& fault) {
  const std::string d =
      fault.contains("detail") && fault["detail"].is_string() ? fault["detail"].get<std::string>() : "";
  return d.empty() ? "" : " (" + d + ")";
}

// Repeated faults: each distribution's median, p90 and max.
void PutCycles(const Json& summary, const std::function<void(const std::string&, double, bool)>& put) {
  for (const Json& g : summary.value("fault_cycles", Json::array())) {
    const std::string name = g.value("action", "") + " " + g.value("node", "") + Detail(g) + " x" +
                             std::to_string(g.value("count", 0)) + " ";
    put(name + "not recovered", g.value("not_recovered", 0.0), false);
    for (const auto& [key, label] : {std::pair<const char*, const char*>{"unavailability_s", "unavailability"},
                                     {"time_to_recovered_s", "to recovered"},
                                     {"time_to_healthy_s", "to healthy"}}) {
      const Json st = g.value(key, Json::object());
      if (st.value("n", 0) == 0) continue;
      for (const char* q : {"median", "p90", "max"}) put(name + label + " " + q + " (s)", st.value(q, 0.0), false);
    }
  }
}

}  // namespace

Comparison Compare(const std::vector<Json>& summaries, const std::vector<std::string>& dirs) {
  Comparison c;
  const size_t n = summaries.size();
  std::vector<std::string> order;  // row labels in first-seen order
  std::map<std::string, CompareRow> rows;
  auto put = [&](size_t run, const std::string& label, double v, bool higher) {
    auto [it, added] = rows.try_emplace(label);
    if (added) {
      order.push_back(label);
      it->second.label = label;
      it->second.higher_is_better = higher;
      it->second.values.resize(n);
    }
    it->second.values[run] = v;
  };
  for (size_t i = 0; i < n; ++i) {
    const Json& s = summaries[i];
    c.runs.push_back(i < dirs.size() ? dirs[i] : "run " + std::to_string(i + 1));
    c.about.push_back(s.value("run_id", "?") + " (plan " + s.value("plan_name", "") + ", started " +
                      s.value("started_at", "?") + ")");
    const Json all_phases = s.value("phases", Json::array());  // a copy: phases points into it
    std::map<std::string, const Json*> phases;
    for (const Json& p : all_phases) phases[p.value("name", "")] = &p;
    // A step of one op is named by the step alone ("insert Count 2 ops/s").
    auto put_ops = [&](const std::string& label, const Json& phase, bool step) {
      const Json ops = phase.value("ops", Json::array());
      for (const Json& o : ops) {
        const std::string op = label + (step && ops.size() == 1 ? "" : " " + o.value("name", ""));
        put(i, op + " ops/s", o.value("ops_per_s", 0.0), true);
        put(i, op + " p99 (ms)", o["latency_us"].value("p99", 0.0) / 1000.0, false);
        put(i, op + " errors", double(o.value("count", uint64_t{0}) - o.value("ok", uint64_t{0})), false);
      }
      // What the client spent: the agents' own threads over the operations.
      if (phase.contains("cpu_us_per_op") && phase["cpu_us_per_op"].is_number()) {
        put(i, label + " client CPU (µs/op)", phase["cpu_us_per_op"].get<double>(), false);
      }
    };
    // Stepped phases in the original's shape: each step's seconds, then its
    // ops/s, p99 and errors; Total.
    for (const Json& g : s.value("groups", Json::array())) {
      const std::string name = g.value("name", "");
      std::map<std::string, int> seen;
      for (const Json& st : g.value("steps", Json::array())) {
        std::string step = st.value("step", "");
        if (++seen[step] > 1) step += " " + std::to_string(seen[step]);
        put(i, name + " " + step + " (s)", st.value("seconds", 0.0), false);
        if (auto p = phases.find(st.value("phase", "")); p != phases.end())
          put_ops(name + " " + step, *p->second, true);
      }
      put(i, name + " Total (s)", g.value("total_s", 0.0), false);
    }
    for (const Json& p : all_phases) {
      if (!p.contains("group")) put_ops(p.value("name", ""), p, false);  // steps: above
    }
    int k = 0;
    for (const Json& f : s.value("faults", Json::array())) {
      const std::string name =
          "fault " + std::to_string(k++) + " " + f.value("action", "") + " " + f.value("node", "") + Detail(f);
      auto num = [&](const char* key, const std::string& label, bool higher, double scale = 1) {
        if (f.contains(key) && f[key].is_number()) put(i, name + " " + label, f[key].get<double>() * scale, higher);
      };
      num("unavailability_s", "unavailability (s)", false);
      num("time_to_first_failure_s", "to first failure (s)", true);
      num("throughput_dip", "lowest throughput (% of baseline)", true, 100);
      num("client_gap_s", "clients behind the database (s)", false);
      num("time_to_recovered_s", "to recovered (s)", false);
      num("time_to_healthy_s", "to healthy (s)", false);
      uint64_t errors = 0;
      const Json errs = f.value("errors", Json::object());  // iterate a copy, not a temporary
      for (auto it = errs.begin(); it != errs.end(); ++it) errors += it.value().get<uint64_t>();
      put(i, name + " errors", double(errors), false);
    }
    PutCycles(s, [&](const std::string& label, double v, bool higher) { put(i, label, v, higher); });
  }
  for (const std::string& label : order) {
    CompareRow row = rows[label];
    int present = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!row.values[i]) continue;
      ++present;
      const double v = *row.values[i];
      auto better = [&](double a, double b) { return row.higher_is_better ? a > b : a < b; };
      if (row.best < 0 || better(v, *row.values[size_t(row.best)])) row.best = int(i);
      if (row.worst < 0 || better(*row.values[size_t(row.worst)], v)) row.worst = int(i);
    }
    // Nothing to mark with fewer than two values, or when they are all equal.
    if (present < 2 || *row.values[size_t(row.best)] == *row.values[size_t(row.worst)]) row.best = row.worst = -1;
    c.rows.push_back(std::move(row));
  }
  return c;
}

std::string RenderCompareMarkdown(const Comparison& c) {
  std::ostringstream md;
  for (size_t i = 0; i < c.runs.size(); ++i) md << "- " << c.runs[i] << ": " << c.about[i] << "\n";
  md << "\n| measure |";
  for (const std::string& r : c.runs) md << " " << r << " |";
  md << "\n|---|";
  for (size_t i = 0; i < c.runs.size(); ++i) md << "---:|";
  md << "\n";
  for (const CompareRow& row : c.rows) {
    md << "| " << row.label << " |";
    for (size_t i = 0; i < row.values.size(); ++i) {
      if (!row.values[i]) {
        md << " - |";
        continue;
      }
      const std::string v = Num(*row.values[i]);
      if (int(i) == row.best)
        md << " **" << v << "** best |";
      else if (int(i) == row.worst)
        md << " " << v << " worst |";
      else
        md << " " << v << " |";
    }
    md << "\n";
  }
  md << "\nBest and worst per row: higher is better for ops/s, time to first failure and the lowest throughput (the "
        "share of the baseline kept); lower for the rest.\n";
  return md.str();
}

std::string RenderCompareHtml(const Comparison& c) {
  std::ostringstream h;
  h << "<!doctype html><html><head><meta charset=\"utf-8\"><title>stampede compare</title><style>"
       "body{background:#0f1419;color:#e6edf3;font:14px system-ui,sans-serif;margin:24px}"
       "table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
       "th,td{padding:5px 12px;border-bottom:1px solid #263241;text-align:right}"
       "th:first-child,td:first-child{text-align:left}th{color:#8b98a5;font-weight:500}"
       ".best{color:#3fb950;font-weight:700}.worst{color:#f85149}</style></head><body>"
       "<h1>stampede compare</h1><ul>";
  for (size_t i = 0; i < c.runs.size(); ++i) h << "<li>" << Esc(c.runs[i]) << ": " << Esc(c.about[i]) << "</li>";
  h << "</ul><table><tr><th>measure</th>";
  for (const std::string& r : c.runs) h << "<th>" << Esc(r) << "</th>";
  h << "</tr>";
  for (const CompareRow& row : c.rows) {
    h << "<tr><td>" << Esc(row.label) << "</td>";
    for (size_t i = 0; i < row.values.size(); ++i) {
      const char* cls = int(i) == row.best ? " class=\"best\"" : int(i) == row.worst ? " class=\"worst\"" : "";
      h << "<td" << cls << ">" << (row.values[i] ? Num(*row.values[i]) : "-") << "</td>";
    }
    h << "</tr>";
  }
  h << "</table><p>Green: best of the row; red: worst. Higher is better for ops/s, time to first failure and "
       "the lowest throughput; lower for the rest.</p></body></html>\n";
  return h.str();
}

}  // namespace stampede::report

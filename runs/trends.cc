#include "runs/trends.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "runs/change_points.h"

namespace stampede::runs {
namespace {

constexpr size_t kLevelRuns = 3;

std::string Number(double v) {
  char b[32];
  std::snprintf(b, sizeof(b), std::fabs(v) >= 100 ? "%.0f" : std::fabs(v) >= 10 ? "%.1f" : "%.3g", v);
  return b;
}

// Metric names in the order the runs first name them.
std::vector<std::pair<std::string, bool>> MetricNames(const std::vector<RunRecord>& runs) {
  std::vector<std::pair<std::string, bool>> names;
  std::map<std::string, bool> seen;
  for (const RunRecord& r : runs) {
    for (const Metric& m : r.metrics) {
      if (seen.emplace(m.name, true).second) names.push_back({m.name, m.higher_is_better});
    }
  }
  return names;
}

}  // namespace

std::vector<double> Series(const std::vector<RunRecord>& runs, const std::string& metric, std::vector<size_t>* at) {
  std::vector<double> values;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (const Metric* m = runs[i].Find(metric)) {
      values.push_back(m->value);
      if (at) at->push_back(i);
    }
  }
  return values;
}

std::vector<LevelChange> FindLevelChanges(const std::vector<RunRecord>& all) {
  const size_t skip = all.size() > kChangeRuns ? all.size() - kChangeRuns : 0;
  const std::vector<RunRecord> runs(all.begin() + long(skip), all.end());
  std::vector<LevelChange> changes;
  for (const auto& [name, higher] : MetricNames(runs)) {
    std::vector<size_t> at;
    const std::vector<double> values = Series(runs, name, &at);
    for (const ChangePoint& c : FindChangePoints(values)) {
      LevelChange l{name, skip + at[c.index], c.mean_before, c.mean_after, 0, false, c.p};
      if (c.mean_before != 0) l.change = (c.mean_after - c.mean_before) / std::fabs(c.mean_before);
      l.worse = higher ? c.mean_after < c.mean_before : c.mean_after > c.mean_before;
      changes.push_back(l);
    }
  }
  return changes;
}

std::string LatestInWords(const std::vector<RunRecord>& runs, uint64_t earlier_runs) {
  if (runs.empty()) return "";
  const RunRecord& latest = runs.back();
  const std::vector<RunRecord> earlier(runs.end() - 1 - long(std::min(runs.size() - 1, kLevelWindow)), runs.end() - 1);
  const uint64_t all_earlier = earlier_runs == UINT64_MAX ? runs.size() - 1 : earlier_runs;
  const std::string of = " of plan " + latest.plan;
  if (earlier.empty()) return "the first run" + of + " recorded";
  struct Off {
    std::string text;
    double by;
  };
  std::vector<Off> past;
  size_t judged = 0;
  for (const Metric& m : latest.metrics) {
    std::vector<double> level = Series(earlier, m.name, nullptr);
    const std::vector<ChangePoint> cps = FindChangePoints(level);
    if (!cps.empty()) level.erase(level.begin(), level.begin() + long(cps.back().index));
    if (level.size() < kLevelRuns) continue;
    ++judged;
    const double mean = std::accumulate(level.begin(), level.end(), 0.0) / double(level.size());
    double var = 0;
    for (double v : level) var += (v - mean) * (v - mean);
    const double sd = std::sqrt(var / double(level.size() - 1));
    const double delta = m.value - mean;
    const bool worse = m.higher_is_better ? delta < 0 : delta > 0;
    if (!worse || std::fabs(delta) <= 3 * sd || std::fabs(delta) <= 0.05 * std::fabs(mean)) continue;
    const double by = mean != 0 ? std::fabs(delta) / std::fabs(mean) : 1;
    past.push_back({m.name + " " + Number(m.value) + ", " + Number(100 * by) + "% worse than " + Number(mean) + " ± " +
                        Number(sd) + " (" + std::to_string(level.size()) + " runs)",
                    by});
  }
  const std::string runs_before = std::to_string(all_earlier) + " earlier run" + (all_earlier == 1 ? "" : "s");
  if (judged == 0) {
    return runs_before + of + ": not enough history to judge yet (" + std::to_string(kLevelRuns) +
           " runs at one level needed)";
  }
  if (past.empty()) return runs_before + of + ": every tracked number within the noise of the runs before";
  std::sort(past.begin(), past.end(), [](const Off& a, const Off& b) { return a.by > b.by; });
  std::string text = runs_before + of + ": " + std::to_string(past.size()) + " of " + std::to_string(judged) +
                     " tracked numbers worse than the noise of the runs before: ";
  for (size_t i = 0; i < past.size() && i < 3; ++i) text += (i ? "; " : "") + past[i].text;
  if (past.size() > 3) text += "; and " + std::to_string(past.size() - 3) + " more (stampede history)";
  return text;
}

}  // namespace stampede::runs

#include "report/fault_cycles.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "report/text_format.h"

namespace stampede::report {
namespace {

// Nearest rank: the smallest value with at least q of the values at or
// below it.
double Rank(const std::vector<double>& sorted, double q) {
  const size_t k = size_t(std::ceil(q * double(sorted.size())));
  return sorted[std::clamp<size_t>(k, 1, sorted.size()) - 1];
}

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f%%", v * 100);
  return buf;
}

std::string StatCells(const CycleStat& s, std::string (*fmt)(double)) {
  if (s.n == 0) return "n/a | n/a | n/a | n/a | 0";
  return fmt(s.min) + " | " + fmt(s.median) + " | " + fmt(s.p90) + " | " + fmt(s.max) + " | " + std::to_string(s.n);
}

Json StatJson(const CycleStat& s) {
  if (s.n == 0) return {{"n", 0}};
  return {{"n", s.n}, {"min", s.min}, {"median", s.median}, {"p90", s.p90}, {"max", s.max}};
}

std::string Time(double v, bool observed, bool next_fault) {
  if (v >= 0) return Secs(v);
  if (!observed) return "n/a";
  return NotRecovered(next_fault);
}

}  // namespace

CycleStat CycleStat::Of(std::vector<double> values) {
  CycleStat s;
  s.n = int(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.max = values.back();
  s.median = Rank(values, 0.5);
  s.p90 = Rank(values, 0.9);
  return s;
}

std::vector<FaultCycles> GroupFaultCycles(const std::vector<FaultRecovery>& faults) {
  std::vector<FaultCycles> groups;
  // The same action with other numbers (loss 5% and loss 20%) is another kind.
  std::map<std::tuple<std::string, std::string, std::string>, size_t> by_kind;
  for (size_t i = 0; i < faults.size(); ++i) {
    const FaultRecovery& f = faults[i];
    auto [it, added] = by_kind.try_emplace({f.action, f.detail, f.node}, groups.size());
    if (added) {
      FaultCycles c;
      c.action = f.action;
      c.detail = f.detail;
      c.node = f.node;
      groups.push_back(std::move(c));
    }
    groups[it->second].faults.push_back(int(i));
  }
  std::vector<FaultCycles> out;
  for (FaultCycles& c : groups) {
    if (c.faults.size() < 2) continue;
    std::vector<double> unavailable, recovered, healthy, gap, lowest, balanced;
    for (int i : c.faults) {
      const FaultRecovery& f = faults[size_t(i)];
      if (!f.ok) continue;
      c.took_effect++;
      if (f.recovered_s < 0 && f.observed) c.not_recovered++;
      if (f.healthy_s < 0 && f.probed) c.not_healthy++;
      if (f.observed) unavailable.push_back(f.unavailable_s);
      if (f.recovered_s >= 0) recovered.push_back(f.recovered_s);
      if (f.healthy_s >= 0) healthy.push_back(f.healthy_s);
      if (f.HasGap()) gap.push_back(f.Gap());
      if (f.dip >= 0) lowest.push_back(f.dip);
      if (f.rebalance && f.rebalance->time_to_balanced_s >= 0) balanced.push_back(f.rebalance->time_to_balanced_s);
    }
    c.balanced = CycleStat::Of(std::move(balanced));
    c.unavailable = CycleStat::Of(std::move(unavailable));
    c.recovered = CycleStat::Of(std::move(recovered));
    c.healthy = CycleStat::Of(std::move(healthy));
    c.gap = CycleStat::Of(std::move(gap));
    c.lowest = CycleStat::Of(std::move(lowest));
    out.push_back(std::move(c));
  }
  return out;
}

Json FaultCyclesToJson(const FaultCycles& c) {
  return {{"action", c.action},
          {"detail", c.detail},
          {"node", c.node},
          {"count", c.faults.size()},
          {"faults", c.faults},
          {"took_effect", c.took_effect},
          {"not_recovered", c.not_recovered},
          {"not_healthy", c.not_healthy},
          {"unavailability_s", StatJson(c.unavailable)},
          {"time_to_recovered_s", StatJson(c.recovered)},
          {"time_to_healthy_s", StatJson(c.healthy)},
          {"client_gap_s", StatJson(c.gap)},
          {"lowest_throughput", StatJson(c.lowest)},
          {"time_to_balanced_s", StatJson(c.balanced)}};
}

std::string RenderFaultCyclesMarkdown(const std::vector<FaultCycles>& cycles,
                                      const std::vector<FaultRecovery>& faults) {
  if (cycles.empty()) return "";
  std::ostringstream md;
  md << "\n## Repeated faults\n";
  for (const FaultCycles& c : cycles) {
    md << "\n### " << c.action << " " << c.node << (c.detail.empty() ? "" : " (" + c.detail + ")") << " x"
       << c.faults.size() << " (" << c.took_effect << " took effect; not recovered: " << c.not_recovered
       << ", never healthy: " << c.not_healthy << ")\n\n"
       << "| measure | min | median | p90 | max | cycles |\n|---|---:|---:|---:|---:|---:|\n"
       << "| unavailability | " << StatCells(c.unavailable, Secs) << " |\n"
       << "| time to recovered throughput | " << StatCells(c.recovered, Secs) << " |\n"
       << "| time to healthy (health probe) | " << StatCells(c.healthy, Secs) << " |\n"
       << "| clients behind the database (recovered - healthy) | " << StatCells(c.gap, SignedSeconds) << " |\n"
       << "| lowest throughput, % of baseline | " << StatCells(c.lowest, Pct) << " |\n"
       << (c.balanced.n ? "| time to balanced | " + StatCells(c.balanced, Secs) + " |\n" : std::string())
       << "\n| cycle | at | unavailability | recovered | healthy | clients behind | lowest throughput |\n"
       << "|---:|---:|---:|---:|---:|---:|---:|\n";
    int k = 0;
    for (int i : c.faults) {
      const FaultRecovery& f = faults[size_t(i)];
      md << "| " << ++k << " | " << Secs(f.t) << " | ";
      if (!f.ok) {
        md << "did not take effect: " << f.message << " | | | | |\n";
        continue;
      }
      md << (f.observed ? Secs(f.unavailable_s) : "n/a") << " | " << Time(f.recovered_s, f.observed, f.next_fault)
         << " | " << (f.probed ? Time(f.healthy_s, true, false) : "n/a (no probe)") << " | "
         << (f.HasGap() ? SignedSeconds(f.Gap()) : "n/a") << " | " << (f.dip >= 0 ? Pct(f.dip) : "n/a") << " |\n";
    }
  }
  return md.str();
}

}  // namespace stampede::report

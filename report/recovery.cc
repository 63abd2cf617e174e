#include "report/recovery.h"

#include <cstdio>
#include <sstream>

#include "common/histogram.h"

namespace stampede::report {
namespace {

struct Second {
  double start = 0, end = 0;
  uint64_t ok = 0, errors = 0;
  std::array<uint64_t, kNumOutcomes> outcomes{};
  Histogram latency;
  double rate() const { return end > start ? double(ok) / (end - start) : 0; }
};

LatencyWindow Window(const std::vector<Second>& s, double from, double to) {
  Histogram h;
  for (const Second& x : s) {
    if (x.end > from && x.start < to) h.Merge(x.latency);
  }
  return {double(h.ValueAtQuantile(0.99)) / 1000.0, double(h.max_ns()) / 1000.0, h.count()};
}

std::string Fmt(double v, const char* unit) {
  if (v < 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%s", v, unit);
  return buf;
}

// A recovery time: n/a when nothing was observed after the fault, "not
// recovered" when the run went on without it happening (until its end or
// the next fault).
std::string Recovered(double v, bool observed, bool next_fault) {
  if (v >= 0) return Fmt(v, " s");
  if (!observed) return "n/a";
  return next_fault ? "not recovered before the next fault" : "not recovered within the run";
}

std::string Lat(const LatencyWindow& w) {
  if (w.count == 0) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2f ms / %.2f ms", w.p99_us / 1000, w.max_us / 1000);
  return buf;
}

}  // namespace

std::vector<FaultRecovery> ComputeRecovery(const std::vector<Json>& journal) {
  RecoveryOptions opt;
  int healthy_polls = 3;
  std::vector<std::pair<double, bool>> health;  // (t, healthy)
  std::vector<Second> seconds;
  std::vector<FaultRecovery> faults;
  std::vector<const Json*> results;
  for (const Json& line : journal) {
    const std::string type = line.value("type", "");
    if (type == "run") {
      const Json r = line.value("recovery", Json::object());
      opt.baseline_s = r.value("baseline_s", opt.baseline_s);
      opt.recovered_fraction = r.value("recovered_fraction", opt.recovered_fraction);
      opt.hold_s = r.value("hold_s", opt.hold_s);
      healthy_polls = std::max(1, r.value("healthy_polls", healthy_polls));
    } else if (type == "health") {
      health.emplace_back(line.value("t", 0.0), line.value("healthy", false));
    } else if (type == "second" && !line.value("late", false)) {
      Second s;
      s.end = line.value("t", 0.0);
      s.start = s.end - line.value("interval_s", 1.0);
      const Json ops = line.value("ops", Json::object());
      for (const auto& [name, op] : ops.items()) {
        const Json outcomes = op.value("outcomes", Json::array());
        for (size_t i = 0; i < outcomes.size() && i < size_t(kNumOutcomes); ++i) {
          s.outcomes[i] += outcomes[i].get<uint64_t>();
        }
        MergeHistogramJson(op.value("latency", Json::object()), &s.latency);
      }
      s.ok = s.outcomes[0];
      for (int i = 1; i < kNumOutcomes; ++i) s.errors += s.outcomes[i];
      seconds.push_back(std::move(s));
    } else if (type == "fault" && !line.value("undo", false)) {
      FaultRecovery f;
      f.index = line.value("index", 0);
      f.phase = line.value("phase", "");
      f.action = line.value("action", "");
      f.node = line.value("node", "");
      f.agent = line.value("agent", "");
      f.t = line.value("requested_t", -1.0);
      faults.push_back(f);
    } else if (type == "fault_result") {
      results.push_back(&line);
    }
  }
  // Results after their faults (a journal written before the request line
  // was journalled first may have them the other way round).
  for (const Json* r : results) {
    const Json& line = *r;
    {
      for (FaultRecovery& f : faults) {
        if (f.index != line.value("index", -1)) continue;
        f.ok = line.value("ok", false);
        f.message = line.value("message", "");
        if (f.ok) f.t = line.value("t", f.t);
      }
    }
  }
  for (size_t k = 0; k < faults.size(); ++k) {
    FaultRecovery& f = faults[k];
    const double next = k + 1 < faults.size() ? faults[k + 1].t : 1e18;
    f.next_fault = k + 1 < faults.size();
    double base_ok = 0, base_time = 0;
    for (const Second& s : seconds) {
      if (s.end <= f.t && s.start >= f.t - opt.baseline_s - 0.5) {
        base_ok += double(s.ok);
        base_time += s.end - s.start;
      }
    }
    f.baseline_ops_per_s = base_time > 0 ? base_ok / base_time : 0;
    f.before = Window(seconds, f.t - opt.baseline_s, f.t);
    double run_zero = 0, first_err = -1, last_err = -1, min_rate = -1, held_from = -1;
    const double target = opt.recovered_fraction * f.baseline_ops_per_s;
    bool dipped = false;
    for (const Second& s : seconds) {
      if (s.end <= f.t || s.start >= next) continue;
      f.observed = true;
      for (int i = 0; i < kNumOutcomes; ++i) f.outcomes[i] += s.outcomes[i];
      if (s.errors > 0) {
        if (first_err < 0) first_err = s.start;
        last_err = s.end;
      }
      run_zero = s.ok == 0 ? run_zero + (s.end - s.start) : 0;
      f.unavailable_s = std::max(f.unavailable_s, run_zero);
      if (s.end - s.start >= 0.5) {
        double rate = s.rate();
        if (min_rate < 0 || rate < min_rate) min_rate = rate;
        if (rate < target) {
          dipped = true;
          held_from = -1;
        } else if (f.recovered_s < 0) {
          if (held_from < 0) held_from = s.start;
          if (s.end - held_from >= opt.hold_s - 1e-6) {
            f.recovered_s = dipped ? std::max(0.0, held_from - f.t) : 0;
          }
        }
      }
    }
    f.first_failure_s = first_err < 0 ? -1 : std::max(0.0, first_err - f.t);
    f.error_window_s = first_err < 0 ? 0 : last_err - first_err;
    f.dip = f.baseline_ops_per_s > 0 && min_rate >= 0 ? min_rate / f.baseline_ops_per_s : -1;
    // A start or resume follows an outage: its "baseline" is the outage, and
    // a dip against it says nothing.
    if (f.action == "start" || f.action == "resume") f.dip = -1;
    // Healthy again: the first run of K healthy polls after the fault that
    // follows an unhealthy poll (or, if the probe never saw ill health, the
    // first such run after the fault).
    bool saw_unhealthy = false;
    for (const auto& [t, ok] : health) {
      saw_unhealthy |= t > f.t && t < next && !ok;
      f.probed |= t > f.t;
    }
    int streak = 0;
    double streak_start = -1;
    bool after_unhealthy = !saw_unhealthy;
    for (const auto& [t, ok] : health) {
      if (t <= f.t) continue;
      if (!ok) {
        after_unhealthy = true;
        streak = 0;
        continue;
      }
      if (!after_unhealthy) continue;
      if (streak++ == 0) streak_start = t;
      if (streak >= healthy_polls) {
        f.healthy_s = std::max(0.0, streak_start - f.t);
        break;
      }
    }
    const double recovered_at = f.recovered_s >= 0 ? f.t + f.recovered_s : next;
    f.during = Window(seconds, f.t, recovered_at);
    f.after = Window(seconds, recovered_at, next);
  }
  return faults;
}

Json RecoveryToJson(const FaultRecovery& f) {
  Json errors = Json::object();
  for (int i = 1; i < kNumOutcomes; ++i) errors[std::string(kOutcomeNames[i])] = f.outcomes[i];
  auto lat = [](const LatencyWindow& w) {
    return Json{{"p99_us", w.p99_us}, {"max_us", w.max_us}, {"count", w.count}};
  };
  auto num = [](double v) { return v < 0 ? Json(nullptr) : Json(v); };
  return {{"index", f.index},
          {"phase", f.phase},
          {"action", f.action},
          {"node", f.node},
          {"agent", f.agent},
          {"ok", f.ok},
          {"message", f.message},
          {"t_s", f.t},
          {"baseline_ops_per_s", f.baseline_ops_per_s},
          {"time_to_first_failure_s", num(f.first_failure_s)},
          {"unavailability_s", f.unavailable_s},
          {"error_window_s", f.error_window_s},
          {"ok_after", f.outcomes[0]},
          {"errors", errors},
          {"throughput_dip", num(f.dip)},
          {"time_to_recovered_s", num(f.recovered_s)},
          {"time_to_healthy_s", num(f.healthy_s)},
          {"recovered", f.recovered_s >= 0 ? Json(true)
                        : f.observed       ? Json(false)
                                           : Json(nullptr)},
          {"recovery_window_ends", f.next_fault ? "next fault" : "end of run"},
          {"healthy", f.healthy_s >= 0 ? Json(true)
                      : f.probed       ? Json(false)
                                       : Json(nullptr)},
          {"latency_before", lat(f.before)},
          {"latency_during", lat(f.during)},
          {"latency_after", lat(f.after)}};
}

std::string RenderRecoveryMarkdown(const std::vector<FaultRecovery>& faults) {
  if (faults.empty()) return "";
  std::ostringstream md;
  md << "\n## Faults and recovery\n";
  for (const FaultRecovery& f : faults) {
    md << "\n### " << f.action << " " << f.node << " at " << Fmt(f.t, " s") << " (phase " << f.phase << ", agent "
       << f.agent << "): " << (f.ok ? "done" : "FAILED: " + f.message) << "\n\n";
    std::string errors;
    for (int i = 1; i < kNumOutcomes; ++i) {
      if (!f.outcomes[i]) continue;
      errors += (errors.empty() ? "" : ", ") + std::string(kOutcomeNames[i]) + " " + std::to_string(f.outcomes[i]);
    }
    char dip[32] = "n/a";
    if (f.dip >= 0) std::snprintf(dip, sizeof(dip), "%.0f%%", f.dip * 100);
    md << "| measure | value |\n|---|---:|\n"
       << "| baseline (ok ops/s before) | " << Fmt(f.baseline_ops_per_s, "") << " |\n"
       << "| time to first failed op | " << Fmt(f.first_failure_s, " s") << " |\n"
       << "| unavailability (longest zero-success window) | " << Fmt(f.unavailable_s, " s") << " |\n"
       << "| first-to-last error window | " << Fmt(f.error_window_s, " s") << " |\n"
       << "| errors after the fault | " << (errors.empty() ? "0" : errors) << " |\n"
       << "| throughput dip (lowest 1 s / baseline) | " << dip << " |\n"
       << "| time to recovered throughput | " << Recovered(f.recovered_s, f.observed, f.next_fault) << " |\n"
       << "| time to healthy (health probe) | "
       << (f.probed ? Recovered(f.healthy_s, true, false) : std::string("n/a (no probe)")) << " |\n"
       << "| p99 / max before | " << Lat(f.before) << " |\n"
       << "| p99 / max during | " << Lat(f.during) << " |\n"
       << "| p99 / max after | " << Lat(f.after) << " |\n";
  }
  return md.str();
}

}  // namespace stampede::report

#include "report/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>

#include "proto/fault_action.h"
#include "record/expectation.h"
#include "report/tpmc.h"

namespace stampede::report {
namespace {

using record::Expectation;
using record::MetricUnit;

constexpr double kNever = std::numeric_limits<double>::infinity();

// A measured value, or why there is none (the check then fails).
struct Measure {
  std::optional<double> value;
  std::string why;  // when there is no value, or to say what a value means
};

double OpLatency(const OpSummary& o, const std::string& metric) {
  const Histogram& h = o.latency;
  if (metric == "max") return double(h.max_ns()) / 1e9;
  if (metric == "mean") return h.MeanNs() / 1e9;
  const double q = metric == "p50" ? 0.5 : metric == "p90" ? 0.9 : metric == "p99" ? 0.99 : 0.999;
  return double(h.ValueAtQuantile(q)) / 1e9;
}

double OpCount(const OpSummary& o, const std::string& metric, double duration_s) {
  if (metric == "ops_per_s") return duration_s > 0 ? double(o.count()) / duration_s : 0;
  if (metric == "count") return double(o.count());
  if (metric == "ok") return double(o.outcomes[0]);
  if (metric == "errors") return double(o.errors());
  if (metric == "retries") return double(o.retries);
  if (metric == "rollbacks") return double(o.rollbacks);
  if (metric == "disk_full") return double(o.disk_full);
  if (metric == "missed") return double(o.missed);
  for (int i = 1; i < kNumOutcomes; ++i) {
    if (metric == "errors." + std::string(kOutcomeNames[i])) return double(o.outcomes[i]);
  }
  return 0;
}

// The read-back's numbers (check_writes). Lost and unexpected writes are
// not known while some inserts went unread: the check fails, saying so.
Measure MeasureWrites(const PhaseSummary& p, const std::string& metric) {
  if (!p.writes) {
    return {std::nullopt,
            "not checked (no read-back: the phase needs check_writes: true, and the run must get that far)"};
  }
  const record::WritesChecked& w = *p.writes;
  if (!w.supported) return {std::nullopt, "not checked: " + w.note};
  if (metric == "acked_writes") return {double(w.acked), ""};
  if (metric == "unchecked_writes") return {double(w.unchecked), ""};
  const bool unexpected = metric == "unexpected_writes";
  const uint64_t n = unexpected ? w.failed_found : w.lost;
  if (w.unchecked > 0 || !w.agents_missing.empty()) {
    return {std::nullopt, std::to_string(n) + (unexpected ? " unexpected" : " lost") + ", but " +
                              std::to_string(w.unchecked) + " not checked" +
                              (w.agents_missing.empty() ? "" : " and agents without an answer")};
  }
  return {double(n), ""};
}

// The phase's number: one op's, or the worst op's latency and the sum of
// the counts and rates.
Measure MeasurePhase(const PhaseSummary& p, const Expectation& e) {
  if (e.metric.size() > 7 && e.metric.compare(e.metric.size() - 7, 7, "_writes") == 0) {
    return MeasureWrites(p, e.metric);
  }
  if (e.metric.rfind("anomalies", 0) == 0) {
    // Per phase, whatever op the condition names.
    if (!ChecksConsistency(p.workload)) {
      return {std::nullopt, "not checked: workload " + p.workload + " has no consistency check (bank and register do)"};
    }
    if (const std::string why = p.anomalies.HistoryUnknown(); !why.empty()) return {std::nullopt, "unknown: " + why};
    if (e.metric == "anomalies") return {double(p.anomalies.total()), ""};
    auto it = p.anomalies.counts.find(e.metric.substr(10));
    return {it == p.anomalies.counts.end() ? 0.0 : double(it->second), ""};
  }
  if (e.metric == "tpmc") {
    const std::optional<double> t = Tpmc(p);
    return t ? Measure{*t, ""} : Measure{std::nullopt, "not measured: only a tpcc phase's run step has a tpmC"};
  }
  if (e.metric == "tpmc_efficiency") {
    const std::optional<double> t = TpmcEfficiency(p);
    return t ? Measure{*t, ""} : Measure{std::nullopt, "not measured: only a tpcc run step with wait has one"};
  }
  if (e.metric == "client_saturated_s") {
    // Seconds in which any agent was saturated (record::AgentLoad).
    if (p.load_measured_s <= 0) return {std::nullopt, "not measured (no agent reported its load)"};
    return {p.saturated_s, ""};
  }
  std::vector<const OpSummary*> ops;
  for (const OpSummary& o : p.ops) {
    if (e.op.empty() || o.name == e.op) ops.push_back(&o);
  }
  if (ops.empty()) return {std::nullopt, e.op.empty() ? "no operations" : "no op named " + e.op};
  const bool latency = record::FindMetric("phase", e.metric)->unit == MetricUnit::kSeconds;
  double v = 0;
  for (const OpSummary* o : ops) {
    if (latency) {
      if (o->count() > 0) v = std::max(v, OpLatency(*o, e.metric));
    } else {
      v += OpCount(*o, e.metric, p.duration_s);
    }
  }
  return {v, ""};
}

// A time after the fault: the value; never (it did not happen while the
// run watched); or not measured.
Measure Time(double v, bool watched, const std::string& never, const std::string& unmeasured) {
  if (v >= 0) return {v, ""};
  if (watched) return {kNever, never};
  return {std::nullopt, unmeasured};
}

std::optional<Measure> MeasureFault(const FaultRecovery& f, const std::string& metric) {
  if (!f.ok) return Measure{std::nullopt, "the fault did not take effect: " + f.message};
  const std::string not_recovered = NotRecovered(f.next_fault);
  if (metric == "unavailability")
    return Time(f.observed ? f.unavailable_s : -1, false, "", "nothing observed after it");
  if (metric == "time_to_first_failure") return Time(f.first_failure_s, f.observed, "no failed op", "nothing observed");
  if (metric == "error_window") {
    if (f.observed && f.error_window_s < 0) return Measure{0.0, ""};  // no error: no window
    return Time(f.observed ? f.error_window_s : -1, false, "", "nothing observed after it");
  }
  if (metric == "time_to_recovered") return Time(f.recovered_s, f.observed, not_recovered, "nothing observed after it");
  if (metric == "time_to_healthy") return Time(f.healthy_s, f.probed, "not healthy within the run", "no health probe");
  if (metric == "time_to_balanced") {
    if (!f.rebalance) return Measure{std::nullopt, "not measured (the health probe does not say where the data is)"};
    return Time(f.rebalance->time_to_balanced_s, true, "not balanced before the fault's window ended", "");
  }
  if (metric == "first_op" || metric == "last_op") {
    // The new node's first operation after a join; the leaving one's last.
    if (!f.rebalance) return Measure{std::nullopt, "not measured (no health probe that says where the data is)"};
    const bool first = metric == "first_op";
    return Time(first ? f.rebalance->first_op_s : f.rebalance->last_op_s, true,
                first ? "no endpoint idle before the fault served an operation in its window"
                      : "no endpoint serving before the fault stopped in its window",
                "");
  }
  if (metric == "client_gap") {
    if (f.HasGap()) return Measure{f.Gap(), ""};
    return Measure{std::nullopt, "not measured (needs both recovered throughput and a healthy probe)"};
  }
  if (metric == "lowest_throughput") {
    if (IsRestoringAction(f.action)) return std::nullopt;  // its baseline is the outage: no check
    if (f.dip >= 0) return Measure{f.dip, ""};
    return Measure{std::nullopt, "no baseline"};
  }
  uint64_t errors = 0;  // "errors"
  for (int i = 1; i < kNumOutcomes; ++i) errors += f.outcomes[i];
  return Measure{double(errors), ""};
}

// A relative expectation ("p99 < 1.2x history"): against the median of
// the plan's earlier runs; with fewer than 3 of them it passes, saying so.
void JudgeRelative(const RunSummary& s, const Expectation& e, MetricUnit unit, Check* c) {
  const std::string value = c->measured;
  const auto b = s.baseline.find(c->key);
  const uint32_t runs = b == s.baseline.end() ? 0 : b->second.runs;
  if (s.history.empty() || runs < record::kMinHistoryRuns) {
    c->pass = true;
    c->measured = value + " (not enough history: " +
                  (s.history.empty() ? std::string("no run history read") : std::to_string(runs) + " earlier runs") +
                  ")";
    return;
  }
  const double limit = e.value * b->second.median;
  c->pass = record::Holds(*c->value, e.cmp, limit);
  c->measured = value + " (history " + record::FormatMetricValue(unit, b->second.median) + ", median of " +
                std::to_string(runs) + " runs; limit " + record::FormatMetricValue(unit, limit) + ")";
}

Check Judge(const RunSummary& s, const Expectation& e, const std::string& where, const std::string& key,
            const Measure& m) {
  const MetricUnit unit = record::FindMetric(e.scope, e.metric)->unit;
  Check c{e.text, where, "", false, key, std::nullopt};
  if (!m.value) {
    c.measured = m.why;
    return c;
  }
  c.value = m.value;
  c.measured = *m.value == kNever ? m.why : record::FormatMetricValue(unit, *m.value);
  if (e.relative) {
    JudgeRelative(s, e, unit, &c);
  } else {
    c.pass = record::Holds(*m.value, e.cmp, e.value);
  }
  return c;
}

void CheckPhases(const RunSummary& s, const Expectation& e, Verdict* v) {
  bool any = false;
  for (const PhaseSummary& p : s.phases) {
    if (e.subject != "*" && p.name != e.subject && p.group != e.subject) continue;
    any = true;
    const std::string where = "phase " + p.name + (e.op.empty() ? "" : ", op " + e.op);
    v->checks.push_back(Judge(s, e, where, where + ": " + e.metric, MeasurePhase(p, e)));
  }
  if (!any)
    v->checks.push_back(
        {e.text, "phase " + e.subject, "no phase named " + e.subject + " ran", false, "", std::nullopt});
}

// faults: {rolling-restart: ["lowest_throughput >= 50%"]}: each roll as a
// whole (its steps are restarts).
void CheckRolls(const RunSummary& s, const Expectation& e, Verdict* v) {
  for (const RollNumbers& r : s.rolls) {
    Measure m{std::nullopt, e.metric + " is measured per step for a rolling restart: name restart"};
    if (e.metric == "lowest_throughput") {
      m = r.lowest >= 0 ? Measure{r.lowest, ""} : Measure{std::nullopt, "no throughput measured during the roll"};
    }
    const std::string where = "rolling restart " + std::to_string(r.id);
    v->checks.push_back(Judge(s, e, where, where + ": " + e.metric, m));
  }
  if (s.rolls.empty())
    v->checks.push_back({e.text, "faults: rolling-restart", "no rolling restart ran", false, "", std::nullopt});
}

void CheckFaults(const RunSummary& s, const Expectation& e, Verdict* v) {
  if (e.subject == "rolling-restart") return CheckRolls(s, e, v);
  bool any = false;
  for (size_t i = 0; i < s.faults.size(); ++i) {
    const FaultRecovery& f = s.faults[i];
    if (e.subject != "*" && f.action != e.subject) continue;
    std::optional<Measure> m = MeasureFault(f, e.metric);
    if (!m) continue;
    any = true;
    const std::string fault = "fault " + std::to_string(i) + ": " + f.action + " " + f.node;
    v->checks.push_back(Judge(s, e, fault + " at " + f.When(), fault + ": " + e.metric, *m));
  }
  if (!any) {
    const std::string what = e.subject == "*" ? "no fault" : "no " + e.subject + " fault";
    v->checks.push_back({e.text, "faults: " + e.subject, what + " ran", false, "", std::nullopt});
  }
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

size_t Verdict::failed() const {
  return size_t(std::count_if(checks.begin(), checks.end(), [](const Check& c) { return !c.pass; }));
}

Verdict Evaluate(const RunSummary& s) {
  Verdict v;
  for (const Expectation& e : s.expect) {
    if (!record::FindMetric(e.scope, e.metric)) continue;
    if (e.scope == "phase") {
      CheckPhases(s, e, &v);
    } else {
      CheckFaults(s, e, &v);
    }
  }
  return v;
}

Json VerdictToJson(const Verdict& v) {
  Json checks = Json::array();
  for (const Check& c : v.checks) {
    Json j = {{"expect", c.text}, {"where", c.where}, {"measured", c.measured}, {"pass", c.pass}, {"key", c.key}};
    if (c.value && std::isfinite(*c.value)) j["value"] = *c.value;
    checks.push_back(std::move(j));
  }
  return {{"passed", v.passed()}, {"failed", v.failed()}, {"checks", checks}};
}

std::string RenderVerdictMarkdown(const Verdict& v) {
  if (v.checks.empty()) return "";
  std::ostringstream md;
  md << "\n## Verdict: " << (v.passed() ? "PASSED" : "FAILED") << " (" << v.checks.size() - v.failed() << " of "
     << v.checks.size() << " checks met)\n\n| expectation | where | measured | |\n|---|---|---:|---|\n";
  for (const Check& c : v.checks) {
    md << "| " << Escape(c.text) << " | " << Escape(c.where) << " | " << Escape(c.measured) << " | "
       << (c.pass ? "pass" : "**FAIL**") << " |\n";
  }
  return md.str();
}

std::string FailedChecksLine(const Verdict& v) {
  std::string line;
  for (const Check& c : v.checks) {
    if (c.pass) continue;
    line += (line.empty() ? "" : "; ") + c.text + " (" + c.where + ": " + c.measured + ")";
  }
  return std::to_string(v.failed()) + " of " + std::to_string(v.checks.size()) + " checks failed: " + line;
}

}  // namespace stampede::report

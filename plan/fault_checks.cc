// The validator's rules for what the plan does to the cluster and how it
// judges the run: faults (when, which action, the bounded numbers of a
// network fault), the cluster's health source, and the expect: conditions.
#include <algorithm>
#include <map>

#include "common/duration.h"
#include "common/strings.h"
#include "health/health_probe.h"
#include "plan/plan_checks.h"
#include "plan/plan_expander.h"
#include "plan/plan_limits.h"
#include "proto/fault_action.h"
#include "record/expectation.h"
#include "workloads/workload_registry.h"

namespace stampede::plan {
namespace {

// A phase's operations: its ops, or the sum of a stepped workload's steps
// (0 if some step runs for the phase's duration instead).
uint64_t TotalOps(const v1::Phase& phase) {
  const workloads::WorkloadInfo* info = workloads::FindWorkload(phase.workload());
  if (!info || !info->steps || !ParamsUsable(*info, phase) || phase.workers() == 0) return phase.ops();
  const std::map<std::string, std::string> values(phase.params().begin(), phase.params().end());
  uint64_t total = 0;
  for (const auto& st : info->steps(workloads::Params(info->param_specs(), values), phase.workers())) {
    if (st.ops == 0) return phase.ops();
    total += st.ops;
  }
  return total ? total : phase.ops();
}

// A stepped workload's steps (1 for any other phase).
uint64_t StepCount(const v1::Phase& phase) {
  const workloads::WorkloadInfo* info = workloads::FindWorkload(phase.workload());
  if (!info || !info->steps || !ParamsUsable(*info, phase) || phase.workers() == 0) return 1;
  const std::map<std::string, std::string> values(phase.params().begin(), phase.params().end());
  return std::max<size_t>(1, info->steps(workloads::Params(info->param_specs(), values), phase.workers()).size());
}

// A phase bounded by its operations has no duration, but it ends at its
// timeout (each step's, for a stepped workload) and the run at the run's:
// a fault later than that would never happen.
void CheckWhenOpsBounded(PlanChecks& c, const v1::Fault& f, const std::string& at, const v1::Phase& phase) {
  uint64_t bound = c.plan().timeout_ms();
  std::string why = "the run's timeout is " + FormatDurationMs(bound);
  if (phase.timeout_ms() > 0) {
    const uint64_t steps = StepCount(phase);
    if (bound == 0 || phase.timeout_ms() * steps < bound) {
      bound = phase.timeout_ms() * steps;
      why = "phase " + f.phase() + " ends within " + FormatDurationMs(bound) + " (its timeout" +
            (steps > 1 ? " for each of its " + std::to_string(steps) + " steps" : std::string()) + ")";
    }
  }
  if (bound > 0 && f.at_ms() >= bound) {
    c.Add(at + ".at", why + ": a fault at " + f.phase() + "+" + FormatDurationMs(f.at_ms()) + " would never happen");
  }
}

// at: PHASE+DURATION within the phase, or PHASE@PERCENT of its operations.
void CheckWhen(PlanChecks& c, const v1::Fault& f, const std::string& at) {
  const v1::Phase* target = nullptr;
  std::vector<std::string> names;
  for (const auto& p : c.plan().phases()) {
    names.push_back(p.name());
    if (p.name() == f.phase()) target = &p;
  }
  if (!target) {
    return c.Add(at + ".at", "expected a phase of this plan (" + Join(names, ", ") + "), found " + Quoted(f.phase()));
  }
  if (f.at_percent() != 0) {
    if (!(f.at_percent() > 0 && f.at_percent() < 100)) {
      c.Add(at + ".at", "expected a percentage above 0 and below 100 like insert@50%");
    } else if (TotalOps(*target) == 0) {
      c.Add(at + ".at", "PHASE@PERCENT needs a phase with an operation count (ops:); " + f.phase() + " has none");
    }
    return;
  }
  if (target->duration_ms() && f.at_ms() >= target->duration_ms()) {
    c.Add(at + ".at", "phase " + f.phase() + " lasts " + FormatDurationMs(target->duration_ms()) + ": a fault at " +
                          f.phase() + "+" + FormatDurationMs(f.at_ms()) + " would never happen");
  } else if (!target->duration_ms()) {
    CheckWhenOpsBounded(c, f, at, *target);
  }
}

// direction (partition, blackhole, loss, delay, bandwidth), delay (delay,
// slow-close), jitter (delay), loss (loss), bandwidth (bandwidth), method
// (delay, bandwidth): each only where its action uses it, each bounded.
void CheckNet(PlanChecks& c, const v1::Fault& f, const std::string& at) {
  const std::string& action = f.action();
  const v1::NetFault& n = f.net();
  const bool directed = IsDirectedAction(action);
  if (!IsNetworkFaultAction(action) || action == "heal") {
    if (f.has_net()) c.Add(at, "direction, delay, jitter, loss, bandwidth and method do not apply to " + action);
    return;
  }
  if (!n.direction().empty() &&
      (!directed || (n.direction() != "in" && n.direction() != "out" && n.direction() != "both"))) {
    c.Add(at + ".direction", directed ? "expected in, out or both, found " + Quoted(n.direction())
                                      : "direction does not apply to " + action);
  }
  if (!n.method().empty() && (!HasMethod(action) || (n.method() != "proxy" && n.method() != "kernel"))) {
    c.Add(at + ".method", HasMethod(action) ? "expected proxy or kernel, found " + Quoted(n.method())
                                            : "method does not apply to " + action);
  }
  if (action == "delay" || action == "slow-close") {
    if (n.delay_ms() == 0) {
      c.Add(at + ".delay", "a " + action + " fault needs delay: (like 100ms)");
    } else if (n.delay_ms() > kMaxNetDelayMs) {
      c.Add(at + ".delay", "expected 1ms .. 60s, found " + std::to_string(n.delay_ms()) + "ms");
    }
  } else if (n.delay_ms()) {
    c.Add(at + ".delay", "delay does not apply to " + action);
  }
  if (n.jitter_ms() > (action == "delay" ? n.delay_ms() : 0)) {
    c.Add(at + ".jitter", action == "delay" ? "expected 0 .. the delay, found " + std::to_string(n.jitter_ms()) + "ms"
                                            : "jitter does not apply to " + action);
  }
  if (action == "loss") {
    if (!(n.loss_percent() > 0 && n.loss_percent() <= 100)) {
      c.Add(at + ".loss", "a loss fault needs loss: a percentage above 0 and at most 100 like 20%");
    }
  } else if (n.loss_percent() != 0) {
    c.Add(at + ".loss", "loss does not apply to " + action);
  }
  const uint64_t b = n.bandwidth_bytes_per_s();
  if (action == "bandwidth" ? b < kMinBandwidth || b > kMaxBandwidth : b != 0) {
    c.Add(at + ".bandwidth", action == "bandwidth" ? "expected 1KB/s .. 1024GB/s, found " + std::to_string(b)
                                                   : "bandwidth does not apply to " + action);
  }
}

// free (fill only), at most 1 PiB; bandwidth and iops (slow-disk only),
// at least one.
void CheckDisk(PlanChecks& c, const v1::Fault& f, const std::string& at) {
  const v1::DiskFault& d = f.disk();
  if (f.action() == "slow-disk") {
    if (d.free_bytes()) c.Add(at + ".free", "free does not apply to slow-disk");
    if (!d.bytes_per_s() && !d.iops()) c.Add(at, "a slow-disk fault needs bandwidth, iops or both");
    if (d.bytes_per_s() && (d.bytes_per_s() < kMinBandwidth || d.bytes_per_s() > kMaxBandwidth)) {
      c.Add(at + ".bandwidth", "expected 1KB/s .. 1024GB/s, found " + std::to_string(d.bytes_per_s()));
    }
    if (d.iops() > kMaxSlowDiskIops) c.Add(at + ".iops", "expected 1 .. 1000000, found " + std::to_string(d.iops()));
    return;
  }
  if (!f.has_disk()) return;
  if (f.action() != "fill") {
    c.Add(at + ".free", "free does not apply to " + f.action());
  } else if (d.bytes_per_s() || d.iops()) {
    c.Add(at, "bandwidth and iops do not apply to fill");
  } else if (d.free_bytes() > kMaxFillFreeBytes) {
    c.Add(at + ".free", "expected a size from 0 to 1PiB, found " + std::to_string(d.free_bytes()));
  }
}

// A rolling restart's steps: restarts, consecutive in plan order (step k
// right after step k-1 of the same roll), sharing the roll's numbers, with a
// health probe to wait on between them.
void CheckRollStep(PlanChecks& c, int i, const std::string& at) {
  const v1::Plan& plan = c.plan();
  const v1::Fault& f = plan.faults(i);
  const v1::Roll& r = f.roll();
  if (f.action() != "restart") c.Add(at + ".action", "a rolling restart's steps are restarts");
  if (r.steps() == 0 || r.steps() > kMaxRollNodes || r.step() >= r.steps()) {
    return c.Add(at + ".nodes", "expected 1 to " + std::to_string(kMaxRollNodes) + " nodes");
  }
  if (r.step() > 0) {
    const v1::Fault* prev = i > 0 ? &plan.faults(i - 1) : nullptr;
    if (!prev || !prev->has_roll() || prev->roll().id() != r.id() || prev->roll().step() + 1 != r.step()) {
      return c.Add(at, "a rolling restart's step " + std::to_string(r.step()) + " must follow its step " +
                           std::to_string(r.step() - 1));
    }
    return;  // the rest is the first step's
  }
  c.Duration(r.max_wait_ms(), at + ".max_wait");
  if (r.throughput_floor() != 0) c.Double(r.throughput_floor(), at + ".throughput_floor", 0, 1, true);
  if (plan.target().health().kind().empty()) {
    c.Add(at + ".action",
          "a rolling restart waits for the cluster to be healthy between restarts: it needs target.health");
  }
}

// The subject of a condition: a phase (or a stepped phase's step,
// "insert/InsertOne") or a fault action, or "*".
std::string SubjectProblem(const PlanChecks& c, const std::string& scope, const std::string& subject, bool steps) {
  if (subject == "*") return "";
  std::vector<std::string> names = {"*"};
  if (scope == "phase") {
    for (const v1::Phase& p : c.plan().phases()) {
      if (p.name() == subject) return "";
      names.push_back(p.name());
    }
    if (steps) {
      const v1::Plan expanded = ExpandSteps(c.plan());
      for (const v1::Phase& p : expanded.phases()) {
        if (p.group().empty()) continue;
        if (p.name() == subject) return "";
        names.push_back(p.name());
      }
    }
  } else {
    if (IsFaultAction(subject) || subject == "rolling-restart") return "";
    names.insert(names.end(), kFaultActions.begin(), kFaultActions.end());
    names.push_back("rolling-restart");
  }
  const std::string near = NearestWord(subject, names);
  return "expected " + std::string(scope == "phase" ? "a phase of the plan" : "a fault action") + " or \"*\" (" +
         Join(names, ", ") + "), found " + Quoted(subject) + (near.empty() ? "" : " (did you mean '" + near + "'?)");
}

// A *_writes metric on a named phase (or one of its steps) is measured by
// the read-back, which only a phase with check_writes does.
std::string ReadBackProblem(const v1::Plan& plan, const v1::Expectation& x, const std::string& metric) {
  if (x.scope() != "phase" || x.subject() == "*" || metric.size() < 7 ||
      metric.compare(metric.size() - 7, 7, "_writes") != 0) {
    return "";
  }
  const std::string phase = x.subject().substr(0, x.subject().find('/'));
  for (const v1::Phase& p : plan.phases()) {
    if (p.name() == phase && !p.check_writes()) {
      return metric + " is measured by the read-back: phase " + phase + " needs check_writes: true";
    }
  }
  return "";
}

}  // namespace

void CheckFaults(PlanChecks& c) {
  const v1::Plan& plan = c.plan();
  if (size_t(plan.faults_size()) > kMaxFaults) {
    return c.Add("faults", "at most " + std::to_string(kMaxFaults) + " faults (repeat: copies included)");
  }
  for (int i = 0; i < plan.faults_size(); ++i) {
    const v1::Fault& f = plan.faults(i);
    const std::string at = "faults[" + std::to_string(i) + "]";
    if (f.action().empty()) {
      c.Add(at + ".action", "missing (expected a string)");
    } else if (!IsFaultAction(f.action())) {
      c.Add(at + ".action", "expected one of " +
                                Join(std::vector<std::string>(kFaultActions.begin(), kFaultActions.end()), ", ") +
                                ", found " + Quoted(f.action()));
    }
    if (f.node().empty()) c.Add(at + ".node", "missing (expected a string)");
    CheckWhen(c, f, at);
    CheckNet(c, f, at);
    CheckDisk(c, f, at);
    if (f.has_roll()) CheckRollStep(c, i, at);
  }
}

void CheckHealth(PlanChecks& c) {
  const v1::HealthSpec& h = c.plan().target().health();
  if (h.kind().empty()) {
    if (h.urls_size() > 0 || h.nodes() > 0) c.Add("target.health.kind", "missing (expected a string)");
    return;
  }
  const health::HealthKind* kind = health::FindHealthKind(h.kind());
  if (!kind) {
    c.Add("target.health.kind", "expected one of " + Join(health::HealthKinds(), ", ") + ", found " + Quoted(h.kind()));
  }
  for (const std::string& u : h.urls()) {
    if (u.rfind("http://", 0) != 0) c.Add("target.health.urls", "expected an http:// url, found " + Quoted(u));
  }
  if (kind && kind->source == health::HealthSource::kUrls && h.urls_size() == 0) {
    c.Add("target.health.urls", "health kind " + h.kind() + " needs urls");
  }
  c.UInt(h.nodes(), "target.health.nodes", 0, kMaxHealthNodes);
  c.UInt(h.consecutive(), "target.health.consecutive", 1, kMaxHealthConsecutive);
}

void CheckExpect(PlanChecks& c) {
  const v1::Plan& plan = c.plan();
  if (size_t(plan.expect_size()) > record::kMaxExpectations) {
    return c.Add("expect", "at most " + std::to_string(record::kMaxExpectations) + " conditions");
  }
  // A step's name is known once the phases are sound (their params decide
  // the steps).
  const bool steps = c.count() == 0;
  for (int i = 0; i < plan.expect_size(); ++i) {
    const v1::Expectation& x = plan.expect(i);
    const std::string at = "expect[" + std::to_string(i) + "]";
    if (x.scope() != "phase" && x.scope() != "fault") {
      c.Add(at, "expected scope phase or fault, found " + Quoted(x.scope()));
      continue;
    }
    if (std::string why = SubjectProblem(c, x.scope(), x.subject(), steps); !why.empty()) {
      c.Add(at + ".subject", why);
      continue;
    }
    auto parsed = record::ParseExpectation(x.scope(), x.subject(), x.text());
    if (!parsed.ok()) {
      c.Add(at, parsed.status().message());
    } else if (std::string why = ReadBackProblem(plan, x, parsed->metric); !why.empty()) {
      c.Add(at, why);
    }
  }
}

}  // namespace stampede::plan

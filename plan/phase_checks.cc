// The validator's rules for phases: names, workloads and their params,
// pacing (stages, rate, think time, arrival, pipeline, batch, timeout), and
// what the workload itself refuses.
#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "common/strings.h"
#include "drivers/driver_registry.h"
#include "plan/phase_shape.h"
#include "plan/plan_checks.h"
#include "plan/plan_limits.h"
#include "workloads/workload_registry.h"

namespace stampede::plan {
namespace {

using workloads::ParamSpec;

bool OpenLoop(const v1::Phase& p) { return p.rate() > 0 || (p.stages_size() > 0 && p.stages(0).rate() > 0); }

// One param's text as the workload reads it (workloads::Params).
std::string ParamProblem(const ParamSpec& spec, const std::string& key, const std::string& v) {
  const char* end = v.data() + v.size();
  switch (spec.type) {
    case ParamSpec::Type::kInt: {
      int64_t n = 0;
      auto [ptr, ec] = std::from_chars(v.data(), end, n);
      if (ec != std::errc() || ptr != end) return ExpectedInteger(spec.min, 1e18) + Quoted(v);
      if (double(n) < spec.min || double(n) > spec.max) return ExpectedInteger(spec.min, spec.max) + v;
      return "";
    }
    case ParamSpec::Type::kDouble: {
      double d = 0;
      auto [ptr, ec] = std::from_chars(v.data(), end, d);
      if (ec != std::errc() || ptr != end || d != d) return "expected a number, found " + Quoted(v);
      if (d < spec.min || d > spec.max) return ExpectedNumber(spec.min, spec.max, false) + v;
      return "";
    }
    case ParamSpec::Type::kBool:
      return v == "true" || v == "false" ? "" : "expected true or false, found " + Quoted(v);
    case ParamSpec::Type::kChoice:
      if (std::find(spec.choices.begin(), spec.choices.end(), v) != spec.choices.end()) return "";
      return "expected one of " + Join(spec.choices, ", ") + ", found " + Quoted(v);
    case ParamSpec::Type::kString:
      if (v.empty()) return "expected a string, found nothing";
      if (key == "table" && !IsIdentifier(v))
        return "expected an identifier of up to 128 characters, found " + Quoted(v);
      return "";
  }
  return "";
}

}  // namespace

bool ParamsUsable(const workloads::WorkloadInfo& info, const v1::Phase& phase) {
  const auto& specs = info.param_specs();
  for (const auto& [key, value] : phase.params()) {
    auto spec = std::find_if(specs.begin(), specs.end(), [&k = key](const ParamSpec& s) { return s.name == k; });
    if (spec == specs.end() || !ParamProblem(*spec, key, value).empty()) return false;
  }
  return true;
}

namespace {

void CheckParams(PlanChecks& c, const std::string& at, const workloads::WorkloadInfo& info, const v1::Phase& phase) {
  const auto& specs = info.param_specs();
  std::vector<std::string> names;
  for (const ParamSpec& s : specs) names.push_back(s.name);
  // In name order: a protobuf map has none of its own.
  const std::map<std::string, std::string> sorted(phase.params().begin(), phase.params().end());
  for (const auto& entry : sorted) {
    const std::string& key = entry.first;
    const std::string& value = entry.second;
    const std::string field = at + ".params." + key;
    auto spec = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == key; });
    if (spec == specs.end()) {
      std::string near = NearestWord(key, names);
      c.Add(field,
            "unknown parameter of workload " + info.name +
                (near.empty() ? " (expected one of " + Join(names, ", ") + ")" : ", did you mean '" + near + "'?"));
    } else if (std::string why = ParamProblem(*spec, key, value); !why.empty()) {
      c.Add(field, why);
    }
  }
}

// Let the workload check combinations its parameters alone cannot, and
// what the phase asks of it (read-back, pipeline, batch).
void CheckWorkload(PlanChecks& c, const std::string& at, const workloads::WorkloadInfo& info, const v1::Phase& phase) {
  const drivers::DriverInfo* driver = drivers::FindDriver(c.plan().target().driver());
  if (!driver) return;
  workloads::WorkloadContext ctx;
  ctx.dialect = driver->dialect;
  ctx.flavor = c.plan().target().flavor();
  ctx.total_workers = phase.workers() ? phase.workers() : 1;
  ctx.custom = &phase.custom();
  ctx.batch = std::max<uint32_t>(1, phase.batch());
  ctx.open_loop = IsOpenLoop(phase);
  const std::map<std::string, std::string> values(phase.params().begin(), phase.params().end());
  auto w = info.factory(ctx, workloads::Params(info.param_specs(), values));
  if (!w.ok()) return c.Add(at + ".params", w.status().message());
  drivers::OpRequest probe;
  if (const std::string why = phase.check_writes() ? (*w)->ReadBack(0, &probe) : ""; !why.empty()) {
    c.Add(at + ".check_writes", "cannot be checked: " + why);
  }
  if (const std::string why = phase.pipeline() > 1 ? (*w)->PipelineBlocker() : ""; !why.empty()) {
    c.Add(at + ".pipeline", "cannot pipeline " + phase.workload() + ": " + why);
  }
  if (const std::string why = phase.batch() > 1 ? (*w)->BatchBlocker() : ""; !why.empty()) {
    c.Add(at + ".batch", "cannot batch " + phase.workload() + ": " + why);
  }
}

// A stepped workload (rebalance2021) sets its own operation counts; one
// with an open-ended step (ycsb's run after its load) takes the phase's
// duration or ops for it.
void CheckStepCounts(PlanChecks& c, const std::string& at, const workloads::WorkloadInfo* info,
                     const v1::Phase& phase) {
  std::vector<workloads::StepSpec> steps;
  if (info && info->steps && (!ParamsUsable(*info, phase) || phase.workers() == 0)) return;  // steps need them
  if (info && info->steps) {
    const std::map<std::string, std::string> values(phase.params().begin(), phase.params().end());
    steps = info->steps(workloads::Params(info->param_specs(), values), phase.workers());
  }
  bool open_ended = steps.empty();
  for (const workloads::StepSpec& st : steps) open_ended |= st.ops == 0;
  if (open_ended) {
    if (!phase.duration_ms() && !phase.ops()) {
      c.Add(at, "needs a duration (e.g. duration: 30s) or an operation count (ops: N)");
    }
    return;
  }
  const std::string why = "not allowed: " + info->name +
                          (steps.size() > 1 ? " runs a fixed number of operations per step"
                                            : " with these params sets its own operation count") +
                          " (set its params instead)";
  if (phase.stages_size() > 0) {
    c.Add(at + ".stages", why);
  } else if (phase.duration_ms() > 0) {
    c.Add(at + ".duration", why);
  }
  if (phase.ops() > 0) c.Add(at + ".ops", why);
}

// stages: all {duration, workers} (closed loop) or all {duration, rate}
// (open loop); the phase's duration is their sum.
void CheckStages(PlanChecks& c, const std::string& at, const v1::Phase& phase) {
  if (phase.stages_size() == 0) return;
  uint64_t total_ms = 0;
  uint32_t max_workers = 0;
  const bool open = phase.stages(0).rate() > 0;
  for (int i = 0; i < phase.stages_size(); ++i) {
    const v1::Stage& st = phase.stages(i);
    const std::string sf = at + ".stages[" + std::to_string(i) + "]";
    if (c.Duration(st.duration_ms(), sf + ".duration")) total_ms += st.duration_ms();
    c.UInt(st.workers(), sf + ".workers", 0, kMaxWorkers);
    c.Double(st.rate(), sf + ".rate", 0, kMaxRate, false);
    if (st.workers() > 0 && st.rate() > 0) {
      c.Add(sf, "expected exactly one of workers (closed loop) or rate (open loop)");
    } else if (open ? st.workers() > 0 : st.rate() > 0) {
      c.Add(sf, std::string("expected ") + (open ? "rate" : "workers") +
                    " like the stages before it (a phase is closed or open loop)");
    }
    max_workers = std::max(max_workers, st.workers());
  }
  if (phase.rate() != 0) c.Add(at + ".rate", "not allowed with stages (give each stage a rate)");
  if (phase.duration_ms() != total_ms) {
    c.Add(at + ".duration", "not allowed with stages (the stages' durations add up to the phase's)");
  }
  if (max_workers > phase.workers() && phase.workers() > 0) {
    c.Add(at + ".workers", "is " + std::to_string(phase.workers()) + " but a stage ramps to " +
                               std::to_string(max_workers) + " workers");
  }
}

// pipeline: operations in flight per connection, for a closed loop without
// stages on a driver and flavor that pipelines.
void CheckPipeline(PlanChecks& c, const std::string& at, const v1::Phase& phase) {
  if (!c.UInt(phase.pipeline(), at + ".pipeline", 0, kMaxPipeline) || phase.pipeline() <= 1) return;
  const v1::Target& t = c.plan().target();
  const drivers::DriverInfo* driver = drivers::FindDriver(t.driver());
  if (phase.rate() > 0 || phase.stages_size() > 0) {
    c.Add(at + ".pipeline",
          "only for a closed-loop phase without stages (a worker sends its next round when the last one is "
          "answered)");
  } else if (driver && std::find(driver->pipelined_flavors.begin(), driver->pipelined_flavors.end(), t.flavor()) ==
                           driver->pipelined_flavors.end()) {
    c.Add(at + ".pipeline", driver->pipelined_flavors.empty()
                                ? "the " + driver->name + " driver does not pipeline yet"
                                : "the " + driver->name + " driver pipelines flavor " +
                                      Join(driver->pipelined_flavors, ", ") + " only, not " + Quoted(t.flavor()));
  }
}

// think_time, arrival, batch and timeout: how the phase's operations are
// paced and bounded.
void CheckPacing(PlanChecks& c, const std::string& at, const v1::Phase& phase) {
  if (phase.duration_ms() > 0 && phase.stages_size() == 0) c.Duration(phase.duration_ms(), at + ".duration");
  if (phase.rate() != 0) c.Double(phase.rate(), at + ".rate", 0, kMaxRate, true);
  CheckStages(c, at, phase);
  if (phase.think_time_ms() > 0 && c.Duration(phase.think_time_ms(), at + ".think_time") && OpenLoop(phase)) {
    c.Add(at + ".think_time", "only for closed loop (an open-loop phase paces operations by its rate)");
  }
  if (!phase.arrival().empty() && c.OneOf(phase.arrival(), at + ".arrival", {"constant", "poisson"}) &&
      !OpenLoop(phase)) {
    c.Add(at + ".arrival", "needs an open-loop phase (rate: or stages with rate:)");
  }
  CheckPipeline(c, at, phase);
  c.UInt(phase.batch(), at + ".batch", 0, kMaxBatch);
  if (phase.timeout_ms() > 0 && c.Duration(phase.timeout_ms(), at + ".timeout") && phase.duration_ms() > 0) {
    c.Add(at + ".timeout",
          "not allowed with a duration (a timed phase ends at its duration; timeout: bounds a phase that runs a "
          "number of operations)");
  }
}

const workloads::WorkloadInfo* CheckWorkloadName(PlanChecks& c, const std::string& at, const v1::Phase& phase) {
  if (phase.workload().empty()) {
    c.Add(at + ".workload", "missing (expected a string)");
    return nullptr;
  }
  const workloads::WorkloadInfo* info = workloads::FindWorkload(phase.workload());
  if (!info) {
    std::string near = NearestWord(phase.workload(), workloads::WorkloadNames());
    c.Add(at + ".workload", "expected one of " + Join(workloads::WorkloadNames(), ", ") + ", found " +
                                Quoted(phase.workload()) + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
  return info;
}

void CheckPhase(PlanChecks& c, int index, std::set<std::string>* names) {
  const v1::Phase& phase = c.plan().phases(index);
  const std::string at = "phases[" + std::to_string(index) + "]";
  const size_t before = c.count();
  if (phase.name().empty()) {
    c.Add(at + ".name", "missing (expected a string)");
  } else if (!IsNameOf(phase.name(), "_-")) {
    c.Add(at + ".name", "expected up to 128 letters, digits, '_' or '-', found " + Quoted(phase.name()));
  } else if (!names->insert(phase.name()).second) {
    c.Add(at + ".name", "duplicate phase name " + Quoted(phase.name()));
  }
  if (!phase.group().empty() || !phase.step().empty() || phase.group_workers() > 0) {
    c.Add(at, "group, step and group_workers are set by the coordinator, not by a plan");
  }
  const workloads::WorkloadInfo* info = CheckWorkloadName(c, at, phase);
  if (phase.workers() == 0) {
    c.Add(at + ".workers", "missing (expected a positive integer)");
  } else {
    c.UInt(phase.workers(), at + ".workers", 1, kMaxWorkers);
  }
  if (phase.workload() == "custom") {
    CheckCustom(c, phase.custom(), at + ".custom");
  } else if (phase.custom().ops_size() > 0) {
    c.Add(at + ".custom", "only for workload: custom");
  }
  CheckPacing(c, at, phase);
  if (info) CheckParams(c, at, *info, phase);
  if (info && c.count() == before) CheckWorkload(c, at, *info, phase);
  CheckStepCounts(c, at, info, phase);
}

}  // namespace

void CheckPhases(PlanChecks& c) {
  const v1::Plan& plan = c.plan();
  if (plan.phases_size() == 0) return c.Add("phases", "missing (expected a list of phases)");
  if (size_t(plan.phases_size()) > kMaxPhases) {
    return c.Add("phases", "at most " + std::to_string(kMaxPhases) + " phases");
  }
  std::set<std::string> names;
  for (int i = 0; i < plan.phases_size(); ++i) CheckPhase(c, i, &names);
}

}  // namespace stampede::plan

#include "plan/plan_loader.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "common/duration.h"
#include "common/strings.h"
#include "drivers/driver_registry.h"
#include "drivers/statement_template.h"
#include "plan/agents_loader.h"
#include "plan/custom_grammar.h"
#include "plan/expect_loader.h"
#include "plan/fault_loader.h"
#include "plan/plan_limits.h"
#include "plan/yaml_reader.h"
#include "workloads/custom_workload.h"
#include "workloads/workload_registry.h"

namespace stampede::plan {
namespace {

using workloads::ParamSpec;

// The run's default timeout beyond its timed phases.
constexpr uint64_t kDefaultRunSlackMs = 3600 * 1000;

class Loader : public YamlReader {
 public:
  explicit Loader(std::string file)
      : YamlReader(file, &result_.errors),
        statements_(file, &result_.errors, result_.plan),
        faults_(file, &result_.errors, &result_.plan) {}

  PlanLoadResult Load(const std::string& text) {
    if (auto limit = CheckPlanTextLimits(text)) {
      AddAt(limit->line, limit->column, "plan", limit->message);
      return Finish();
    }
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      AddAt(e.mark.line + 1, e.mark.column + 1, "yaml", "not valid YAML: " + e.msg);
      return Finish();
    }
    if (!root.IsMap()) {
      Error(root, "plan", "expected a mapping with name, target and phases, found " + Found(root));
      return Finish();
    }
    CheckKeys(root, "",
              {"name", "seed", "target", "agents", "phases", "retry", "faults", "recovery", "setup", "cleanup",
               "report", "timeout", "expect"});
    auto& plan = result_.plan;
    plan.set_name(RequiredString(root, "name", "name"));
    if (!plan.name().empty() && !IsNameOf(plan.name(), "_.-")) {
      Error(root["name"], "name", "expected up to 128 letters, digits, '.', '_' or '-', found " + Quoted(plan.name()));
    }
    plan.set_seed(root["seed"] ? UInt(root["seed"], "seed", 0, 18446744073709551616.0) : 1);
    LoadTarget(root);
    AgentsLoader(file(), &result_.errors, result_.plan.mutable_agents()).Load(root);
    LoadRetry(root);
    LoadPhases(root);
    faults_.LoadFaults(root);
    if (root["setup"]) statements_.LoadStatements(root["setup"], "setup", result_.plan.mutable_setup());
    if (root["cleanup"]) statements_.LoadStatements(root["cleanup"], "cleanup", result_.plan.mutable_cleanup());
    if (root["report"]) LoadReportOptions(root["report"]);
    faults_.LoadRecovery(root);
    if (root["expect"]) ExpectLoader(file(), &result_.errors, &result_.plan).LoadExpect(root["expect"]);
    LoadRunTimeout(root);
    return Finish();
  }

 private:
  PlanLoadResult Finish() { return std::move(result_); }

  void LoadReportOptions(const YAML::Node& r) {
    if (!r.IsMap()) {
      Error(r, "report", "expected a mapping like {ns_per_op: true}, found " + Found(r));
      return;
    }
    CheckKeys(r, "report", {"ns_per_op"});
    if (r["ns_per_op"]) result_.plan.mutable_report()->set_ns_per_op(Bool(r["ns_per_op"], "report.ns_per_op"));
  }

  void LoadTarget(const YAML::Node& root) {
    YAML::Node t = root["target"];
    if (!t) {
      Error(root, "target", "missing (expected a mapping with driver and endpoints)");
      return;
    }
    if (!t.IsMap()) {
      Error(t, "target", "expected a mapping with driver and endpoints, found " + Found(t));
      return;
    }
    CheckKeys(t, "target",
              {"driver", "flavor", "endpoints", "user", "password_env", "database", "connect_timeout", "op_timeout",
               "balance", "session", "health"});
    auto* target = result_.plan.mutable_target();
    target->set_driver(RequiredString(t, "driver", "target.driver"));
    const drivers::DriverInfo* info = nullptr;
    if (!target->driver().empty()) {
      info = drivers::FindDriver(target->driver());
      if (!info) {
        std::string near = NearestWord(target->driver(), drivers::DriverNames());
        Error(t["driver"], "target.driver",
              "expected one of " + Join(drivers::DriverNames(), ", ") + ", found '" + target->driver() + "'" +
                  (near.empty() ? "" : " (did you mean '" + near + "'?)"));
      }
    }
    if (t["flavor"]) {
      target->set_flavor(String(t["flavor"], "target.flavor"));
      if (info && std::find(info->flavors.begin(), info->flavors.end(), target->flavor()) == info->flavors.end()) {
        Error(t["flavor"], "target.flavor",
              "expected one of " + Join(info->flavors, ", ") + " for driver " + info->name + ", found " +
                  Quoted(target->flavor()));
      }
    } else if (info) {
      target->set_flavor(info->flavors.front());
    }
    YAML::Node eps = t["endpoints"];
    if (!eps) {
      Error(t, "target.endpoints", "missing (expected a list of host:port)");
    } else {
      std::vector<YAML::Node> items;
      if (eps.IsScalar()) {
        items.push_back(eps);
      } else if (eps.IsSequence() && eps.size() > 0) {
        for (const auto& e : eps) items.push_back(e);
      } else {
        Error(eps, "target.endpoints", "expected a list of host:port, found " + Found(eps));
      }
      for (size_t i = 0; i < items.size(); ++i) {
        std::string field = "target.endpoints[" + std::to_string(i) + "]";
        std::string host;
        int port;
        if (!items[i].IsScalar() || !SplitHostPort(items[i].Scalar(), &host, &port)) {
          Error(items[i], field, "expected host:port, found " + Found(items[i]));
          continue;
        }
        target->add_endpoints(items[i].Scalar());
      }
    }
    if (t["user"]) target->set_user(String(t["user"], "target.user"));
    if (t["database"]) {
      // Redis databases are numbers; SQL databases are names.
      YAML::Node d = t["database"];
      target->set_database(d.IsScalar() ? d.Scalar() : String(d, "target.database"));
    }
    if (t["password_env"]) {
      std::string env = String(t["password_env"], "target.password_env");
      if (!env.empty() && !IsIdentifier(env)) {
        Error(t["password_env"], "target.password_env",
              "expected the name of an environment variable, found " + Quoted(env));
      }
      target->set_password_env(env);
    }
    target->set_connect_timeout_ms(t["connect_timeout"] ? DurationMs(t["connect_timeout"], "target.connect_timeout")
                                                        : 5000);
    target->set_op_timeout_ms(t["op_timeout"] ? DurationMs(t["op_timeout"], "target.op_timeout") : 10000);
    target->set_balance("round-robin");
    if (t["balance"]) {
      std::string b = String(t["balance"], "target.balance");
      if (b != "round-robin" && b != "random" && b != "first-alive") {
        Error(t["balance"], "target.balance", "expected round-robin, random or first-alive, found " + Quoted(b));
      }
      target->set_balance(b);
    }
    if (t["session"]) LoadSession(t["session"], info);
    faults_.LoadHealth(t);
  }

  // read-write: postgres (libpq target_session_attrs), mysql (@@read_only)
  // and a single Redis node (ROLE) can tell a primary; a Redis Cluster
  // routes to masters itself.
  void LoadSession(const YAML::Node& n, const drivers::DriverInfo* info) {
    const std::string s = String(n, "target.session");
    const std::string& flavor = result_.plan.target().flavor();
    const bool can =
        !info || info->name == "postgres" || info->name == "mysql" || (info->name == "redis" && flavor == "redis");
    if (s != "any" && s != "read-write")
      return Error(n, "target.session", "expected any or read-write, found " + Quoted(s));
    if (s == "read-write" && !can) {
      return Error(n, "target.session", "read-write needs postgres, mysql or redis (flavor redis), not " + flavor);
    }
    if (s == "read-write") result_.plan.mutable_target()->set_session(s);
  }

  void LoadRetry(const YAML::Node& root) {
    auto* retry = result_.plan.mutable_retry();
    retry->set_max_attempts(3);
    retry->set_backoff_ms(10);
    YAML::Node r = root["retry"];
    if (!r) return;
    if (!r.IsMap()) {
      Error(r, "retry", "expected a mapping like {max_attempts: 3, backoff: 10ms}, found " + Found(r));
      return;
    }
    CheckKeys(r, "retry", {"max_attempts", "backoff"});
    if (r["max_attempts"]) {
      retry->set_max_attempts(static_cast<uint32_t>(UInt(r["max_attempts"], "retry.max_attempts", 1, 100)));
    }
    if (r["backoff"]) retry->set_backoff_ms(static_cast<uint32_t>(DurationMs(r["backoff"], "retry.backoff")));
  }

  // timeout: the whole run ends there at the latest. By default an hour
  // beyond the timed phases' durations.
  void LoadRunTimeout(const YAML::Node& root) {
    uint64_t timed_ms = 0;
    for (const v1::Phase& p : result_.plan.phases()) timed_ms += p.duration_ms();
    if (timed_ms > uint64_t(kMaxDurationMs)) {
      Error(root["phases"], "phases", "the phases' durations add up to more than 720h (30 days)");
      return;
    }
    if (!root["timeout"]) {
      result_.plan.set_timeout_ms(timed_ms + kDefaultRunSlackMs);
      return;
    }
    const uint64_t ms = uint64_t(DurationMs(root["timeout"], "timeout"));
    result_.plan.set_timeout_ms(ms);
    if (ms > 0 && ms < timed_ms) {
      Error(root["timeout"], "timeout",
            "expected at least the phases' durations (" + FormatDurationNs(int64_t(timed_ms) * 1000000) + "), found " +
                Quoted(root["timeout"].Scalar()));
    }
  }

  void LoadPhases(const YAML::Node& root) {
    YAML::Node phases = root["phases"];
    if (!phases) {
      Error(root, "phases", "missing (expected a list of phases)");
      return;
    }
    if (!phases.IsSequence() || phases.size() == 0) {
      Error(phases, "phases", "expected a non-empty list of phases, found " + Found(phases));
      return;
    }
    std::set<std::string> names;
    for (size_t i = 0; i < phases.size(); ++i) {
      LoadPhase(phases[i], "phases[" + std::to_string(i) + "]", &names);
    }
  }

  void LoadPhase(const YAML::Node& p, const std::string& at, std::set<std::string>* names) {
    phase_errors_start_ = result_.errors.size();
    if (!p.IsMap()) {
      Error(p, at, "expected a mapping with name, workload and workers, found " + Found(p));
      return;
    }
    CheckKeys(p, at,
              {"name", "workload", "workers", "duration", "ops", "rate", "params", "stages", "think_time", "arrival",
               "setup", "cleanup", "custom", "timeout", "check_writes", "pipeline", "batch"});
    v1::Phase* phase = result_.plan.add_phases();
    phase->set_name(RequiredString(p, "name", at + ".name"));
    if (!phase->name().empty()) {
      if (!IsNameOf(phase->name(), "_-")) {
        Error(p["name"], at + ".name",
              "expected up to 128 letters, digits, '_' or '-', found " + Quoted(phase->name()));
      } else if (!names->insert(phase->name()).second) {
        Error(p["name"], at + ".name", "duplicate phase name " + Quoted(phase->name()));
      }
    }
    phase->set_workload(RequiredString(p, "workload", at + ".workload"));
    const workloads::WorkloadInfo* info = nullptr;
    if (!phase->workload().empty()) {
      info = workloads::FindWorkload(phase->workload());
      if (!info) {
        std::string near = NearestWord(phase->workload(), workloads::WorkloadNames());
        Error(p["workload"], at + ".workload",
              "expected one of " + Join(workloads::WorkloadNames(), ", ") + ", found '" + phase->workload() + "'" +
                  (near.empty() ? "" : " (did you mean '" + near + "'?)"));
      }
    }
    if (p["workers"]) {
      phase->set_workers(static_cast<uint32_t>(UInt(p["workers"], at + ".workers", 1, 100000)));
    }
    if (p["duration"]) phase->set_duration_ms(DurationMs(p["duration"], at + ".duration"));
    if (p["ops"]) phase->set_ops(UInt(p["ops"], at + ".ops", 1, 1e18));
    if (p["rate"]) phase->set_rate(Double(p["rate"], at + ".rate", 0, 1e9, true));
    if (p["stages"]) LoadStages(p, at, phase);
    if (p["custom"]) {
      if (phase->workload() != "custom") {
        Error(p["custom"], at + ".custom", "only for workload: custom");
      } else {
        statements_.LoadCustom(p["custom"], at + ".custom", phase->mutable_custom());
      }
    } else if (phase->workload() == "custom") {
      Error(p, at + ".custom", "missing (workload custom needs a list of ops)");
    }
    if (p["setup"]) statements_.LoadStatements(p["setup"], at + ".setup", phase->mutable_setup());
    if (p["cleanup"]) statements_.LoadStatements(p["cleanup"], at + ".cleanup", phase->mutable_cleanup());
    if (!p["workers"] && !(p["stages"] && phase->workers() > 0)) {
      Error(p, at + ".workers", "missing (expected a positive integer)");
    }
    LoadPacing(p, at, phase);
    LoadPhaseParams(p, at, info, phase);
    CheckStepCounts(p, at, info, *phase);
  }

  // think_time, arrival and timeout: how the phase's operations are paced
  // and bounded.
  void LoadPacing(const YAML::Node& p, const std::string& at, v1::Phase* phase) {
    if (p["think_time"]) {
      phase->set_think_time_ms(uint64_t(DurationMs(p["think_time"], at + ".think_time")));
      if (phase->rate() > 0 || (phase->stages_size() > 0 && phase->stages(0).rate() > 0)) {
        Error(p["think_time"], at + ".think_time",
              "only for closed loop (an open-loop phase paces operations by its rate)");
      }
    }
    if (p["arrival"]) {
      const std::string a = p["arrival"].IsScalar() ? p["arrival"].Scalar() : "";
      if (a != "constant" && a != "poisson") {
        Error(p["arrival"], at + ".arrival", "expected one of constant, poisson, found " + Found(p["arrival"]));
      } else if (phase->rate() <= 0 && !(phase->stages_size() > 0 && phase->stages(0).rate() > 0)) {
        Error(p["arrival"], at + ".arrival", "needs an open-loop phase (rate: or stages with rate:)");
      } else {
        phase->set_arrival(a);
      }
    }
    if (p["check_writes"]) phase->set_check_writes(Bool(p["check_writes"], at + ".check_writes"));
    if (p["pipeline"]) LoadPipeline(p["pipeline"], at + ".pipeline", phase);
    // Rows per insert statement; the workload's part is checked with its
    // params. 1,000 rows x 4 columns stays under every server's limit on
    // parameters per statement (PostgreSQL: 65,535).
    if (p["batch"]) phase->set_batch(uint32_t(UInt(p["batch"], at + ".batch", 1, 1000)));
    if (p["timeout"]) {
      phase->set_timeout_ms(uint64_t(DurationMs(p["timeout"], at + ".timeout")));
      if (phase->duration_ms() > 0) {
        Error(p["timeout"], at + ".timeout",
              "not allowed with a duration (a timed phase ends at its duration; timeout: bounds a "
              "phase that runs a number of operations)");
      }
    }
  }

  // pipeline: operations in flight per connection; the workload's part is
  // checked where it is built (LoadPhaseParams).
  void LoadPipeline(const YAML::Node& n, const std::string& field, v1::Phase* phase) {
    phase->set_pipeline(uint32_t(UInt(n, field, 1, 1000)));
    if (phase->pipeline() <= 1) return;
    const v1::Target& t = result_.plan.target();
    const drivers::DriverInfo* driver = drivers::FindDriver(t.driver());
    if (phase->rate() > 0 || phase->stages_size() > 0) {
      Error(n, field,
            "only for a closed-loop phase without stages (a worker sends its next round when the last one is "
            "answered)");
    } else if (driver && std::find(driver->pipelined_flavors.begin(), driver->pipelined_flavors.end(), t.flavor()) ==
                             driver->pipelined_flavors.end()) {
      Error(n, field,
            driver->pipelined_flavors.empty()
                ? "the " + driver->name + " driver does not pipeline yet"
                : "the " + driver->name + " driver pipelines flavor " + Join(driver->pipelined_flavors, ", ") +
                      " only, not " + Quoted(t.flavor()));
    }
  }

  void CheckStepCounts(const YAML::Node& p, const std::string& at, const workloads::WorkloadInfo* info,
                       const v1::Phase& phase) {
    // A stepped workload (rebalance2021) sets its own operation counts; one
    // with an open-ended step (ycsb's run after its load) takes the phase's
    // duration or ops for it. A rate paces every step (open loop).
    std::vector<workloads::StepSpec> steps;
    if (info && info->steps) {
      std::map<std::string, std::string> values(phase.params().begin(), phase.params().end());
      steps = info->steps(workloads::Params(info->param_specs(), values), phase.workers());
    }
    bool open_ended = steps.empty();
    for (const workloads::StepSpec& st : steps) open_ended |= st.ops == 0;
    if (!open_ended) {
      for (const char* key : {"duration", "ops", "stages"}) {
        if (p[key]) {
          Error(p[key], at + "." + key,
                "not allowed: " + info->name +
                    (steps.size() > 1 ? " runs a fixed number of operations per step"
                                      : " with these params sets its own operation count") +
                    " (set its params instead)");
        }
      }
    } else if (!phase.duration_ms() && !phase.ops() && !p["duration"] && !p["stages"]) {
      Error(p, at, "needs a duration (e.g. duration: 30s) or an operation count (ops: N)");
    }
  }

  // stages: [{duration, workers} ...] (closed loop) or [{duration, rate} ...]
  // (open loop); the phase's duration is their sum.
  void LoadStages(const YAML::Node& p, const std::string& at, v1::Phase* phase) {
    const YAML::Node stages = p["stages"];
    const std::string field = at + ".stages";
    if (!stages.IsSequence() || stages.size() == 0) {
      Error(stages, field, "expected a list of {duration, workers} or {duration, rate}, found " + Found(stages));
      return;
    }
    for (const char* key : {"duration", "rate"}) {
      if (p[key]) {
        Error(p[key], at + "." + key,
              std::string("not allowed with stages (") +
                  (key[0] == 'd' ? "the stages' durations add up to the phase's" : "give each stage a rate") + ")");
      }
    }
    uint64_t total_ms = 0;
    uint32_t max_workers = 0;
    int kind = 0;  // 1 workers, 2 rate
    for (size_t i = 0; i < stages.size(); ++i) {
      const YAML::Node st = stages[i];
      const std::string sf = field + "[" + std::to_string(i) + "]";
      if (!st.IsMap()) {
        Error(st, sf, "expected {duration: 5s, workers: N} or {duration: 5s, rate: R}, found " + Found(st));
        continue;
      }
      CheckKeys(st, sf, {"duration", "workers", "rate"});
      v1::Stage* out = phase->add_stages();
      if (!st["duration"]) {
        Error(st, sf + ".duration", "missing (expected a duration like 5s)");
      } else {
        out->set_duration_ms(uint64_t(DurationMs(st["duration"], sf + ".duration")));
      }
      if (st["workers"].IsDefined() == st["rate"].IsDefined()) {
        Error(st, sf, "expected exactly one of workers (closed loop) or rate (open loop)");
        continue;
      }
      const int k = st["workers"] ? 1 : 2;
      if (kind && k != kind) {
        Error(st, sf,
              std::string("expected ") + (kind == 1 ? "workers" : "rate") +
                  " like the stages before it (a phase is closed or open loop)");
        continue;
      }
      kind = k;
      if (k == 1) {
        out->set_workers(static_cast<uint32_t>(UInt(st["workers"], sf + ".workers", 0, 100000)));
        max_workers = std::max(max_workers, out->workers());
      } else {
        out->set_rate(Double(st["rate"], sf + ".rate", 0, 1e9, false));
      }
      total_ms += out->duration_ms();
    }
    phase->set_duration_ms(total_ms);
    if (kind == 1) {
      if (!p["workers"]) {
        phase->set_workers(max_workers);
      } else if (max_workers > phase->workers()) {
        Error(p["workers"], at + ".workers",
              "is " + std::to_string(phase->workers()) + " but a stage ramps to " + std::to_string(max_workers) +
                  " workers");
      }
    }
  }

  void LoadPhaseParams(const YAML::Node& p, const std::string& at, const workloads::WorkloadInfo* info,
                       v1::Phase* phase) {
    YAML::Node params = p["params"];
    if (params && !params.IsMap()) {
      Error(params, at + ".params", "expected a mapping of workload parameters, found " + Found(params));
      return;
    }
    if (!info) return;
    const size_t before = phase_errors_start_;
    if (params) LoadParams(params, at + ".params", *info, phase);
    // Let the workload check combinations its parameters alone cannot.
    const drivers::DriverInfo* driver = drivers::FindDriver(result_.plan.target().driver());
    if (driver && result_.errors.size() == before) {
      workloads::WorkloadContext ctx;
      ctx.dialect = driver->dialect;
      ctx.flavor = result_.plan.target().flavor();
      ctx.total_workers = phase->workers() ? phase->workers() : 1;
      ctx.custom = &phase->custom();
      ctx.batch = std::max<uint32_t>(1, phase->batch());
      std::map<std::string, std::string> values(phase->params().begin(), phase->params().end());
      auto w = info->factory(ctx, workloads::Params(info->param_specs(), values));
      if (!w.ok()) Error(params ? params : p, at + ".params", w.status().message());
      drivers::OpRequest probe;
      const std::string why = w.ok() && phase->check_writes() ? (*w)->ReadBack(0, &probe) : "";
      if (!why.empty()) Error(p["check_writes"], at + ".check_writes", "cannot be checked: " + why);
      const std::string blocker = w.ok() && phase->pipeline() > 1 ? (*w)->PipelineBlocker() : "";
      if (!blocker.empty())
        Error(p["pipeline"], at + ".pipeline", "cannot pipeline " + phase->workload() + ": " + blocker);
      const std::string unbatched = w.ok() && phase->batch() > 1 ? (*w)->BatchBlocker() : "";
      if (!unbatched.empty()) Error(p["batch"], at + ".batch", "cannot batch " + phase->workload() + ": " + unbatched);
    }
  }

  void LoadParams(const YAML::Node& params, const std::string& at, const workloads::WorkloadInfo& info,
                  v1::Phase* phase) {
    const auto& specs = info.param_specs();
    std::vector<std::string> names;
    for (const ParamSpec& s : specs) names.push_back(s.name);
    for (auto it = params.begin(); it != params.end(); ++it) {
      std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
      std::string field = at + "." + key;
      auto spec = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == key; });
      if (spec == specs.end()) {
        std::string near = NearestWord(key, names);
        Error(it->first, field,
              "unknown parameter of workload " + info.name +
                  (near.empty() ? " (expected one of " + Join(names, ", ") + ")" : ", did you mean '" + near + "'?"));
        continue;
      }
      const YAML::Node v = it->second;
      const size_t errors_before = result_.errors.size();
      std::string value;
      switch (spec->type) {
        case ParamSpec::Type::kInt:
          value = std::to_string(UInt(v, field, spec->min, spec->max));
          break;
        case ParamSpec::Type::kDouble: {
          char buf[32];
          double d = Double(v, field, spec->min, spec->max, false);
          auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
          (void)ec;
          value.assign(buf, end);
          break;
        }
        case ParamSpec::Type::kBool: {
          bool b = false;
          if (!v.IsScalar() || !YAML::convert<bool>::decode(v, b)) {
            Error(v, field, "expected true or false, found " + Found(v));
          }
          value = b ? "true" : "false";
          break;
        }
        case ParamSpec::Type::kChoice:
          value = String(v, field);
          if (!value.empty() && std::find(spec->choices.begin(), spec->choices.end(), value) == spec->choices.end()) {
            Error(v, field, "expected one of " + Join(spec->choices, ", ") + ", found " + Quoted(value));
          }
          break;
        case ParamSpec::Type::kString:
          value = String(v, field);
          if (key == "table" && !value.empty() && !IsIdentifier(value)) {
            Error(v, field, "expected an identifier of up to 128 characters, found " + Quoted(value));
          }
          break;
      }
      // A rejected value is not kept: the workload's own checks and step
      // counts below then see its default, never a 0 it cannot divide by.
      if (result_.errors.size() == errors_before) (*phase->mutable_params())[key] = value;
    }
  }

  PlanLoadResult result_;
  CustomGrammar statements_;  // after result_: these read the plan
  FaultLoader faults_;
  size_t phase_errors_start_ = 0;  // errors before the phase being loaded
};

}  // namespace

PlanLoadResult LoadPlanText(const std::string& text, const std::string& file_name) {
  return Loader(file_name).Load(text);
}

PlanLoadResult LoadPlanFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    PlanLoadResult r;
    r.errors.push_back(path + ": cannot open plan file: " + std::strerror(errno));
    return r;
  }
  // Read one byte past the limit at most: a huge file (or /dev/zero) is
  // refused without being read whole.
  std::string text(kMaxPlanBytes + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(in.gcount()));
  if (in.bad()) {
    PlanLoadResult r;
    r.errors.push_back(path + ": cannot read plan file: " + std::strerror(errno));
    return r;
  }
  return LoadPlanText(text, path);
}

}  // namespace stampede::plan

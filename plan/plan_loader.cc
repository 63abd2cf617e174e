#include "plan/plan_loader.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstring>
#include <fstream>
#include <set>

#include "common/duration.h"
#include "common/strings.h"
#include "drivers/driver_registry.h"
#include "plan/agents_loader.h"
#include "plan/custom_grammar.h"
#include "plan/expect_loader.h"
#include "plan/fault_loader.h"
#include "plan/plan_limits.h"
#include "plan/plan_validator.h"
#include "plan/yaml_duplicates.h"
#include "plan/yaml_places.h"
#include "plan/yaml_reader.h"
#include "workloads/workload_registry.h"

namespace stampede::plan {
namespace {

using workloads::ParamSpec;

// The run's default timeout beyond its timed phases.
constexpr uint64_t kDefaultRunSlackMs = 3600 * 1000;

// What the readers write into, a base of Loader's so that it is built
// before YamlReader, which keeps pointers to it (a member would be built
// after every base).
struct LoaderOutput {
  PlanLoadResult result_;
  YamlPlaces yaml_places_;
};

class Loader : private LoaderOutput, public YamlReader {
 public:
  Loader(std::string file, PlanCheck extra)
      : YamlReader(file, &result_.errors, &yaml_places_),
        extra_(std::move(extra)),
        statements_(file, &result_.errors, &yaml_places_, result_.plan),
        faults_(file, &result_.errors, &yaml_places_, &result_.plan) {}

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
    if (root["nodes"] && !root["phases"]) {
      Error(root, "plan",
            "this is an agent's config (it has nodes:, no phases:), not a plan: `stampede validate --agent-config " +
                file() + "` checks it");
      return Finish();
    }
    for (const DuplicateKey& d : FindDuplicateKeys(root)) result_.errors.push_back(d.Message(file()));
    CheckKeys(root, "",
              {"name", "seed", "target", "agents", "phases", "retry", "faults", "recovery", "setup", "cleanup",
               "report", "timeout", "expect", "history"});
    auto& plan = result_.plan;
    plan.set_name(RequiredString(root, "name", "name"));
    plan.set_seed(root["seed"] ? UInt(root["seed"], "seed", 0, 18446744073709551616.0) : 1);
    LoadTarget(root);
    AgentsLoader(file(), &result_.errors, &yaml_places_, result_.plan.mutable_agents()).Load(root);
    LoadRetry(root);
    LoadPhases(root);
    faults_.LoadFaults(root);
    if (root["setup"]) statements_.LoadStatements(root["setup"], "setup", result_.plan.mutable_setup());
    if (root["cleanup"]) statements_.LoadStatements(root["cleanup"], "cleanup", result_.plan.mutable_cleanup());
    if (root["report"]) LoadReportOptions(root["report"]);
    if (root["history"]) LoadHistoryOptions(root["history"]);
    faults_.LoadRecovery(root);
    if (root["expect"]) ExpectLoader(file(), &result_.errors, &yaml_places_, &result_.plan).LoadExpect(root["expect"]);
    LoadRunTimeout(root);
    ReportProblems(root);
    return Finish();
  }

 private:
  PlanLoadResult Finish() { return std::move(result_); }

  // The plan's rules, checked on the protobuf plan as read, each problem at
  // the place its field was written. A field the reader already found wrong
  // (or one inside or around it) is not reported twice.
  void ReportProblems(const YAML::Node& root) {
    // An unknown key, or a repeated one (the first is read), changes
    // nothing that was read: it hides nothing.
    std::vector<std::string> reported;
    for (const std::string& e : result_.errors) {
      const std::string field = ErrorField(e);
      if (e.find(field + ": unknown key") == std::string::npos &&
          e.find(field + ": written twice") == std::string::npos) {
        reported.push_back(field);
      }
    }
    std::set<std::pair<std::string, std::string>> seen;  // a repeat's copies share their problems
    std::vector<PlanProblem> problems = ValidatePlan(result_.plan);
    // What the caller checks (the agents' configs) needs a plan that is
    // right in itself.
    if (extra_ && problems.empty() && result_.errors.empty()) problems = extra_(result_.plan);
    for (const PlanProblem& p : problems) {
      const YamlPlace place = yaml_places_.Locate(root, p.field);
      if (std::any_of(reported.begin(), reported.end(),
                      [&](const std::string& r) { return FieldsOverlap(r, place.field); })) {
        continue;
      }
      if (seen.insert({place.field, p.message}).second) Error(place.node, place.field, p.message);
    }
    // Top to bottom, as the user reads the plan.
    std::stable_sort(result_.errors.begin(), result_.errors.end(),
                     [&](const std::string& a, const std::string& b) { return ErrorPosition(a) < ErrorPosition(b); });
  }

  // (LINE, COL) of "FILE:LINE:COL: FIELD: message".
  std::pair<long, long> ErrorPosition(const std::string& error) const {
    const char* p = error.c_str() + std::min(error.size(), file().size() + 1);
    char* end = nullptr;
    const long line = std::strtol(p, &end, 10);
    const long col = *end == ':' ? std::strtol(end + 1, nullptr, 10) : 0;
    return {line, col};
  }

  // FIELD of "FILE:LINE:COL: FIELD: message".
  std::string ErrorField(const std::string& error) const {
    size_t at = file().size() + 1;
    at = error.find(": ", at);
    if (at == std::string::npos) return "";
    const size_t end = error.find(": ", at + 2);
    return error.substr(at + 2, end == std::string::npos ? std::string::npos : end - at - 2);
  }

  void LoadReportOptions(const YAML::Node& r) {
    if (!r.IsMap()) {
      Error(r, "report", "expected a mapping like {ns_per_op: true}, found " + Found(r));
      return;
    }
    CheckKeys(r, "report", {"ns_per_op", "hdr_log"});
    if (r["ns_per_op"]) result_.plan.mutable_report()->set_ns_per_op(Bool(r["ns_per_op"], "report.ns_per_op"));
    if (r["hdr_log"]) result_.plan.mutable_report()->set_hdr_log(Bool(r["hdr_log"], "report.hdr_log"));
  }

  // history: {window: 10}: the earlier runs a relative expectation's
  // median is taken over.
  void LoadHistoryOptions(const YAML::Node& h) {
    if (!h.IsMap()) {
      Error(h, "history", "expected a mapping like {window: 10}, found " + Found(h));
      return;
    }
    CheckKeys(h, "history", {"window"});
    if (h["window"]) result_.plan.mutable_history()->set_window(uint32_t(UInt(h["window"], "history.window", 1, 1000)));
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
               "balance", "session", "isolation", "health", "sentinel", "joining"});
    auto* target = result_.plan.mutable_target();
    target->set_driver(RequiredString(t, "driver", "target.driver"));
    const drivers::DriverInfo* info = drivers::FindDriver(target->driver());
    if (t["flavor"]) {
      target->set_flavor(String(t["flavor"], "target.flavor"));
    } else if (info) {
      target->set_flavor(info->flavors.front());
    }
    LoadEndpoints(t, "target", target->mutable_endpoints());
    if (YAML::Node j = t["joining"]; j && j.IsSequence()) {
      for (size_t i = 0; i < j.size(); ++i) {
        target->add_joining(String(j[i], "target.joining[" + std::to_string(i) + "]"));
      }
    } else if (j) {
      Error(j, "target.joining", "expected a list of host:port from target.endpoints, found " + Found(j));
    }
    if (t["user"]) target->set_user(String(t["user"], "target.user"));
    if (t["database"]) {
      // Redis databases are numbers; SQL databases are names.
      YAML::Node d = t["database"];
      target->set_database(d.IsScalar() ? d.Scalar() : String(d, "target.database"));
    }
    if (t["password_env"]) target->set_password_env(String(t["password_env"], "target.password_env"));
    target->set_connect_timeout_ms(t["connect_timeout"] ? DurationMs(t["connect_timeout"], "target.connect_timeout")
                                                        : 5000);
    target->set_op_timeout_ms(t["op_timeout"] ? DurationMs(t["op_timeout"], "target.op_timeout") : 10000);
    target->set_balance(t["balance"] ? String(t["balance"], "target.balance") : "round-robin");
    // any is the default, written as nothing.
    if (t["session"]) {
      const std::string session = String(t["session"], "target.session");
      target->set_session(session == "any" ? "" : session);
    }
    if (t["isolation"]) target->set_isolation(String(t["isolation"], "target.isolation"));
    if (t["sentinel"]) LoadSentinel(t["sentinel"], target->mutable_sentinel());
    faults_.LoadHealth(t);
  }

  // parent.endpoints: one host:port or a list of them.
  void LoadEndpoints(const YAML::Node& parent, const std::string& at,
                     google::protobuf::RepeatedPtrField<std::string>* into) {
    YAML::Node eps = parent["endpoints"];
    if (!eps) {
      Error(parent, at + ".endpoints", "missing (expected a list of host:port)");
    } else if (eps.IsScalar()) {
      into->Add(std::string(eps.Scalar()));
    } else if (eps.IsSequence() && eps.size() > 0) {
      for (size_t i = 0; i < eps.size(); ++i) {
        into->Add(String(eps[i], at + ".endpoints[" + std::to_string(i) + "]"));
      }
    } else {
      Error(eps, at + ".endpoints", "expected a list of host:port, found " + Found(eps));
    }
  }

  // target.sentinel: {master: NAME, endpoints: [host:port, ...]}.
  void LoadSentinel(const YAML::Node& n, v1::SentinelSpec* spec) {
    if (!n.IsMap()) {
      Error(n, "target.sentinel",
            "expected a mapping like {master: mymaster, endpoints: [host:26379]}, found " + Found(n));
      return;
    }
    CheckKeys(n, "target.sentinel", {"master", "endpoints", "password_env"});
    spec->set_master(RequiredString(n, "master", "target.sentinel.master"));
    LoadEndpoints(n, "target.sentinel", spec->mutable_endpoints());
    if (n["password_env"]) spec->set_password_env(String(n["password_env"], "target.sentinel.password_env"));
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
      retry->set_max_attempts(
          static_cast<uint32_t>(UInt(r["max_attempts"], "retry.max_attempts", 1, kMaxRetryAttempts)));
    }
    if (r["backoff"]) retry->set_backoff_ms(static_cast<uint32_t>(DurationMs(r["backoff"], "retry.backoff")));
  }

  // timeout: the whole run ends there at the latest. By default an hour
  // beyond the timed phases' durations.
  void LoadRunTimeout(const YAML::Node& root) {
    uint64_t timed_ms = 0;
    for (const v1::Phase& p : result_.plan.phases()) timed_ms += std::min(p.duration_ms(), uint64_t(kMaxDurationMs));
    result_.plan.set_timeout_ms(root["timeout"] ? uint64_t(DurationMs(root["timeout"], "timeout"))
                                                : timed_ms + kDefaultRunSlackMs);
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
    for (size_t i = 0; i < phases.size(); ++i) LoadPhase(phases[i], "phases[" + std::to_string(i) + "]");
  }

  void LoadPhase(const YAML::Node& p, const std::string& at) {
    v1::Phase* phase = result_.plan.add_phases();
    if (!p.IsMap()) {
      Error(p, at, "expected a mapping with name, workload and workers, found " + Found(p));
      return;
    }
    CheckKeys(p, at,
              {"name", "workload", "workers", "duration", "ops", "rate", "params", "stages", "think_time", "arrival",
               "setup", "cleanup", "custom", "timeout", "check_writes", "pipeline", "batch", "isolation"});
    phase->set_name(RequiredString(p, "name", at + ".name"));
    phase->set_workload(RequiredString(p, "workload", at + ".workload"));
    if (p["workers"]) phase->set_workers(uint32_t(UInt(p["workers"], at + ".workers", 1, kMaxWorkers)));
    if (p["duration"]) phase->set_duration_ms(DurationMs(p["duration"], at + ".duration"));
    if (p["ops"]) phase->set_ops(UInt(p["ops"], at + ".ops", 1, 1e18));
    if (p["rate"]) phase->set_rate(Double(p["rate"], at + ".rate", 0, kMaxRate, true));
    if (p["stages"]) LoadStages(p, at, phase);
    if (p["custom"]) statements_.LoadCustom(p["custom"], at + ".custom", phase->mutable_custom());
    if (p["setup"]) statements_.LoadStatements(p["setup"], at + ".setup", phase->mutable_setup());
    if (p["cleanup"]) statements_.LoadStatements(p["cleanup"], at + ".cleanup", phase->mutable_cleanup());
    LoadPacing(p, at, phase);
    LoadPhaseParams(p, at, phase);
  }

  // think_time, arrival, pipeline, batch and timeout: how the phase's
  // operations are paced and bounded.
  void LoadPacing(const YAML::Node& p, const std::string& at, v1::Phase* phase) {
    if (p["think_time"]) phase->set_think_time_ms(uint64_t(DurationMs(p["think_time"], at + ".think_time")));
    if (p["arrival"]) phase->set_arrival(String(p["arrival"], at + ".arrival"));
    if (p["check_writes"]) phase->set_check_writes(Bool(p["check_writes"], at + ".check_writes"));
    if (p["pipeline"]) phase->set_pipeline(uint32_t(UInt(p["pipeline"], at + ".pipeline", 1, kMaxPipeline)));
    // 1,000 rows x 4 columns stays under every server's limit on parameters
    // per statement (PostgreSQL: 65,535).
    if (p["batch"]) phase->set_batch(uint32_t(UInt(p["batch"], at + ".batch", 1, kMaxBatch)));
    if (p["timeout"]) phase->set_timeout_ms(uint64_t(DurationMs(p["timeout"], at + ".timeout")));
    if (p["isolation"]) phase->set_isolation(String(p["isolation"], at + ".isolation"));
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
    for (size_t i = 0; i < stages.size(); ++i) {
      const YAML::Node st = stages[i];
      const std::string sf = field + "[" + std::to_string(i) + "]";
      v1::Stage* out = phase->add_stages();
      if (!st.IsMap()) {
        Error(st, sf, "expected {duration: 5s, workers: N} or {duration: 5s, rate: R}, found " + Found(st));
        continue;
      }
      CheckKeys(st, sf, {"duration", "workers", "rate"});
      if (!st["duration"]) {
        Error(st, sf + ".duration", "missing (expected a duration like 5s)");
      } else {
        out->set_duration_ms(uint64_t(DurationMs(st["duration"], sf + ".duration")));
      }
      if (st["workers"].IsDefined() == st["rate"].IsDefined()) {
        Error(st, sf, "expected exactly one of workers (closed loop) or rate (open loop)");
      } else if (st["workers"]) {
        out->set_workers(uint32_t(UInt(st["workers"], sf + ".workers", 0, kMaxWorkers)));
        max_workers = std::max(max_workers, out->workers());
      } else {
        out->set_rate(Double(st["rate"], sf + ".rate", 0, kMaxRate, false));
      }
      total_ms += out->duration_ms();
    }
    phase->set_duration_ms(total_ms);
    if (!p["workers"]) phase->set_workers(max_workers);
  }

  void LoadPhaseParams(const YAML::Node& p, const std::string& at, v1::Phase* phase) {
    YAML::Node params = p["params"];
    if (!params) return;
    if (!params.IsMap()) {
      Error(params, at + ".params", "expected a mapping of workload parameters, found " + Found(params));
      return;
    }
    const workloads::WorkloadInfo* info = workloads::FindWorkload(phase->workload());
    if (info) LoadParams(params, at + ".params", *info, phase);
  }

  // Each value read as its spec's type, in the form workloads::Params
  // reads; a number out of its spec's range is refused here with the text
  // as written, the rest of the rules are plan_validator's.
  void LoadParams(const YAML::Node& params, const std::string& at, const workloads::WorkloadInfo& info,
                  v1::Phase* phase) {
    const auto& specs = info.param_specs();
    for (auto it = params.begin(); it != params.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
      const std::string field = at + "." + key;
      auto spec = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == key; });
      const YAML::Node v = it->second;
      const size_t errors_before = result_.errors.size();
      std::string value;
      if (spec == specs.end()) {
        value = v.IsScalar() ? v.Scalar() : "?";  // plan_validator names the workload's parameters
      } else if (spec->type == ParamSpec::Type::kInt) {
        value = std::to_string(UInt(v, field, spec->min, spec->max));
      } else if (spec->type == ParamSpec::Type::kDouble) {
        char buf[32];
        const double d = Double(v, field, spec->min, spec->max, false);
        auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
        (void)ec;
        value.assign(buf, end);
      } else if (spec->type == ParamSpec::Type::kBool) {
        value = Bool(v, field) ? "true" : "false";
      } else {
        value = String(v, field);
      }
      // A rejected value is not kept: the workload's own checks then see
      // its default, never a 0 it cannot divide by.
      if (result_.errors.size() == errors_before) (*phase->mutable_params())[key] = value;
    }
  }

  PlanCheck extra_;
  CustomGrammar statements_;  // after LoaderOutput: these read and fill it
  FaultLoader faults_;
};

}  // namespace

PlanLoadResult LoadPlanText(const std::string& text, const std::string& file_name, const PlanCheck& extra) {
  return Loader(file_name, extra).Load(text);
}

PlanLoadResult LoadPlanFile(const std::string& path, const PlanCheck& extra) {
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
  return LoadPlanText(text, path, extra);
}

}  // namespace stampede::plan

#include "plan/plan_validator.h"

#include <algorithm>
#include <sstream>

#include "common/duration.h"
#include "common/isolation.h"
#include "common/strings.h"
#include "drivers/driver_registry.h"
#include "plan/plan_checks.h"
#include "plan/plan_limits.h"
#include "plan/yaml_reader.h"

namespace stampede::plan {

bool PlanChecks::UInt(uint64_t v, const std::string& field, double min, double max) {
  if (double(v) >= min && double(v) <= max) return true;
  Add(field, ExpectedInteger(min, max) + std::to_string(v));
  return false;
}

bool PlanChecks::Double(double v, const std::string& field, double min, double max, bool exclusive_min) {
  if (v == v && v >= min && !(exclusive_min && v == min) && v <= max) return true;
  std::ostringstream found;
  found << v;
  Add(field, ExpectedNumber(min, max, exclusive_min) + found.str());
  return false;
}

bool PlanChecks::Duration(uint64_t ms, const std::string& field) {
  if (ms == 0) {
    Add(field, "expected a duration above zero, found 0s");
    return false;
  }
  if (ms > uint64_t(kMaxDurationMs)) {
    Add(field, "expected a duration up to 720h (30 days), found " + std::to_string(ms) + "ms");
    return false;
  }
  return true;
}

bool PlanChecks::OneOf(const std::string& v, const std::string& field, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return true;
  Add(field, "expected one of " + Join(allowed, ", ") + ", found " + Quoted(v));
  return false;
}

namespace {

// read-write: postgres (libpq target_session_attrs), mysql (@@read_only)
// and a single Redis node (ROLE) can tell a primary; a Redis Cluster
// routes to masters itself.
void CheckSession(PlanChecks& c, const drivers::DriverInfo* info) {
  const v1::Target& t = c.plan().target();
  if (t.session().empty()) return;
  if (t.session() != "read-write") {
    return c.Add("target.session", "expected any or read-write, found " + Quoted(t.session()));
  }
  const bool can =
      !info || info->name == "postgres" || info->name == "mysql" || (info->name == "redis" && t.flavor() == "redis");
  if (!can) c.Add("target.session", "read-write needs postgres, mysql or redis (flavor redis), not " + t.flavor());
}

// Only a level the flavor has: a session at another would run at something
// else than what the history is judged against.
void CheckIsolation(PlanChecks& c) {
  const v1::Target& t = c.plan().target();
  auto check = [&](const std::string& level, const std::string& at) {
    std::string why;
    if (level.empty() || !IsolationSql(level, t.flavor(), &why).empty()) return;
    c.Add(at, why + (why.rfind("expected", 0) == 0 ? ", found " + Quoted(level) : ""));
  };
  check(t.isolation(), "target.isolation");
  for (int i = 0; i < c.plan().phases_size(); ++i) {
    check(c.plan().phases(i).isolation(), "phases[" + std::to_string(i) + "].isolation");
  }
}

void CheckEndpoints(PlanChecks& c, const google::protobuf::RepeatedPtrField<std::string>& endpoints,
                    const std::string& at) {
  if (endpoints.empty()) return c.Add(at, "missing (expected a list of host:port)");
  if (size_t(endpoints.size()) > kMaxEndpoints) {
    return c.Add(at, "at most " + std::to_string(kMaxEndpoints) + " endpoints");
  }
  for (int i = 0; i < endpoints.size(); ++i) {
    std::string host;
    int port = 0;
    if (!SplitHostPort(endpoints[i], &host, &port)) {
      c.Add(at + "[" + std::to_string(i) + "]", "expected host:port, found " + Quoted(endpoints[i]));
    }
  }
}

// Sentinels name the master of a Redis (flavor redis) read-write session.
void CheckSentinel(PlanChecks& c, const drivers::DriverInfo* info) {
  const v1::Target& t = c.plan().target();
  if (!t.has_sentinel()) return;
  const v1::SentinelSpec& s = t.sentinel();
  if (info && (info->name != "redis" || t.flavor() != "redis")) {
    c.Add("target.sentinel", "Redis Sentinel needs driver redis, flavor redis, not " + t.flavor());
  } else if (t.session() != "read-write") {
    c.Add("target.sentinel", "needs session: read-write (the sentinels name the master a worker may write to)");
  }
  if (!IsNameOf(s.master(), "_.-")) {
    c.Add("target.sentinel.master",
          "expected the name the sentinels monitor (letters, digits, '_', '.', '-'), found " + Quoted(s.master()));
  }
  CheckEndpoints(c, s.endpoints(), "target.sentinel.endpoints");
  if (!s.password_env().empty() && !IsIdentifier(s.password_env())) {
    // Not echoed: it may be a password pasted in the wrong place.
    c.Add("target.sentinel.password_env",
          "expected the name of an environment variable ([A-Za-z_][A-Za-z0-9_]*); what was given is not shown, in case "
          "it is a password");
  }
}

// A Redis database is a number (SELECT n); a SQL database is a name.
void CheckDatabase(PlanChecks& c, const drivers::DriverInfo* info) {
  const std::string& db = c.plan().target().database();
  if (!info || info->name != "redis" || db.empty()) return;
  const bool digits =
      db.size() <= 5 && std::all_of(db.begin(), db.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  if (!digits || std::stoul(db) > kMaxRedisDatabase) {
    c.Add("target.database",
          "expected a Redis database number, 0 to " + std::to_string(kMaxRedisDatabase) + ", found " + Quoted(db));
  }
}

// target.joining: endpoints of nodes that join mid-run, listed in
// target.endpoints too; the run starts on the others.
void CheckJoining(PlanChecks& c) {
  const v1::Target& t = c.plan().target();
  if (t.joining().empty()) return;
  if (t.flavor() == "redis-cluster") {
    return c.Add("target.joining",
                 "not for redis-cluster: its workers route by slot and find a node that joins "
                 "through the slot map");
  }
  for (int i = 0; i < t.joining_size(); ++i) {
    if (std::find(t.endpoints().begin(), t.endpoints().end(), t.joining(i)) == t.endpoints().end()) {
      c.Add("target.joining[" + std::to_string(i) + "]",
            "expected one of target.endpoints (a joining node's endpoint is listed there too), found " +
                Quoted(t.joining(i)));
    }
  }
  const auto starting = std::count_if(t.endpoints().begin(), t.endpoints().end(), [&](const std::string& e) {
    return std::find(t.joining().begin(), t.joining().end(), e) == t.joining().end();
  });
  if (starting == 0) {
    c.Add("target.joining", "at least one of target.endpoints must not be joining: the run starts on those");
  }
}

void CheckTarget(PlanChecks& c) {
  const v1::Target& t = c.plan().target();
  const drivers::DriverInfo* info = drivers::FindDriver(t.driver());
  if (t.driver().empty()) {
    c.Add("target.driver", "missing (expected a string)");
  } else if (!info) {
    std::string near = NearestWord(t.driver(), drivers::DriverNames());
    c.Add("target.driver", "expected one of " + Join(drivers::DriverNames(), ", ") + ", found " + Quoted(t.driver()) +
                               (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  } else if (std::find(info->flavors.begin(), info->flavors.end(), t.flavor()) == info->flavors.end()) {
    c.Add("target.flavor", "expected one of " + Join(info->flavors, ", ") + " for driver " + info->name + ", found " +
                               Quoted(t.flavor()));
  }
  CheckEndpoints(c, t.endpoints(), "target.endpoints");
  CheckJoining(c);
  if (!t.password_env().empty() && !IsIdentifier(t.password_env())) {
    // Not echoed: it may be a password pasted in the wrong place.
    c.Add("target.password_env",
          "expected the name of an environment variable ([A-Za-z_][A-Za-z0-9_]*); what was given is not shown, in case "
          "it is a password");
  }
  CheckDatabase(c, info);
  c.Duration(t.connect_timeout_ms(), "target.connect_timeout");
  if (t.op_timeout_ms() > 0) c.Duration(t.op_timeout_ms(), "target.op_timeout");
  if (!t.balance().empty() && t.balance() != "round-robin" && t.balance() != "random" && t.balance() != "first-alive") {
    c.Add("target.balance", "expected round-robin, random or first-alive, found " + Quoted(t.balance()));
  }
  CheckSession(c, info);
  CheckIsolation(c);
  CheckSentinel(c, info);
  CheckHealth(c);
}

void CheckAgents(PlanChecks& c) {
  const v1::AgentsSpec& a = c.plan().agents();
  c.UInt(a.min(), "agents.min", 1, kMaxAgentsMin);
  if (a.wait_ms() > 0) c.Duration(a.wait_ms(), "agents.wait");
  if (!a.on_loss().empty() && a.on_loss() != "abort" && a.on_loss() != "continue" && a.on_loss() != "redistribute") {
    c.Add("agents.on_loss", "expected abort, continue or redistribute, found " + Quoted(a.on_loss()));
  }
  if (!a.split().empty() && a.split() != "capacity") {
    c.Add("agents.split", "expected even or capacity, found " + Quoted(a.split()));
  }
  if (!a.load().empty() && a.load() != "all") {
    c.Add("agents.load", "expected all, no-nodes or {labels: {role: load}}, found " + Quoted(a.load()));
  }
  if (a.load_labels_size() > 16) c.Add("agents.load.labels", "expected 1 to 16 labels like {role: load}");
  for (const auto& [key, value] : a.load_labels()) {
    if (!IsNameOf(key, "_.-/") || (!value.empty() && !IsNameOf(value, "_.-/"))) {
      c.Add("agents.load.labels",
            "expected names of letters, digits, '_', '.', '-' or '/', found " + Quoted(key + "=" + value));
    }
  }
}

void CheckRetryAndRecovery(PlanChecks& c) {
  const v1::Plan& plan = c.plan();
  c.UInt(plan.retry().max_attempts(), "retry.max_attempts", 1, kMaxRetryAttempts);
  if (plan.retry().backoff_ms() > 0) c.Duration(plan.retry().backoff_ms(), "retry.backoff");
  c.Duration(plan.recovery().baseline_ms(), "recovery.baseline");
  c.Duration(plan.recovery().hold_ms(), "recovery.hold");
  c.Double(plan.recovery().recovered_fraction(), "recovery.recovered_fraction", 0, 1, true);
  if (plan.recovery().balance_tolerance() != 0) {
    c.Double(plan.recovery().balance_tolerance(), "recovery.balance_tolerance", 0, 1, true);
  }
}

// timeout: the whole run ends there at the latest, never before its timed
// phases could.
void CheckRunTimeout(PlanChecks& c) {
  uint64_t timed_ms = 0;
  for (const v1::Phase& p : c.plan().phases()) timed_ms += std::min(p.duration_ms(), uint64_t(kMaxDurationMs) + 1);
  if (timed_ms > uint64_t(kMaxDurationMs)) {
    return c.Add("phases", "the phases' durations add up to more than 720h (30 days)");
  }
  const uint64_t ms = c.plan().timeout_ms();
  if (ms > 0 && ms < timed_ms) {
    c.Add("timeout", "expected at least the phases' durations (" + FormatDurationMs(timed_ms) + "), found " +
                         FormatDurationMs(ms));
  }
}

}  // namespace

std::vector<PlanProblem> ValidatePlan(const v1::Plan& plan) {
  std::vector<PlanProblem> problems;
  PlanChecks c(plan, &problems);
  if (plan.ByteSizeLong() > kMaxEncodedPlanBytes) {
    c.Add("plan", "larger than the limit of " + std::to_string(kMaxEncodedPlanBytes) + " bytes encoded");
    return problems;
  }
  if (plan.name().empty()) {
    c.Add("name", "missing (expected a string)");
  } else if (!IsNameOf(plan.name(), "_.-")) {
    c.Add("name", "expected up to 128 letters, digits, '.', '_' or '-', found " + Quoted(plan.name()));
  }
  CheckTarget(c);
  CheckAgents(c);
  CheckRetryAndRecovery(c);
  CheckPhases(c);
  CheckFaults(c);
  CheckExpect(c);
  c.UInt(plan.history().window(), "history.window", 0, 1000);
  CheckRunTimeout(c);
  return problems;
}

std::string FormatProblems(const std::vector<PlanProblem>& problems) {
  std::string out;
  for (const PlanProblem& p : problems) out += (out.empty() ? "" : "\n") + p.field + ": " + p.message;
  return out;
}

}  // namespace stampede::plan

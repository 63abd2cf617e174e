#include "agent/one_off_statements.h"

#include "common/isolation.h"
#include "common/strings.h"
#include "drivers/driver_registry.h"

namespace stampede::agent {

drivers::ConnectOptions ConnectOptionsFor(const PhaseRunnerOptions& o, int endpoint) {
  const v1::Target& t = o.plan.target();
  drivers::ConnectOptions c;
  SplitHostPort(t.endpoints(endpoint), &c.host, &c.port);
  c.user = t.user();
  c.password = o.password;
  c.database = t.database();
  c.flavor = t.flavor();
  c.connect_timeout_ms = static_cast<int>(t.connect_timeout_ms());
  c.session = t.session();
  const bool phase =
      o.phase_index < uint32_t(o.plan.phases_size()) && !o.plan.phases(int(o.phase_index)).isolation().empty();
  c.isolation =
      IsolationSql(phase ? o.plan.phases(int(o.phase_index)).isolation() : t.isolation(), t.flavor(), nullptr);
  c.op_timeout_ms = static_cast<int>(t.op_timeout_ms());
  c.sentinels.assign(t.sentinel().endpoints().begin(), t.sentinel().endpoints().end());
  c.sentinel_master = t.sentinel().master();
  c.sentinel_password = o.sentinel_password;
  return c;
}

Status RunOnce(const PhaseRunnerOptions& o, const std::vector<std::string>& statements, const std::string& what) {
  if (statements.empty()) return Status::Ok();
  const drivers::DriverInfo* info = drivers::FindDriver(o.plan.target().driver());
  if (!info) return Status::Error("unknown driver " + o.plan.target().driver());
  // One live endpoint is enough, whichever answers first.
  std::unique_ptr<drivers::Driver> d = info->factory(o.plan.target().flavor());
  Status s;
  for (int e = 0; e < o.plan.target().endpoints_size(); ++e) {
    s = d->Connect(ConnectOptionsFor(o, e));
    if (s.ok()) break;
  }
  if (!s.ok()) return s.WithContext(what + ": connect");
  for (const std::string& stmt : statements) {
    s = d->ExecuteOnce(stmt);
    if (!s.ok()) return s.WithContext(what);
  }
  return Status::Ok();
}

Status RunFinalCleanup(const PhaseRunnerOptions& o) {
  const v1::Plan& plan = o.plan;
  std::vector<std::string> cleanup;
  if (plan.phases_size() > 0) {
    const auto& last = plan.phases(plan.phases_size() - 1).cleanup();
    cleanup.assign(last.begin(), last.end());
  }
  cleanup.insert(cleanup.end(), plan.cleanup().begin(), plan.cleanup().end());
  return RunOnce(o, cleanup, "cleanup");
}

}  // namespace stampede::agent

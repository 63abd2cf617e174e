#include "agent/one_off_statements.h"

#include <cstdio>

#include "common/clock.h"
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

namespace {

// Says how far a counted setup is, once a second and at its end.
class ProgressLines {
 public:
  ProgressLines(const SetupProgress* p, const std::function<void(const std::string&)>& log) : p_(p), log_(log) {
    if (!p_) return;
    for (uint64_t n : p_->units) total_ += n;
  }
  void Before(size_t i) {
    if (Counted(i) && start_ns_ == 0) start_ns_ = last_ns_ = MonoNowNs();
  }
  void After(size_t i) {
    if (!Counted(i)) return;
    done_ += p_->units[i];
    const int64_t now = MonoNowNs();
    if (done_ < total_ && now - last_ns_ < kNsPerSec) return;
    last_ns_ = now;
    const double elapsed = double(now - start_ns_) / 1e9;
    char line[256];
    std::snprintf(line, sizeof(line), "%s %d%% (%s of %s %s", p_->label.c_str(), int(100 * done_ / total_),
                  Thousands(done_).c_str(), Thousands(total_).c_str(), p_->unit.c_str());
    std::string text = line;
    if (done_ < total_ && elapsed > 0) {
      std::snprintf(line, sizeof(line), ", %.1f s left", double(total_ - done_) / (double(done_) / elapsed));
      text += line;
    } else {
      std::snprintf(line, sizeof(line), " in %.1f s", elapsed);
      text += line;
    }
    if (log_) log_(text + ")");
  }

 private:
  bool Counted(size_t i) const { return p_ && log_ && total_ > 0 && i < p_->units.size() && p_->units[i] > 0; }
  const SetupProgress* p_;
  const std::function<void(const std::string&)>& log_;
  uint64_t total_ = 0, done_ = 0;
  int64_t start_ns_ = 0, last_ns_ = 0;
};

}  // namespace

Status RunOnce(const PhaseRunnerOptions& o, const std::vector<std::string>& statements, const std::string& what,
               const SetupProgress* progress) {
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
  ProgressLines lines(progress, o.on_log);
  for (size_t i = 0; i < statements.size(); ++i) {
    lines.Before(i);
    s = d->ExecuteOnce(statements[i]);
    if (!s.ok()) return s.WithContext(what);
    lines.After(i);
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

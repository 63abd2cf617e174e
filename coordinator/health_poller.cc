#include "coordinator/health_poller.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "common/clock.h"
#include "health/health_probe.h"

namespace stampede::coordinator {

void HealthPoller::Start(const v1::Target& t, int64_t run_start_ns) {
  if (t.health().kind().empty()) return;
  health::ProbeOptions o;
  o.kind = t.health().kind();
  o.urls.assign(t.health().urls().begin(), t.health().urls().end());
  o.endpoints.assign(t.endpoints().begin(), t.endpoints().end());
  o.user = t.user();
  o.database = t.database();
  o.expected_nodes = static_cast<int>(t.health().nodes());
  // Nodes that join during the run are not expected at its start.
  if (o.expected_nodes == 0 && t.joining_size() > 0) o.expected_nodes = t.endpoints_size() - t.joining_size();
  if (!t.password_env().empty()) {
    // The coordinator polls with its own copy of the secret.
    const char* pw = std::getenv(t.password_env().c_str());
    if (pw) {
      o.password = pw;
    } else {
      log_("health probe: " + t.password_env() + " is not set on the coordinator; polling without a password");
    }
  }
  auto probe = health::MakeHealthProbe(o);
  if (!probe.ok()) {
    log_("health probe: " + probe.status().message());
    return;
  }
  thread_ = std::thread([this, run_start_ns, p = std::shared_ptr<health::HealthProbe>(std::move(*probe))] {
    int last = -1;  // -1 unknown, 0 unhealthy, 1 healthy
    int64_t next = MonoNowNs();
    while (!stop_.load()) {
      // Stamped when the poll started: a poll that hangs until its timeout
      // (a paused node) says the cluster was unhealthy from then on.
      const double t = double(MonoNowNs() - run_start_ns) / 1e9;
      StatusOr<health::HealthReport> r = Status::Error("no poll");
      try {
        r = p->Poll();
      } catch (const std::exception& e) {
        // A response no parser could read is an unhealthy poll, not a crash.
        r = Status::Error(std::string("unreadable health response: ") + e.what());
      }
      record::HealthPoll poll;
      poll.t = t;
      poll.poll_s = double(MonoNowNs() - run_start_ns) / 1e9 - t;
      const bool healthy = r.ok() && r->healthy;
      poll.healthy = healthy;
      poll.answered = r.ok();
      if (r.ok()) {
        poll.underreplicated = uint64_t(std::max<int64_t>(0, r->underreplicated));
        poll.unavailable = uint64_t(std::max<int64_t>(0, r->unavailable));
        poll.live_nodes = uint64_t(std::max<int64_t>(0, r->live_nodes));
        poll.detail = r->detail;
        poll.share_unit = r->share_unit;
        poll.shares = r->shares;
      } else {
        poll.error = r.status().message();
      }
      emit_(poll);
      if (int(healthy) != last) {
        log_(std::string("cluster ") + (healthy ? "healthy" : "unhealthy") + ": " +
             (r.ok() ? r->detail : r.status().message()));
        last = healthy;
      }
      next += kNsPerSec;
      while (!stop_.load() && MonoNowNs() < next) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  });
}

void HealthPoller::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

}  // namespace stampede::coordinator

// PhaseRunner's connections: a worker's first, its reconnects after a loss
// (the next endpoint that answers, with back-off), a joining node's worker
// going home, and the turns that keep a loop's connection attempts to one
// endpoint to kMaxConnecting at a time.
// clang-format off
#include "agent/phase_runner.h"  // first: Boost 1.74's awaitable.hpp needs <utility> before it
// clang-format on

#include <algorithm>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "common/clock.h"

namespace stampede::agent {

drivers::Task<Status> PhaseRunner::ConnectTo(Worker* w, int endpoint, int64_t deadline) {
  return ConnectDriver(w, w->driver.get(), endpoint, deadline);
}

drivers::Task<Status> PhaseRunner::ConnectDriver(Worker* w, drivers::AsyncDriver* driver, int endpoint,
                                                 int64_t deadline) {
  // A connection attempt never outlasts the phase's hard stop, or the final
  // read's end for the final read.
  if (deadline == 0) deadline = hard_stop_mono_ns_;
  if (!co_await TakeConnectTurn(w, endpoint, deadline)) co_return Status::Error("stopped");
  drivers::ConnectOptions co = OptionsFor(endpoint);
  if (deadline != INT64_MAX) {
    const int64_t left_ms = (deadline - MonoNowNs()) / kNsPerMs;
    if (left_ms <= 0) {
      EndConnectTurn(w, endpoint);
      co_return Status::Error("stopped");
    }
    co.connect_timeout_ms = int(std::min<int64_t>(co.connect_timeout_ms, left_ms));
  }
  Status s = co_await driver->Connect(co);
  if (s.ok()) s = co_await driver->Prepare(workload_->statements());
  EndConnectTurn(w, endpoint);
  if (!s.ok()) driver->Close();
  co_return s;
}

drivers::Task<bool> PhaseRunner::TakeConnectTurn(Worker* w, int endpoint, int64_t deadline) {
  Loop& loop = *loops_[w->loop];
  std::deque<Worker*>& waiting = loop.waiting[size_t(endpoint)];
  if (give_up_connecting_.load()) co_return false;
  if (loop.connecting[size_t(endpoint)] < kMaxConnecting && waiting.empty()) {
    ++loop.connecting[size_t(endpoint)];
    co_return true;
  }
  w->connect_turn = false;
  waiting.push_back(w);
  // Woken by EndConnectTurn, the deadline, Cancel() or Run()'s start gate.
  while (!w->connect_turn && !Aborted() && !give_up_connecting_.load() && MonoNowNs() < deadline) {
    w->sleep->expires_at(AtMono(deadline));
    boost::system::error_code ec;
    co_await w->sleep->async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  }
  if (w->connect_turn) {  // counted in connecting by whoever handed it on
    if (!give_up_connecting_.load()) co_return true;
    EndConnectTurn(w, endpoint);  // handed on, to the next that gives up
    co_return false;
  }
  waiting.erase(std::find(waiting.begin(), waiting.end(), w));
  co_return false;
}

void PhaseRunner::EndConnectTurn(Worker* w, int endpoint) {
  Loop& loop = *loops_[w->loop];
  std::deque<Worker*>& waiting = loop.waiting[size_t(endpoint)];
  if (waiting.empty()) {
    --loop.connecting[size_t(endpoint)];
    return;
  }
  Worker* next = waiting.front();
  waiting.pop_front();
  next->connect_turn = true;
  next->sleep->cancel();
}

drivers::Task<void> PhaseRunner::MaybeGoHome(Worker* w) {
  const int64_t now = MonoNowNs();
  if (w->home < 0 || w->endpoint == w->home || now < w->next_home_ns) co_return;
  w->next_home_ns = now + kHomeRetryNs;
  std::unique_ptr<drivers::AsyncDriver> home =
      driver_info_->async_factory(options_.plan.target().flavor(), loops_[w->loop]->context.get_executor());
  const Status s = co_await ConnectDriver(w, home.get(), w->home);
  EndpointCounters& e = w->stats->endpoint(size_t(w->home));
  if (!s.ok()) {
    e.connect_failures.fetch_add(1, std::memory_order_relaxed);
    co_return;
  }
  w->driver->Close();
  w->driver = std::move(home);
  w->endpoint = w->home;
  e.reconnects.fetch_add(1, std::memory_order_relaxed);
}

drivers::Task<Status> PhaseRunner::ConnectFirst(Worker* w) {
  Status s = co_await ConnectTo(w, w->endpoint);
  if (s.ok()) co_return s;
  w->stats->endpoint(size_t(w->endpoint)).connect_failures.fetch_add(1, std::memory_order_relaxed);
  // The first phase insists on every endpoint answering (a typo in the plan
  // shows before anything runs); later phases may start while a node is
  // down after a fault, so a worker takes the next endpoint that answers. A
  // read-write session expects the standbys to refuse.
  // A joining node's endpoint need not answer yet: the worker goes there
  // once it does (MaybeGoHome).
  // Between phases a cluster may be in the middle of a failover, or slow
  // to take a burst of logins (a standby refuses a read-write session at
  // once; the leader's logins queue): rounds over every endpoint, with
  // back-off, for up to kConnectRoundsNs before the phase fails.
  const v1::Target& t = options_.plan.target();
  if (options_.phase_index > 0 || t.balance() == "first-alive" || !t.session().empty() || w->home >= 0) {
    w->next_home_ns = MonoNowNs() + kHomeRetryNs;
    const int64_t until = MonoNowNs() + kConnectRoundsNs;
    for (;;) {
      Status again = co_await Reconnect(w);
      if (again.ok()) co_return again;
      if (give_up_connecting_.load() || Aborted() || MonoNowNs() >= until) break;
      co_await SleepUntil(w, std::min(MonoNowNs() + NextBackoffNs(w), until));
    }
  }
  co_return s;
}

drivers::Task<void> PhaseRunner::AfterLoss(Worker* w) {
  w->stats->endpoint(size_t(w->endpoint)).lost.fetch_add(1, std::memory_order_relaxed);
  // A node that accepts connections but fails every operation (Galera
  // outside the primary component) must not be hammered: back off from
  // the second loss in a row.
  if (++w->failures > 1) co_await SleepUntil(w, std::min(MonoNowNs() + NextBackoffNs(w), deadline_mono_ns_));
  while (!Halted() && MonoNowNs() < deadline_mono_ns_) {
    MissOverdue(w);
    Status s = co_await Reconnect(w);
    if (s.ok()) break;
    ReportReconnectError(s.message());
    co_await SleepUntil(w, std::min(MonoNowNs() + NextBackoffNs(w), deadline_mono_ns_));
  }
}

drivers::Task<Status> PhaseRunner::Reconnect(Worker* w, int64_t deadline) {
  const int n = options_.plan.target().endpoints_size();
  Status last;
  for (int i = 1; i <= n && !Halted(); ++i) {
    const int e = (w->endpoint + i) % n;
    Status s = co_await ConnectTo(w, e, deadline);
    if (s.ok()) {
      w->endpoint = e;
      w->stats->endpoint(size_t(e)).reconnects.fetch_add(1, std::memory_order_relaxed);
      co_return s;
    }
    w->stats->endpoint(size_t(e)).connect_failures.fetch_add(1, std::memory_order_relaxed);
    last = s;
  }
  co_return last.ok() ? Status::Error("stopped") : last;
}

}  // namespace stampede::agent

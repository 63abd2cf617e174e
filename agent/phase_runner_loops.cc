// PhaseRunner's engine: the event loops, a worker's life on one, the
// watchdog that cuts overdue operations, the lag probe, and Run/Cancel.
// clang-format off
#include "agent/phase_runner.h"  // first: Boost 1.74's awaitable.hpp needs <utility> before it
// clang-format on

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <latch>

#include "common/clock.h"
#include "common/log.h"
#include "drivers/socket_waiter.h"

namespace stampede::agent {
namespace {

constexpr int64_t kStageTickNs = 20 * kNsPerMs;     // ramp granularity for waiting workers
constexpr int64_t kWatchdogTickNs = 10 * kNsPerMs;  // op_timeout's granularity
constexpr int64_t kProbeNs = 10 * kNsPerMs;         // the lag probe's period: 100 samples a second a loop

}  // namespace

std::chrono::steady_clock::time_point PhaseRunner::AtMono(int64_t mono_ns) {
  if (mono_ns == INT64_MAX) return std::chrono::steady_clock::time_point::max();
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(SteadyNsOfMono(mono_ns)));
}

PhaseRunner::~PhaseRunner() {
  Cancel();
  {
    MutexLock lock(mu_);
    while (!AllFinished()) cv_.wait(lock.native());
  }
  guards_.clear();
  for (auto& loop : loops_) loop->Wake();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

template <typename Fn>
void PhaseRunner::OnEachLoop(Fn fn) {
  for (auto& loop : loops_) {
    loop->Post([l = loop.get(), fn] {
      for (Worker* w : l->workers) fn(w);
    });
  }
}

Status PhaseRunner::Prepare() {
  // One loop per core (or --threads), never more than workers.
  size_t n = options_.threads > 0 ? size_t(options_.threads) : std::max(1u, std::thread::hardware_concurrency());
  n = std::max<size_t>(
      1, std::min<size_t>(
             n, ShareOf(phase_.workers(), options_.agent_index, options_.agent_count, options_.weights).count));
  std::vector<WorkerStats*> loop_stats;
  Status s = PrepareShare(
      [this] {
        workers_.push_back(std::make_unique<Worker>());
        return workers_.back().get();
      },
      // The workers of one loop share its stats: one writer thread.
      [&](size_t i) {
        if (loop_stats.size() < n) loop_stats.push_back(NewStats());
        return loop_stats[i % n];
      });
  if (!s.ok()) return s;
  for (size_t l = 0; l < n; ++l) {
    loops_.push_back(std::make_unique<Loop>());
    guards_.push_back(boost::asio::make_work_guard(loops_.back()->context));
    loops_.back()->watchdog = std::make_unique<boost::asio::steady_timer>(loops_.back()->context);
    loops_.back()->probe = std::make_unique<boost::asio::steady_timer>(loops_.back()->context);
    loops_.back()->stats = l < loop_stats.size() ? loop_stats[l] : nullptr;
    loops_.back()->connecting.assign(size_t(options_.plan.target().endpoints_size()), 0);
    loops_.back()->waiting.resize(size_t(options_.plan.target().endpoints_size()));
  }
  event_loops_ = int(n);
  for (size_t i = 0; i < workers_.size(); ++i) {
    Worker* w = workers_[i].get();
    w->loop = i % n;
    Loop& loop = *loops_[w->loop];
    w->slot = loop.workers.size();
    loop.workers.push_back(w);
    loop.cut_at.push_back(0);
    loop.running.fetch_add(1);
    auto ex = loops_[w->loop]->context.get_executor();
    w->driver = driver_info_->async_factory(options_.plan.target().flavor(), ex);
    w->sleep = std::make_unique<boost::asio::steady_timer>(ex);
    w->error.reserve(256);
    boost::asio::co_spawn(ex, WorkerMain(w), [this, w](std::exception_ptr e) {
      if (e) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          SLOG(kError) << "worker " << w->global << ": " << ex.what();
        }
      }
      Finished(w);
    });
  }
  for (auto& loop : loops_) {
    threads_.emplace_back([l = loop.get(), own = driver_info_->on_readiness_set, cpu = options_.cpu] {
      ThreadCpu::Scope counted(cpu);
      if (own) {
        boost::asio::use_service<drivers::ReadinessSet>(l->context).Run(l->context);
      } else {
        l->context.run();
      }
    });
    loop_threads_.push_back(threads_.back().native_handle());
  }
  MutexLock lock(mu_);
  while (prepared_ != static_cast<int>(workers_.size())) cv_.wait(lock.native());
  Status result = prepare_error_;
  lock.Unlock();
  if (!result.ok()) Cancel();
  return result;
}

void PhaseRunner::Finished(Worker* w) {
  // The loop's last worker ends its watchdog's wait (on the loop's thread).
  Loop& loop = *loops_[w->loop];
  if (loop.running.fetch_sub(1) == 1) {
    loop.watchdog->cancel();
    loop.probe->cancel();
  }
  {
    MutexLock lock(mu_);
    if (!w->prepared) {  // it ended before it could say
      w->prepared = true;
      ++prepared_;
      if (prepare_error_.ok()) prepare_error_ = Status::Error("worker " + std::to_string(w->global) + " failed");
    }
    w->finished = true;
  }
  cv_.notify_all();
}

bool PhaseRunner::AllFinished() const {
  return std::all_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->finished; });
}

drivers::Task<void> PhaseRunner::WorkerMain(Worker* w) {
  Status s = co_await ConnectFirst(w);
  bool first_error = false;
  {
    MutexLock lock(mu_);
    w->prepared = true;
    ++prepared_;
    if (!s.ok() && prepare_error_.ok()) {
      prepare_error_ = s;
      first_error = true;
      // Prepare fails with this error whatever the others find: the
      // workers still waiting for a connection turn give up now
      // (TakeConnectTurn), so an endpoint that never answers fails the
      // phase in one connect_timeout, not one per round of kMaxConnecting.
      // Set under the lock: a worker on another loop that failed too has
      // already handed its turn on, and the one it handed to runs after
      // that worker took this lock, so it must see the flag. (Set after
      // the lock, a preempted thread let a second round start.)
      give_up_connecting_.store(true);
    }
  }
  cv_.notify_all();
  if (first_error) OnEachLoop([](Worker* x) { x->sleep->cancel(); });
  if (!s.ok()) co_return;
  w->ops = workload_->MakeWorker(w->global);
  if (w->history) w->ops->SetHistory(w->history.get(), &w->endpoint);
  // The start gate: Run() or Cancel() wakes the timer.
  while (!gate_.load() && !Aborted()) {
    w->sleep->expires_at(std::chrono::steady_clock::time_point::max());
    boost::system::error_code ec;
    co_await w->sleep->async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  }
  if (!Aborted()) {
    SetActive(w, true);
    // Every agent starts at the same instant, closed loop included.
    const bool started = co_await SleepUntil(w, start_mono_ns_);
    if (started) {
      if (phase_.pipeline() > 1) {
        co_await RunPipelined(w);
      } else {
        co_await RunOps(w);
      }
    }
    ops_running_.fetch_sub(1);
    if (started) {
      if (w == workers_.front().get()) co_await FinalRead(w);
      std::string note = w->ops->Finish();
      if (!note.empty()) {
        note = "phase " + phase_.name() + ": " + note;
        SLOG(kInfo) << note;
        if (options_.on_log) options_.on_log(note);
      }
    }
    SetActive(w, false);
  }
  // The connection stays open until the phase's last operation is done
  // (CloseConnections): a server's session ending costs it work that would
  // slow the operations other workers still have in flight.
}

// Once the agent's other workers are done, within kFinalReadNs: on this
// worker's connection, and after a failure on the next endpoint that
// answers (a Galera node still syncing after a fault refuses reads with
// 1047 while the others serve).
drivers::Task<void> PhaseRunner::FinalRead(Worker* w) {
  drivers::OpRequest req;
  int op = w->ops->FinalRead(&req);
  if (op < 0) co_return;
  const int64_t until = MonoNowNs() + kFinalReadNs;
  while (ops_running_.load() > 0 && MonoNowNs() < until) {
    if (!co_await SleepUntil(w, MonoNowNs() + kStageTickNs)) co_return;
  }
  std::string why = "no endpoint answered";
  while (MonoNowNs() < until) {
    Status connected = Status::Ok();
    // (After the hard stop: a failover that ended after the phase still
    // gets its final read.)
    if (!w->driver->connected()) connected = co_await Reconnect(w, until);
    if (!connected.ok()) why = connected.message();
    if (connected.ok()) {
      loops_[w->loop]->cut_at[w->slot] = until;
      w->cut_fired = false;
      const drivers::OpResult r = co_await w->driver->Execute(req, &w->error);
      if (Disarm(w))
        w->error = "the final read's " + std::to_string(kFinalReadNs / kNsPerSec) + " s ran out; " + w->error;
      if (r.outcome == Outcome::kOk) {
        w->ops->Observe(op, r);
        if (w->ops->flagged()) w->stats->RecordAnomaly({w->ops->TakeFlag(), MonoNowNs(), w->endpoint, op, true});
        op = w->ops->FinalRead(&req);  // the next one, if the workload has more
        if (op < 0) co_return;
        continue;
      }
      why = w->error;
      w->driver->Close();  // the next try starts at the next endpoint
    }
    if (!co_await SleepUntil(w, std::min(MonoNowNs() + kFinalReadPauseNs, until))) co_return;
  }
  FinalReadNote(why);
}

void PhaseRunner::FinalReadNote(const std::string& why) const {
  const std::string note = "phase " + phase_.name() + ": the final read after the phase failed: " + why;
  SLOG(kWarn) << note;
  if (options_.on_log) options_.on_log(note);
}

drivers::Task<bool> PhaseRunner::SleepUntil(Worker* w, int64_t mono_ns) {
  if (Halted()) co_return false;
  if (MonoNowNs() >= mono_ns) co_return true;
  w->sleep->expires_at(AtMono(mono_ns));
  boost::system::error_code ec;
  co_await w->sleep->async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  co_return !Halted();
}

void PhaseRunner::Arm(Worker* w) {
  const int64_t at = op_timeout_ns_ > 0 ? MonoNowNs() + op_timeout_ns_ : INT64_MAX;
  loops_[w->loop]->cut_at[w->slot] = std::min(at, hard_stop_mono_ns_);
  w->cut_fired = false;
}

bool PhaseRunner::Disarm(Worker* w) {
  loops_[w->loop]->cut_at[w->slot] = 0;
  const bool fired = w->cut_fired;
  w->cut_fired = false;
  return fired;
}

void PhaseRunner::Watch(Loop* loop, int64_t hard_stop) {
  const int64_t now = MonoNowNs();
  // A cut armed after this scan comes no sooner than the horizon (Arm:
  // op_timeout from then, or the hard stop): sleep until the first cut
  // pending or the horizon, not a tick at a time.
  int64_t next = op_timeout_ns_ > 0 ? std::min(now + op_timeout_ns_, hard_stop) : hard_stop;
  std::vector<int64_t>& cut_at = loop->cut_at;
  for (size_t i = 0; i < cut_at.size(); ++i) {
    if (cut_at[i] == 0) continue;
    if (now < cut_at[i]) {
      next = std::min(next, cut_at[i]);
      continue;
    }
    cut_at[i] = 0;
    Worker* w = loop->workers[i];
    w->cut_fired = true;
    w->driver->Abort();
  }
  if (loop->running.load() == 0) return;
  // Cuts due within a tick of each other share a wake-up.
  loop->watchdog->expires_at(AtMono(std::max(next, now + kWatchdogTickNs)));
  loop->watchdog->async_wait([this, loop, hard_stop](const boost::system::error_code& ec) {
    if (!ec) Watch(loop, hard_stop);
  });
}

drivers::Task<void> PhaseRunner::RunOps(Worker* w) {
  WorkerSchedule& schedule = *w->schedule;
  const plan::StageSchedule& stages = schedule.stages();
  const bool open_loop = schedule.open_loop();
  // Ramped worker counts start workers in this order, interleaved across
  // agents so each agent carries its share during the ramp.
  const double rank = double(w->global - share_.first) * options_.agent_count + options_.agent_index;
  const int64_t think_ns = int64_t(phase_.think_time_ms()) * kNsPerMs;
  const bool paced = workload_->paced();
  const bool staged = stages.staged_workers();
  int64_t due;
  while (schedule.Next(&due)) {
    if (Aborted()) co_return;
    int64_t intended;
    if (open_loop) {
      intended = start_mono_ns_ + due;
      if (intended < join_mono_ns_) {
        DrawOp(w);  // another holder's: keep the workload's sequence
        continue;
      }
      co_await SleepUntil(w, std::min(intended, deadline_mono_ns_));
      const int64_t now = MonoNowNs();
      if (Halted() || now >= deadline_mono_ns_) co_return MissRest(w);
      if (now - intended > max_lag_ns_) {
        w->stats->Miss(DrawOp(w));
        continue;
      }
    } else {
      if (paced) co_await SleepUntil(w, std::min(MonoNowNs() + w->ops->PauseNs(), deadline_mono_ns_));
      intended = MonoNowNs();
      if (staged) {
        // Wait (not counted as active) until the ramp reaches this worker.
        while (intended < deadline_mono_ns_ && rank + 0.5 > stages.ValueAt(double(intended - start_mono_ns_) / 1e9)) {
          SetActive(w, false);
          if (!co_await SleepUntil(w, std::min(intended + kStageTickNs, deadline_mono_ns_))) break;
          intended = MonoNowNs();
        }
        SetActive(w, true);
      }
      if (Halted() || intended >= deadline_mono_ns_) co_return MissRest(w);
    }
    // Awaited here, not in a coroutine of its own: a frame less per
    // operation.
    int statements = 0;
    const int op = NextOp(w, &statements);
    uint32_t retries = 0;
    drivers::OpResult r;
    if (statements > 0) {
      r = co_await ExecuteTransaction(w, w->calls->data(), statements, &retries);
    } else if (statements == kInteractive) {
      r = co_await ExecuteTransaction(w, &w->req, kInteractive, &retries);
    } else if (statements == kSequence) {
      r = co_await ExecuteSequence(w, &retries);
    } else {
      do {
        // ExecuteStatement written out, and the driver's steps where it
        // has them: their frames would be two more per operation. A
        // retryable outcome goes on in Retry's.
        Arm(w);
        if (drivers::SocketWaiter* steps = w->driver->steps()) {
          bool done = w->driver->Begin(w->req, &r, &w->error);
          while (!done) {
            co_await steps->Pending();
            done = w->driver->Proceed(&r, &w->error);
          }
        } else {
          r = co_await w->driver->Execute(w->req, &w->error);
        }
        AfterAttempt(w);
        if (r.outcome == Outcome::kRetryable) r = co_await Retry(w, w->req, r, &retries);
      } while (r.outcome == Outcome::kOk && w->ops->More(&w->req));
    }
    Settle(w, op, r, intended, retries, MonoNowNs(), w->error);
    if (!w->driver->connected()) co_await AfterLoss(w);
    if (w->home >= 0) co_await MaybeGoHome(w);
    if (think_ns > 0 && !co_await SleepUntil(w, std::min(MonoNowNs() + think_ns, deadline_mono_ns_))) break;
  }
}

void PhaseRunner::Settle(Worker* w, int op, const drivers::OpResult& r, int64_t intended, uint32_t retries,
                         int64_t ended, const std::string& error) {
  w->stats->Record(op, r.outcome, static_cast<uint64_t>(ended - intended), retries, ended);
  if (r.rolled_back) w->stats->Rollback(op);
  if (r.disk_full) w->stats->DiskFull(op);
  if (r.outcome == Outcome::kOk) {
    const int served = r.endpoint >= 0 ? r.endpoint : (per_endpoint_ok_ ? w->endpoint : -1);
    if (served >= 0) w->stats->endpoint(size_t(served)).RecordOk(ended);
  }
  w->ops->Observe(op, r);
  if (w->ops->rows()) w->stats->Rows(op, w->ops->TakeRows());
  if (w->ops->flagged()) w->stats->RecordAnomaly({w->ops->TakeFlag(), ended, w->endpoint, op, false});
  if (r.outcome == Outcome::kOk) {
    w->failures = 0;
    if (w->backed_off) {  // the back-off's line stays cold otherwise
      w->backed_off = false;
      w->backoff.Reset();
    }
  } else {
    ReportError(op, r.outcome, error);
  }
}

int PhaseRunner::NextOp(Worker* w, int* statements) {
  // Multi-statement transactions: the workload fills txn_size requests;
  // per-op transactions (custom's txn: true) have up to kMaxTxnStatements.
  const int txn_size = workload_->transaction_size();
  *statements = 0;
  if (txn_size > 1) {
    if (!w->calls) w->calls = std::make_unique<std::array<drivers::OpRequest, kMaxTxnStatements>>();
    *statements = std::min(txn_size, kMaxTxnStatements);
    for (int i = 0; i < *statements; ++i) w->ops->Next(&(*w->calls)[size_t(i)]);
    return workload_->transaction_op();
  }
  const int op = w->ops->Next(&w->req);
  const int n = w->ops->TransactionSize();
  if (n == kInteractive) {
    *statements = driver_info_->dialect == drivers::Dialect::kRedis ? kSequence : kInteractive;
    return op;
  }
  if (n > 1 && n <= kMaxTxnStatements && driver_info_->dialect != drivers::Dialect::kRedis) {
    if (!w->calls) w->calls = std::make_unique<std::array<drivers::OpRequest, kMaxTxnStatements>>();
    *statements = n;
    (*w->calls)[0] = w->req;
    for (int i = 1; i < n; ++i) w->ops->More(&(*w->calls)[size_t(i)]);
  }
  return op;
}

void PhaseRunner::AfterAttempt(Worker* w) {
  if (Disarm(w)) w->error = TimeoutNote() + w->error;
}

drivers::Task<drivers::OpResult> PhaseRunner::ExecuteStatement(Worker* w, const drivers::OpRequest& req,
                                                               uint32_t* retries) {
  Arm(w);
  drivers::OpResult r = co_await w->driver->Execute(req, &w->error);
  AfterAttempt(w);
  if (r.outcome == Outcome::kRetryable) r = co_await Retry(w, req, r, retries);
  co_return r;
}

drivers::Task<drivers::OpResult> PhaseRunner::Retry(Worker* w, const drivers::OpRequest& req, drivers::OpResult r,
                                                    uint32_t* retries) {
  // Only a retryable outcome reads the clock: not every operation.
  for (uint32_t attempt = 1; r.outcome == Outcome::kRetryable; ++attempt) {
    if (!retry_.Again(r.outcome, attempt, w->driver->connected(), MonoNowNs(), deadline_mono_ns_)) break;
    ++*retries;
    if (!co_await SleepUntil(w, std::min(MonoNowNs() + retry_.BackoffNs(attempt, &w->jitter), deadline_mono_ns_))) {
      break;
    }
    Arm(w);
    r = co_await w->driver->Execute(req, &w->error);
    AfterAttempt(w);
  }
  co_return r;
}

void PhaseRunner::Run(int64_t start_coord_ns, int64_t join_coord_ns) {
  {
    MutexLock lock(mu_);
    SetTimes(start_coord_ns, join_coord_ns);
  }
  ops_running_.store(int(workers_.size()));
  gate_.store(true);
  // Wake every worker waiting at the gate; start the loops' watchdogs.
  OnEachLoop([](Worker* w) { w->sleep->cancel(); });
  if (op_timeout_ns_ > 0 || hard_stop_mono_ns_ != INT64_MAX) {
    for (auto& loop : loops_) {
      loop->Post([this, l = loop.get(), hs = hard_stop_mono_ns_] { Watch(l, hs); });
    }
  }
  for (auto& loop : loops_) {
    loop->Post([this, l = loop.get()] {
      l->probe_due = 0;
      Probe(l);
    });
  }
  CollectUntil(start_coord_ns);
  if (!check_writes()) CloseConnections();
}

int64_t PhaseRunner::LoopsCpuNs() const {
  int64_t sum = 0;
  for (pthread_t t : loop_threads_) {
    clockid_t clock;
    timespec ts;
    if (pthread_getcpuclockid(t, &clock) != 0 || clock_gettime(clock, &ts) != 0) {
      return -1;
    }
    sum += int64_t(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
  }
  return sum;
}

void PhaseRunner::Probe(Loop* loop) {
  const int64_t now = MonoNowNs();
  if (loop->probe_due && loop->stats) loop->stats->RecordLag(uint64_t(std::max<int64_t>(0, now - loop->probe_due)));
  if (loop->running.load(std::memory_order_relaxed) == 0 || Halted()) return;
  loop->probe_due = now + kProbeNs;
  loop->probe->expires_at(AtMono(loop->probe_due));
  loop->probe->async_wait([this, loop](const boost::system::error_code& ec) {
    if (!ec) Probe(loop);
  });
}

void PhaseRunner::CloseConnections() {
  std::latch closed(std::ptrdiff_t(loops_.size()));
  for (auto& loop : loops_) {
    loop->Post([l = loop.get(), &closed] {
      for (Worker* w : l->workers) w->driver->Close();
      closed.count_down();
    });
  }
  closed.wait();
}

void PhaseRunner::Cancel() {
  halt_.store(kAborted);
  // Whatever each worker waits for ends now: its sleep, or its operation.
  OnEachLoop([](Worker* w) {
    w->sleep->cancel();
    w->driver->Abort();
  });
}

}  // namespace stampede::agent

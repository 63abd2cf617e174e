#include "agent/thread_runner.h"

#include <sys/socket.h>

#include <algorithm>
#include <array>

#include "common/clock.h"
#include "common/log.h"

namespace stampede::agent {
namespace {

constexpr int64_t kMaxSleepSliceNs = 50 * kNsPerMs;
constexpr int64_t kFirstBackoffNs = 100 * kNsPerMs;
constexpr int64_t kWatchdogTickNs = 20 * kNsPerMs;
constexpr int kMaxTxnStatements = 16;
constexpr int64_t kStageTickNs = 20 * kNsPerMs;  // ramp granularity for waiting workers

}  // namespace

ThreadRunner::~ThreadRunner() {
  Cancel();
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
  if (watchdog_.joinable()) watchdog_.join();
}

Status ThreadRunner::Prepare() {
  Status s = PrepareShare(
      [this] {
        workers_.push_back(std::make_unique<Worker>());
        return workers_.back().get();
      },
      [this](size_t) { return NewStats(); });
  if (!s.ok()) return s;
  for (auto& w : workers_) {
    Worker* raw = w.get();
    raw->thread = std::thread([this, raw] { WorkerMain(raw); });
  }
  MutexLock lock(mu_);
  while (prepared_ != static_cast<int>(workers_.size())) cv_.wait(lock.native());
  Status result = prepare_error_;
  lock.Unlock();
  if (!result.ok()) Cancel();
  return result;
}

void ThreadRunner::WorkerMain(Worker* w) {
  // The driver lives and dies on this thread (the MySQL connector needs it).
  std::unique_ptr<drivers::Driver> driver = driver_info_->factory(options_.plan.target().flavor());
  Status s = driver->Connect(OptionsFor(w->endpoint));
  // The first phase insists on every endpoint answering (a typo in the plan
  // shows before anything runs); later phases may start while a node is
  // down after a fault, so a worker takes the next endpoint that answers.
  if (!s.ok()) w->stats->endpoint(w->endpoint).connect_failures.fetch_add(1, std::memory_order_relaxed);
  bool prepared = false;  // Reconnect() prepares too
  if (!s.ok() && (options_.phase_index > 0 || options_.plan.target().balance() == "first-alive")) {
    Status again = Reconnect(w, driver.get());
    if (again.ok()) s = again, prepared = true;
  }
  if (s.ok() && !prepared) s = driver->Prepare(workload_->statements());
  {
    MutexLock lock(mu_);
    ++prepared_;
    if (!s.ok() && prepare_error_.ok()) prepare_error_ = s;
  }
  cv_.notify_all();
  if (s.ok() && WaitForGate()) {
    SetActive(w, true);
    w->ops = workload_->MakeWorker(w->global);
    // Every agent starts at the same instant, closed loop included.
    if (SleepUntil(start_mono_ns_)) {
      RunOps(w, driver.get());
      std::string note = w->ops->Finish();
      if (!note.empty()) {
        note = "phase " + phase_.name() + ": " + note;
        SLOG(kInfo) << note;
        if (options_.on_log) options_.on_log(note);
      }
    }
    SetActive(w, false);
  }
  w->fd.store(-1);
  driver->Close();
  driver.reset();
  {
    MutexLock lock(mu_);
    w->finished = true;
  }
  cv_.notify_all();
}

void ThreadRunner::RunOps(Worker* w, drivers::Driver* driver) {
  WorkerSchedule& schedule = *w->schedule;
  const StageSchedule& stages = schedule.stages();
  const bool open_loop = schedule.open_loop();
  // Ramped worker counts start workers in this order, interleaved across
  // agents so each agent carries its share during the ramp.
  const double rank = double(w->global - share_.first) * options_.agent_count + options_.agent_index;
  const int64_t think_ns = int64_t(phase_.think_time_ms()) * kNsPerMs;
  std::string error;
  error.reserve(256);
  int64_t due;
  while (schedule.Next(&due)) {
    if (Aborted()) return;
    int64_t intended;
    if (open_loop) {
      intended = start_mono_ns_ + due;
      if (intended < join_mono_ns_) {
        DrawOp(w);  // another holder's: keep the workload's sequence
        continue;
      }
      SleepUntil(std::min(intended, deadline_mono_ns_));
      const int64_t now = MonoNowNs();
      if (Halted() || now >= deadline_mono_ns_) return MissRest(w);
      if (now - intended > max_lag_ns_) {
        w->stats->Miss(DrawOp(w));
        continue;
      }
    } else {
      intended = MonoNowNs();
      if (stages.staged_workers()) {
        // Wait (not counted as active) until the ramp reaches this worker.
        while (intended < deadline_mono_ns_ && rank + 0.5 > stages.ValueAt(double(intended - start_mono_ns_) / 1e9)) {
          SetActive(w, false);
          if (!SleepUntil(std::min(intended + kStageTickNs, deadline_mono_ns_))) break;
          intended = MonoNowNs();
        }
        SetActive(w, true);
      }
      if (Halted() || intended >= deadline_mono_ns_) return MissRest(w);
    }
    int op;
    uint32_t retries = 0;
    drivers::OpResult r = ExecuteOp(w, driver, &op, &retries, &error);
    const int64_t ended = MonoNowNs();
    w->stats->Record(op, r.outcome, static_cast<uint64_t>(ended - intended), retries, ended);
    w->ops->Observe(op, r);
    if (r.outcome == Outcome::kOk) {
      w->failures = 0;
      w->backoff_ns = kFirstBackoffNs;
    } else {
      ReportError(op, r.outcome, error);
    }
    if (!driver->connected()) {
      w->stats->endpoint(w->endpoint).lost.fetch_add(1, std::memory_order_relaxed);
      w->fd.store(-1);
      // A node that accepts connections but fails every operation (Galera
      // outside the primary component) must not be hammered: back off from
      // the second loss in a row.
      if (++w->failures > 1) BackOff(w);
      while (!Halted() && MonoNowNs() < deadline_mono_ns_) {
        MissOverdue(w);
        Status s = Reconnect(w, driver);
        if (s.ok()) break;
        ReportError(op, Outcome::kUnavailable, "reconnect: " + s.message());
        BackOff(w);
      }
    }
    if (think_ns > 0 && !SleepUntil(std::min(MonoNowNs() + think_ns, deadline_mono_ns_))) break;
  }
}

drivers::OpResult ThreadRunner::ExecuteOp(Worker* w, drivers::Driver* driver, int* op, uint32_t* retries,
                                          std::string* error) {
  // Multi-statement transactions: the workload fills txn_size requests;
  // per-op transactions (custom's txn: true) have up to kMaxTxnStatements.
  const int txn_size = workload_->transaction_size();
  auto* txn = dynamic_cast<drivers::TransactionalDriver*>(driver);
  std::array<drivers::OpRequest, kMaxTxnStatements> calls;
  int statements = 0;
  if (txn_size > 1 && txn) {
    statements = std::min(txn_size, kMaxTxnStatements);
    for (int i = 0; i < statements; ++i) w->ops->Next(&calls[size_t(i)]);
    *op = workload_->transaction_op();
  } else {
    *op = w->ops->Next(&w->req);
    const int n = w->ops->TransactionSize();
    if (n > 1 && txn && n <= kMaxTxnStatements) {
      statements = n;
      calls[0] = w->req;
      for (int i = 1; i < n; ++i) w->ops->More(&calls[size_t(i)]);
    }
  }
  if (statements > 0) return ExecuteTransaction(w, driver, txn, calls.data(), statements, retries, error);
  drivers::OpResult r = ExecuteStatement(w, driver, retries, error);
  while (r.outcome == Outcome::kOk && w->ops->More(&w->req)) r = ExecuteStatement(w, driver, retries, error);
  return r;
}

void ThreadRunner::Arm(Worker* w, drivers::Driver* driver, int64_t timeout_ns) {
  const int fd = driver->socket_fd();
  if (fd < 0) return;
  w->fd.store(fd, std::memory_order_relaxed);
  // Without op_timeout the operation is still armed, for the hard stop.
  w->op_deadline_ns.store(timeout_ns > 0 ? MonoNowNs() + timeout_ns : INT64_MAX, std::memory_order_release);
}

bool ThreadRunner::Disarm(Worker* w) {
  w->op_deadline_ns.store(0, std::memory_order_release);
  return w->timed_out.load(std::memory_order_relaxed) && w->timed_out.exchange(false);
}

drivers::OpResult ThreadRunner::ExecuteStatement(Worker* w, drivers::Driver* driver, uint32_t* retries,
                                                 std::string* error) {
  drivers::OpResult r;
  for (uint32_t attempt = 1;; ++attempt) {
    Arm(w, driver, op_timeout_ns_);
    r = driver->Execute(w->req, error);
    if (Disarm(w)) *error = TimeoutNote() + *error;
    if (!retry_.Again(r.outcome, attempt, driver->connected(), MonoNowNs(), deadline_mono_ns_)) break;
    ++*retries;
    if (!SleepUntil(std::min(MonoNowNs() + retry_.BackoffNs(attempt, &w->jitter), deadline_mono_ns_))) break;
  }
  return r;
}

// One transaction, its retries included, as one operation under one
// watchdog deadline; the same protocol as AsyncRunner::ExecuteTransaction.
drivers::OpResult ThreadRunner::ExecuteTransaction(Worker* w, drivers::Driver* driver,
                                                   drivers::TransactionalDriver* txn, const drivers::OpRequest* calls,
                                                   int n, uint32_t* retries, std::string* error) {
  drivers::OpResult r;
  std::string ignored;
  Arm(w, driver, op_timeout_ns_);
  bool in_txn = false;
  for (uint32_t attempt = 1;; ++attempt) {
    if (!in_txn) {
      r = txn->Control("BEGIN", false, error);
      if (r.outcome == Outcome::kOk && cockroach_) r = txn->Control("SAVEPOINT cockroach_restart", false, error);
      in_txn = r.outcome == Outcome::kOk;
    }
    int64_t rows = 0;
    for (int i = 0; i < n && r.outcome == Outcome::kOk; ++i) {
      r = driver->Execute(calls[i], error);
      rows += r.rows;
    }
    r.outcome = BeforeCommit(r.outcome);
    if (r.outcome == Outcome::kOk && cockroach_) r = txn->Control("RELEASE SAVEPOINT cockroach_restart", true, error);
    if (r.outcome == Outcome::kOk) r = txn->Control("COMMIT", true, error);
    if (r.outcome == Outcome::kOk) {
      r.rows = rows;
      break;
    }
    if (!driver->connected()) break;
    // The server-side transaction is aborted (or over, if COMMIT failed):
    // roll back to the savepoint to retry in place, or end it.
    const bool again = retry_.Again(r.outcome, attempt, true, MonoNowNs(), deadline_mono_ns_);
    bool in_place = false;
    if (cockroach_ && in_txn && again) {
      in_place = txn->Control("ROLLBACK TO SAVEPOINT cockroach_restart", false, &ignored).outcome == Outcome::kOk;
    }
    if (!in_place && driver->connected()) {
      (void)txn->Control("ROLLBACK", false, &ignored);
      in_txn = false;
    }
    if (!again || !driver->connected()) break;
    ++*retries;
    if (!SleepUntil(std::min(MonoNowNs() + retry_.BackoffNs(attempt, &w->jitter), deadline_mono_ns_))) {
      // Not retried after all (the deadline, a stop): end what stays open.
      if (in_txn && driver->connected()) (void)txn->Control("ROLLBACK", false, &ignored);
      break;
    }
  }
  if (Disarm(w)) *error = TimeoutNote() + *error;
  return r;
}

Status ThreadRunner::Reconnect(Worker* w, drivers::Driver* driver) {
  const int n = options_.plan.target().endpoints_size();
  Status last;
  for (int i = 1; i <= n && !Halted(); ++i) {
    const int e = (w->endpoint + i) % n;
    drivers::ConnectOptions co = OptionsFor(e);
    // A connection attempt never outlasts the phase's hard stop.
    const int64_t left_ms = (hard_stop_mono_ns_ - MonoNowNs()) / kNsPerMs;
    if (left_ms <= 0) break;
    co.connect_timeout_ms = int(std::min<int64_t>(co.connect_timeout_ms, left_ms));
    Status s = driver->Connect(co);
    if (s.ok()) {
      w->fd.store(driver->socket_fd());
      s = driver->Prepare(workload_->statements());
    }
    if (s.ok()) {
      w->endpoint = e;
      w->stats->endpoint(e).reconnects.fetch_add(1, std::memory_order_relaxed);
      return s;
    }
    w->stats->endpoint(e).connect_failures.fetch_add(1, std::memory_order_relaxed);
    w->fd.store(-1);
    driver->Close();
    last = s;
  }
  return last.ok() ? Status::Error("stopped") : last;
}

void ThreadRunner::BackOff(Worker* w) { SleepUntil(std::min(MonoNowNs() + NextBackoffNs(w), deadline_mono_ns_)); }

bool ThreadRunner::SleepUntil(int64_t mono_ns) {
  while (!Halted()) {
    int64_t now = MonoNowNs();
    if (now >= mono_ns) return true;
    SleepUntilMonoNs(std::min(mono_ns, now + kMaxSleepSliceNs));
  }
  return false;
}

bool ThreadRunner::WaitForGate() {
  MutexLock lock(mu_);
  while (!gate_open_) cv_.wait(lock.native());
  return !Aborted();
}

bool ThreadRunner::AllFinished() const {
  return std::all_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->finished; });
}

void ThreadRunner::WatchdogMain() {
  bool stopped = false;
  while (true) {
    if (Aborted()) {
      // Aborted: what is in flight is cut now, not at its timeout.
      for (auto& w : workers_) {
        int fd = w->fd.load();
        if (fd >= 0 && w->op_deadline_ns.exchange(0) != 0) ::shutdown(fd, SHUT_RDWR);
      }
      return;
    }
    {
      MutexLock lock(mu_);
      if (AllFinished()) return;
    }
    const int64_t now = MonoNowNs();
    if (!stopped && now >= hard_stop_mono_ns_) {
      // Past deadline + op_timeout: whatever is still in flight is cut.
      stopped = true;
      int expected = kRunning;
      halt_.compare_exchange_strong(expected, kStopping);
      for (auto& w : workers_) {
        int fd = w->fd.load();
        if (fd >= 0 && w->op_deadline_ns.exchange(0) != 0) {
          w->timed_out.store(true);
          ::shutdown(fd, SHUT_RDWR);
        }
      }
    }
    for (auto& w : workers_) {
      int64_t deadline = w->op_deadline_ns.load(std::memory_order_acquire);
      if (deadline == 0 || now < deadline) continue;
      int fd = w->fd.load();
      // Only the first overrun of an operation cuts the socket.
      if (fd >= 0 && w->op_deadline_ns.compare_exchange_strong(deadline, 0)) {
        w->timed_out.store(true);
        ::shutdown(fd, SHUT_RDWR);
      }
    }
    SleepUntilMonoNs(MonoNowNs() + kWatchdogTickNs);
  }
}

void ThreadRunner::Run(int64_t start_coord_ns, int64_t join_coord_ns) {
  {
    MutexLock lock(mu_);
    SetTimes(start_coord_ns, join_coord_ns);
    gate_open_ = true;
  }
  cv_.notify_all();
  if (op_timeout_ns_ > 0 || hard_stop_mono_ns_ != INT64_MAX) {
    watchdog_ = std::thread([this] { WatchdogMain(); });
  }
  CollectUntil(start_coord_ns);
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
  if (watchdog_.joinable()) watchdog_.join();
}

void ThreadRunner::Cancel() {
  halt_.store(kAborted);
  {
    MutexLock lock(mu_);
    gate_open_ = true;
  }
  cv_.notify_all();
}

}  // namespace stampede::agent

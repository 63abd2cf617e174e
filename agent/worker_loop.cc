// One worker's loop (see phase_runner.h): its schedule, executing each
// operation with retries and the op_timeout watchdog armed, reconnecting
// after a lost connection, and counting what it could not start as missed.
#include <sys/socket.h>

#include <algorithm>
#include <array>

#include "agent/phase_runner.h"
#include "agent/phase_runner_worker.h"
#include "common/clock.h"
#include "common/log.h"

namespace stampede::agent {

void PhaseRunner::RunLoop(Worker* w, drivers::Driver* driver) {
  std::unique_ptr<workloads::WorkerOps> ops = workload_->MakeWorker(w->global);
  // Every agent starts at the same instant, closed loop included.
  if (!SleepUntil(start_mono_ns_)) return;
  RunOps(w, driver, ops.get());
  std::string note = ops->Finish();
  if (!note.empty()) {
    note = "phase " + phase_.name() + ": " + note;
    SLOG(kInfo) << note;
    if (options_.on_log) options_.on_log(note);
  }
}

void PhaseRunner::RunOps(Worker* w, drivers::Driver* driver, workloads::WorkerOps* ops) {
  WorkerSchedule& schedule = *w->schedule;
  const StageSchedule& stages = schedule.stages();
  const bool open_loop = schedule.open_loop();
  // Ramped worker counts start workers in this order, interleaved across
  // agents so each agent carries its share during the ramp.
  const double rank = double(w->global - share_.first) * options_.agent_count + options_.agent_index;
  const int64_t think_ns = int64_t(phase_.think_time_ms()) * kNsPerMs;
  drivers::OpRequest req;
  std::string error;
  error.reserve(256);
  int64_t due;
  while (schedule.Next(&due)) {
    if (halt_.load(std::memory_order_relaxed) == kAborted) return;
    int64_t intended;
    if (open_loop) {
      intended = start_mono_ns_ + due;
      if (intended < join_mono_ns_) {
        DrawOp(ops, &req);  // another holder's: keep the workload's sequence
        continue;
      }
      SleepUntil(std::min(intended, deadline_mono_ns_));
      const int64_t now = MonoNowNs();
      if (Halted() || now >= deadline_mono_ns_) return MissRest(w, ops, &req);
      if (now - intended > max_lag_ns_) {
        w->stats->Miss(DrawOp(ops, &req));
        continue;
      }
    } else {
      intended = MonoNowNs();
      if (stages.staged_workers()) {
        // Wait (not counted as active) until the ramp reaches this worker.
        while (intended < deadline_mono_ns_ &&
               rank + 0.5 > stages.ValueAt(double(intended - start_mono_ns_) / 1e9)) {
          SetActive(w, false);
          if (!SleepUntil(std::min(intended + kStageTickNs, deadline_mono_ns_))) break;
          intended = MonoNowNs();
        }
        SetActive(w, true);
      }
      if (Halted() || intended >= deadline_mono_ns_) return MissRest(w, ops, &req);
    }
    int op;
    uint32_t retries = 0;
    drivers::OpResult r = ExecuteOp(w, driver, ops, &req, &op, &retries, &error);
    w->stats->Record(op, r.outcome, static_cast<uint64_t>(MonoNowNs() - intended), retries);
    ops->Observe(op, r);
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
        MissOverdue(w, ops, &req);
        Status s = Reconnect(w, driver);
        if (s.ok()) break;
        ReportError(op, Outcome::kUnavailable, "reconnect: " + s.message());
        BackOff(w);
      }
    }
    if (think_ns > 0 && !SleepUntil(std::min(MonoNowNs() + think_ns, deadline_mono_ns_))) break;
  }
}

drivers::OpResult PhaseRunner::ExecuteOp(Worker* w, drivers::Driver* driver,
                                         workloads::WorkerOps* ops, drivers::OpRequest* req,
                                         int* op, uint32_t* retries, std::string* error) {
  // Multi-statement transactions: the workload fills txn_size requests;
  // per-op transactions (custom's txn: true) have up to kMaxTxnStatements.
  const int txn_size = workload_->transaction_size();
  auto* txn_driver = dynamic_cast<drivers::TransactionalDriver*>(driver);
  drivers::RetryOptions retry;
  retry.max_attempts = std::max<uint32_t>(1, options_.plan.retry().max_attempts());
  retry.backoff_ns = int64_t(options_.plan.retry().backoff_ms()) * kNsPerMs;
  std::array<drivers::OpRequest, kMaxTxnStatements> calls;
  int statements = 0;
  if (txn_size > 1 && txn_driver) {
    statements = std::min(txn_size, kMaxTxnStatements);
    for (int i = 0; i < statements; ++i) ops->Next(&calls[size_t(i)]);
    *op = workload_->transaction_op();
  } else {
    *op = ops->Next(req);
    const int n = ops->TransactionSize();
    if (n > 1 && txn_driver && n <= kMaxTxnStatements) {
      statements = n;
      calls[0] = *req;
      for (int i = 1; i < n; ++i) ops->More(&calls[size_t(i)]);
    }
  }
  if (statements > 0) {
    // The whole transaction, its retries included, is one operation.
    Arm(w, driver, op_timeout_ns_);
    drivers::OpResult r = txn_driver->ExecuteTransaction(calls.data(), statements, retry, retries, error);
    if (Disarm(w)) *error = "timed out after " + std::to_string(op_timeout_ns_ / kNsPerMs) + " ms (op_timeout); " + *error;
    return r;
  }
  drivers::OpResult r = ExecuteWithRetries(w, driver, *req, retries, error);
  while (r.outcome == Outcome::kOk && ops->More(req)) {
    r = ExecuteWithRetries(w, driver, *req, retries, error);
  }
  return r;
}

int PhaseRunner::DrawOp(workloads::WorkerOps* ops, drivers::OpRequest* req) {
  const int txn_size = workload_->transaction_size();
  if (txn_size <= 1) return ops->Next(req);
  for (int i = 0; i < txn_size; ++i) ops->Next(req);
  return workload_->transaction_op();
}

void PhaseRunner::MissOverdue(Worker* w, workloads::WorkerOps* ops, drivers::OpRequest* req) {
  if (!w->schedule->open_loop() || max_lag_ns_ == INT64_MAX) return;
  const int64_t now = MonoNowNs();
  int64_t due;
  while (w->schedule->Peek(&due) && now - (start_mono_ns_ + due) > max_lag_ns_ &&
         start_mono_ns_ + due >= join_mono_ns_) {
    w->schedule->Next(&due);
    w->stats->Miss(DrawOp(ops, req));
  }
}

void PhaseRunner::MissRest(Worker* w, workloads::WorkerOps* ops, drivers::OpRequest* req) {
  if (halt_.load() == kAborted) return;
  if (!owes_) return;
  if (phase_.duration_ms() == 0 && phase_.timeout_ms() > 0) timed_out_.store(true);
  // The operation drawn last was not started either.
  std::vector<uint64_t> missed(w->stats->num_ops(), 0);
  uint64_t drawn = 1;
  missed[size_t(DrawOp(ops, req))]++;
  int64_t due;
  while (drawn < kMaxAttributed && w->schedule->Next(&due)) {
    missed[size_t(DrawOp(ops, req))]++;
    ++drawn;
  }
  // Past kMaxAttributed the ops are not drawn: split the rest as the drawn.
  const uint64_t owed = uint64_t(std::max<int64_t>(0, WorkerSchedule::Owed(
      phase_, options_.plan.seed(), options_.phase_index, w->global, WorkerSchedule::BudgetOf(phase_, w->global))));
  uint64_t rest = owed > w->schedule->issued() ? owed - w->schedule->issued() : 0;
  if (drawn < kMaxAttributed) rest = 0;
  uint64_t given = 0;
  for (size_t i = 0; i < missed.size(); ++i) {
    uint64_t share = static_cast<uint64_t>(double(rest) * double(missed[i]) / double(drawn));
    if (i + 1 == missed.size()) share = rest - given;
    given += share;
    if (missed[i] + share) w->stats->Miss(int(i), missed[i] + share);
  }
}

void PhaseRunner::Arm(Worker* w, drivers::Driver* driver, int64_t timeout_ns) {
  const int fd = driver->socket_fd();
  if (fd < 0) return;
  w->fd.store(fd, std::memory_order_relaxed);
  // Without op_timeout the operation is still armed, for the hard stop.
  w->op_deadline_ns.store(timeout_ns > 0 ? MonoNowNs() + timeout_ns : INT64_MAX,
                          std::memory_order_release);
}

bool PhaseRunner::Disarm(Worker* w) {
  w->op_deadline_ns.store(0, std::memory_order_release);
  return w->timed_out.load(std::memory_order_relaxed) && w->timed_out.exchange(false);
}

drivers::OpResult PhaseRunner::ExecuteWithRetries(Worker* w, drivers::Driver* driver,
                                                  const drivers::OpRequest& req,
                                                  uint32_t* retries, std::string* error) {
  const uint32_t max_attempts = std::max<uint32_t>(1, options_.plan.retry().max_attempts());
  int64_t backoff_ns = int64_t(options_.plan.retry().backoff_ms()) * kNsPerMs;
  drivers::OpResult r;
  for (uint32_t attempt = 1;; ++attempt) {
    Arm(w, driver, op_timeout_ns_);
    r = driver->Execute(req, error);
    if (Disarm(w)) {
      *error = "timed out after " + std::to_string(op_timeout_ns_ / kNsPerMs) + " ms (op_timeout); " + *error;
    }
    if (r.outcome != Outcome::kRetryable || attempt >= max_attempts || !driver->connected()) break;
    if (MonoNowNs() >= deadline_mono_ns_) break;  // no retry past the deadline
    ++*retries;
    // Exponential back-off with full jitter.
    int64_t sleep_ns = backoff_ns / 2 + static_cast<int64_t>(w->jitter.Uniform(uint64_t(backoff_ns / 2 + 1)));
    if (!SleepUntil(std::min(MonoNowNs() + sleep_ns, deadline_mono_ns_))) break;
    backoff_ns *= 2;
  }
  return r;
}

Status PhaseRunner::Reconnect(Worker* w, drivers::Driver* driver) {
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

void PhaseRunner::BackOff(Worker* w) {
  // Full jitter between half and all of the current back-off.
  int64_t sleep_ns = w->backoff_ns / 2 + static_cast<int64_t>(w->jitter.Uniform(uint64_t(w->backoff_ns / 2)));
  w->backoff_ns = std::min(w->backoff_ns * 2, kMaxBackoffNs);
  SleepUntil(std::min(MonoNowNs() + sleep_ns, deadline_mono_ns_));
}

}  // namespace stampede::agent

// PhaseRunner's transactions: a workload's fixed statements (a
// transaction_size above 1, custom's txn: true) and interactive ones, whose
// next statement the workload chooses from what the last one returned
// (WorkerOps::Continue: bank's transfer). Each transaction, its retries
// included, is one operation under one cut timer.
// clang-format off
#include "agent/phase_runner.h"  // first: Boost 1.74's awaitable.hpp needs <utility> before it
// clang-format on

#include "common/clock.h"

namespace stampede::agent {
namespace {

using Then = workloads::WorkerOps::Then;

// An interactive transaction ends within this many statements, whatever its
// workload says.
constexpr int kMaxInteractiveSteps = 64;

}  // namespace

// The statements of one attempt, inside the open transaction. Interactive
// (n == kInteractive): calls is Next()'s statement; the rest come from
// Continue. Sets *rollback when the workload ends it with a rollback.
drivers::Task<drivers::OpResult> PhaseRunner::TransactionBody(Worker* w, const drivers::OpRequest* calls, int n,
                                                              int64_t* rows, bool* rollback) {
  drivers::AsyncDriver& d = *w->driver;
  drivers::OpResult r;
  *rows = 0;
  *rollback = false;
  if (n > 0) {
    for (int i = 0; i < n && r.outcome == Outcome::kOk; ++i) {
      r = co_await d.Execute(calls[i], &w->error);
      *rows += r.rows;
    }
    co_return r;
  }
  const drivers::OpRequest* req = calls;
  for (int step = 1;; ++step) {
    r = co_await d.Execute(*req, &w->error);
    *rows += r.rows;
    if (r.outcome != Outcome::kOk) co_return r;
    const Then then = w->ops->Continue(step, r, &w->next);
    if (then != Then::kNext || step >= kMaxInteractiveSteps) {
      *rollback = then == Then::kRollback;
      co_return r;
    }
    req = &w->next;
  }
}

// CockroachDB's client-side protocol: a retryable error rolls back to
// SAVEPOINT cockroach_restart and the statements run again in the same
// transaction; elsewhere the transaction starts over. Lost during COMMIT:
// ambiguous.
drivers::Task<drivers::OpResult> PhaseRunner::ExecuteTransaction(Worker* w, const drivers::OpRequest* calls, int n,
                                                                 uint32_t* retries) {
  drivers::AsyncDriver& d = *w->driver;
  drivers::OpResult r;
  Arm(w);
  bool in_txn = false;
  for (uint32_t attempt = 1;; ++attempt) {
    if (!in_txn) {
      r = co_await d.Control("BEGIN", false, &w->error);
      if (r.outcome == Outcome::kOk && cockroach_)
        r = co_await d.Control("SAVEPOINT cockroach_restart", false, &w->error);
      in_txn = r.outcome == Outcome::kOk;
    }
    int64_t rows = 0;
    bool rollback = false;
    if (r.outcome == Outcome::kOk) r = co_await TransactionBody(w, calls, n, &rows, &rollback);
    if (r.outcome == Outcome::kOk && rollback) {
      // The workload's own rollback: the operation is done, nothing written.
      r = co_await d.Control("ROLLBACK", false, &w->error);
      r.rolled_back = r.outcome == Outcome::kOk;
      if (r.rolled_back) break;
    }
    r.outcome = BeforeCommit(r.outcome);
    if (r.outcome == Outcome::kOk && cockroach_)
      r = co_await d.Control("RELEASE SAVEPOINT cockroach_restart", true, &w->error);
    if (r.outcome == Outcome::kOk) r = co_await d.Control("COMMIT", true, &w->error);
    if (r.outcome == Outcome::kOk) {
      r.rows = rows;
      break;
    }
    if (!d.connected()) break;
    // The server-side transaction is aborted (or over, if COMMIT failed):
    // roll back to the savepoint to retry in place, or end it.
    const bool again = retry_.Again(r.outcome, attempt, true, MonoNowNs(), deadline_mono_ns_);
    std::string ignored;
    bool in_place = false;
    if (cockroach_ && in_txn && again) {
      in_place =
          (co_await d.Control("ROLLBACK TO SAVEPOINT cockroach_restart", false, &ignored)).outcome == Outcome::kOk;
    }
    if (!in_place && d.connected()) {
      (void)co_await d.Control("ROLLBACK", false, &ignored);
      in_txn = false;
    }
    if (!again || !d.connected()) break;
    ++*retries;
    if (!co_await SleepUntil(w, std::min(MonoNowNs() + retry_.BackoffNs(attempt, &w->jitter), deadline_mono_ns_))) {
      // Not retried after all (the deadline, a stop): end what stays open.
      if (in_txn && d.connected()) (void)co_await d.Control("ROLLBACK", false, &ignored);
      break;
    }
  }
  if (Disarm(w)) w->error = TimeoutNote() + w->error;
  co_return r;
}

// Redis has no interactive transaction: the statements run in turn, each
// retried on its own (a careless client's read-then-write).
drivers::Task<drivers::OpResult> PhaseRunner::ExecuteSequence(Worker* w, uint32_t* retries) {
  drivers::OpResult r = co_await ExecuteStatement(w, w->req, retries);
  for (int step = 1; r.outcome == Outcome::kOk && step < kMaxInteractiveSteps; ++step) {
    const Then then = w->ops->Continue(step, r, &w->next);
    if (then != Then::kNext) break;
    r = co_await ExecuteStatement(w, w->next, retries);
  }
  co_return r;
}

}  // namespace stampede::agent

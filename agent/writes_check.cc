// AsyncRunner::CheckWrites: after a phase with check_writes, each worker
// reads back the inserts its operations acknowledged or left ambiguous
// (workloads/write_ledger.h), on its own event loop and a fresh connection,
// each read under op_timeout and the whole check under one deadline. An
// acknowledged insert not found is read again a second later before it
// counts as lost (a replica may apply a commit a moment after it was
// acknowledged); what the deadline leaves unread, or a database that
// answers no read, is counted as unchecked.
// clang-format off
#include "agent/async_runner.h"  // first: Boost 1.74's awaitable.hpp needs <utility> before it
// clang-format on

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>

#include "common/clock.h"
#include "common/log.h"

namespace stampede::agent {
namespace {

constexpr int kReadAttempts = 3;
constexpr int64_t kRetryPauseNs = 100 * kNsPerMs;
constexpr int64_t kRecheckDelayNs = kNsPerSec;
constexpr int kMaxLostIds = 20;
// A worker whose reads failed for this many ids in a row gives up: the
// database is not answering, and the rest is counted as unchecked.
constexpr int kGiveUpAfter = 3;

}  // namespace

v1::WritesCheck AsyncRunner::CheckWrites(int64_t budget_ns) {
  v1::WritesCheck out;
  drivers::OpRequest probe;
  const std::string why = workload_->ReadBack(0, &probe);
  out.set_supported(why.empty());
  if (!why.empty()) {
    out.set_note(why);
    return out;
  }
  // Connections and reads are bounded by the check's deadline as the
  // phase's were by its hard stop; the loops' watchdogs run again.
  hard_stop_mono_ns_ = MonoNowNs() + budget_ns;
  std::vector<WorkerCheck> checks(workers_.size());
  {
    MutexLock lock(mu_);
    for (auto& w : workers_) w->finished = false;
  }
  for (auto& loop : loops_) loop->running.store(int(loop->workers.size()));
  for (auto& loop : loops_) boost::asio::post(loop->context, [this, l = loop.get()] { Watch(l); });
  for (size_t i = 0; i < workers_.size(); ++i) {
    Worker* w = workers_[i].get();
    boost::asio::co_spawn(loops_[w->loop]->context, CheckWorker(w, &checks[i]), [this, w](std::exception_ptr e) {
      if (e) SLOG(kError) << "worker " << w->global << ": its writes check failed";
      loops_[w->loop]->running.fetch_sub(1);
      Finished(w);
    });
  }
  {
    MutexLock lock(mu_);
    while (!AllFinished()) cv_.wait(lock.native());
  }
  for (const WorkerCheck& c : checks) {
    out.set_acked(out.acked() + c.acked);
    out.set_lost(out.lost() + c.lost);
    out.set_ambiguous(out.ambiguous() + c.ambiguous);
    out.set_ambiguous_found(out.ambiguous_found() + c.ambiguous_found);
    out.set_unchecked(out.unchecked() + c.unchecked);
    for (int64_t id : c.lost_ids) {
      if (out.lost_ids_size() < kMaxLostIds) out.add_lost_ids(id);
    }
    if (out.note().empty() && !c.why_unchecked.empty()) out.set_note(c.why_unchecked);
  }
  return out;
}

drivers::Task<void> AsyncRunner::CheckWorker(Worker* w, WorkerCheck* c) {
  const workloads::WriteLedger* ledger = w->ops ? w->ops->writes() : nullptr;
  if (!ledger) co_return;
  std::vector<uint64_t> absent;  // acknowledged, not found at the first read
  int failed_in_a_row = 0;
  for (uint64_t k = 0; k < ledger->end(); ++k) {
    const bool acked = ledger->acked(k);
    if (!acked && !ledger->ambiguous(k)) continue;
    ++(acked ? c->acked : c->ambiguous);
    Found found = Found::kUnknown;
    if (failed_in_a_row < kGiveUpAfter) found = co_await ReadBack(w, ledger->Id(k));
    if (found == Found::kUnknown) {
      ++c->unchecked;
      ++failed_in_a_row;
      if (c->why_unchecked.empty()) c->why_unchecked = Aborted() ? "the run was aborted" : w->error;
      continue;
    }
    failed_in_a_row = 0;
    if (!acked) {
      if (found == Found::kYes) ++c->ambiguous_found;
    } else if (found == Found::kNo) {
      absent.push_back(k);
    }
  }
  if (!absent.empty()) co_await SleepUntil(w, std::min(MonoNowNs() + kRecheckDelayNs, hard_stop_mono_ns_));
  for (uint64_t k : absent) {
    const Found found = co_await ReadBack(w, ledger->Id(k));
    if (found == Found::kNo) {
      ++c->lost;
      if (c->lost_ids.size() < size_t(kMaxLostIds)) c->lost_ids.push_back(ledger->Id(k));
    } else if (found == Found::kUnknown) {
      ++c->unchecked;
    }
  }
  w->driver->Close();
}

drivers::Task<AsyncRunner::Found> AsyncRunner::ReadBack(Worker* w, int64_t id) {
  drivers::OpRequest req;
  workload_->ReadBack(id, &req);
  w->error.clear();
  for (int attempt = 1; attempt <= kReadAttempts; ++attempt) {
    if (Aborted() || MonoNowNs() >= hard_stop_mono_ns_) break;
    if (attempt > 1) co_await SleepUntil(w, std::min(MonoNowNs() + kRetryPauseNs, hard_stop_mono_ns_));
    if (!w->driver->connected()) {
      Status s = co_await ConnectTo(w, w->endpoint);
      if (!s.ok()) s = co_await Reconnect(w);
      if (!s.ok()) {
        w->error = s.message();
        continue;
      }
    }
    Arm(w);
    const drivers::OpResult r = co_await w->driver->Execute(req, &w->error);
    if (Disarm(w)) w->error = TimeoutNote() + w->error;
    if (r.outcome == Outcome::kOk) co_return r.rows > 0 ? Found::kYes : Found::kNo;
  }
  if (w->error.empty()) w->error = "the check's deadline passed";
  co_return Found::kUnknown;
}

}  // namespace stampede::agent

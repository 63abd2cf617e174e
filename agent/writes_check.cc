// PhaseRunner::CheckWrites: after a phase with check_writes, each worker
// reads back the inserts its operations acknowledged or left ambiguous
// (workloads/write_ledger.h), on its own event loop and the phase's
// connection (a fresh one with target.sentinel), each read under
// op_timeout and the whole check under one deadline. An acknowledged or
// ambiguous insert not found is read again a second later before it
// counts as lost or not committed (a replica may apply a commit a moment
// after it was acknowledged); then the inserts that failed are read once,
// and any found is a row beyond acknowledged + ambiguous: an outcome the
// run got wrong. What the deadline leaves unread, or a database that
// answers no read, is counted as unchecked.
// clang-format off
#include "agent/phase_runner.h"  // first: Boost 1.74's awaitable.hpp needs <utility> before it
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
constexpr int kGiveUpAfter = 3;

}  // namespace

v1::WritesCheck PhaseRunner::CheckWrites(int64_t budget_ns) {
  v1::WritesCheck out;
  drivers::OpRequest probe;
  const std::string why = workload_->ReadBack(0, &probe);
  out.set_supported(why.empty());
  if (!why.empty()) {
    CloseConnections();
    out.set_note(why);
    return out;
  }
  // The phase's connections are reused, except where sentinels name the
  // master: a node they deposed still says master to ROLE and still has
  // the inserts acknowledged there, which its demotion will throw away. A
  // fresh connection reads the master they name now.
  if (options_.plan.target().has_sentinel()) CloseConnections();
  // Connections and reads are bounded by the check's deadline as the
  // phase's were by its hard stop; the loops' watchdogs run again.
  hard_stop_mono_ns_ = MonoNowNs() + budget_ns;
  std::vector<WorkerCheck> checks(workers_.size());
  {
    MutexLock lock(mu_);
    for (auto& w : workers_) w->finished = false;
  }
  for (auto& loop : loops_) loop->running.store(int(loop->workers.size()));
  for (auto& loop : loops_) {
    loop->Post([this, l = loop.get(), hs = hard_stop_mono_ns_] { Watch(l, hs); });
  }
  for (size_t i = 0; i < workers_.size(); ++i) {
    Worker* w = workers_[i].get();
    boost::asio::co_spawn(loops_[w->loop]->context, CheckWorker(w, &checks[i]), [this, w](std::exception_ptr e) {
      if (e) SLOG(kError) << "worker " << w->global << ": its writes check failed";
      Finished(w);
    });
  }
  for (auto& loop : loops_) loop->Wake();  // co_spawn posts from this thread
  {
    MutexLock lock(mu_);
    while (!AllFinished()) cv_.wait(lock.native());
  }
  CloseConnections();
  for (const WorkerCheck& c : checks) {
    out.set_acked(out.acked() + c.acked);
    out.set_lost(out.lost() + c.lost);
    out.set_ambiguous(out.ambiguous() + c.ambiguous);
    out.set_ambiguous_found(out.ambiguous_found() + c.ambiguous_found);
    out.set_unchecked(out.unchecked() + c.unchecked);
    out.set_failed(out.failed() + c.failed);
    out.set_failed_found(out.failed_found() + c.failed_found);
    for (int64_t id : c.lost_ids) {
      if (out.lost_ids_size() < kMaxLostIds) out.add_lost_ids(id);
    }
    for (int64_t id : c.failed_found_ids) {
      if (out.failed_found_ids_size() < kMaxLostIds) out.add_failed_found_ids(id);
    }
    if (out.note().empty() && !c.why_unchecked.empty()) out.set_note(c.why_unchecked);
  }
  return out;
}

void PhaseRunner::AddWritesCheck(const v1::WritesCheck& from, v1::WritesCheck* into) {
  if (!from.supported()) return;
  into->set_acked(into->acked() + from.acked());
  into->set_lost(into->lost() + from.lost());
  into->set_ambiguous(into->ambiguous() + from.ambiguous());
  into->set_ambiguous_found(into->ambiguous_found() + from.ambiguous_found());
  into->set_unchecked(into->unchecked() + from.unchecked());
  into->set_failed(into->failed() + from.failed());
  into->set_failed_found(into->failed_found() + from.failed_found());
  for (int64_t id : from.lost_ids()) {
    if (into->lost_ids_size() < kMaxLostIds) into->add_lost_ids(id);
  }
  for (int64_t id : from.failed_found_ids()) {
    if (into->failed_found_ids_size() < kMaxLostIds) into->add_failed_found_ids(id);
  }
  if (into->note().empty()) into->set_note(from.note());
}

drivers::Task<void> PhaseRunner::CheckWorker(Worker* w, WorkerCheck* c) {
  const workloads::WriteLedger* ledger = w->ops ? w->ops->writes() : nullptr;
  if (!ledger) co_return;
  std::vector<uint64_t> absent;  // acknowledged or ambiguous, not found at the first read
  bool any_failed = false;
  for (uint64_t k = 0; k < ledger->end(); ++k) {
    any_failed |= ledger->failed(k);
    const bool acked = ledger->acked(k);
    if (!acked && !ledger->ambiguous(k)) continue;
    ++(acked ? c->acked : c->ambiguous);
    const Found found = co_await ReadOrGiveUp(w, ledger->Id(k), c);
    if (found == Found::kUnknown) {
      ++c->unchecked;
    } else if (found == Found::kNo) {
      absent.push_back(k);
    } else if (!acked) {
      ++c->ambiguous_found;
    }
  }
  if (!absent.empty() || any_failed)
    co_await SleepUntil(w, std::min(MonoNowNs() + kRecheckDelayNs, hard_stop_mono_ns_));
  co_await RecheckWorker(w, absent, c);
  w->driver->Close();
}

// A second later: what was absent is read again (a replica may apply a
// commit a moment after it was acknowledged), then every failed insert is
// read once: a row found there is one the run counted as not written.
drivers::Task<void> PhaseRunner::RecheckWorker(Worker* w, const std::vector<uint64_t>& absent, WorkerCheck* c) {
  const workloads::WriteLedger& ledger = *w->ops->writes();
  for (uint64_t k : absent) {
    const Found found = co_await ReadOrGiveUp(w, ledger.Id(k), c);
    if (!ledger.acked(k)) {
      if (found == Found::kYes) ++c->ambiguous_found;
    } else if (found == Found::kNo) {
      ++c->lost;
      if (c->lost_ids.size() < size_t(kMaxLostIds)) c->lost_ids.push_back(ledger.Id(k));
    } else if (found == Found::kUnknown) {
      ++c->unchecked;
    }
  }
  for (uint64_t k = 0; k < ledger.end(); ++k) {
    if (!ledger.failed(k)) continue;
    ++c->failed;
    const Found found = co_await ReadOrGiveUp(w, ledger.Id(k), c);
    if (found == Found::kUnknown) {
      ++c->unchecked;
    } else if (found == Found::kYes) {
      ++c->failed_found;
      if (c->failed_found_ids.size() < size_t(kMaxLostIds)) c->failed_found_ids.push_back(ledger.Id(k));
    }
  }
}

// A worker whose reads failed kGiveUpAfter times in a row reads no more:
// the database is not answering, and the rest is counted as unchecked.
drivers::Task<PhaseRunner::Found> PhaseRunner::ReadOrGiveUp(Worker* w, int64_t id, WorkerCheck* c) {
  if (c->unread_in_a_row >= kGiveUpAfter) co_return Found::kUnknown;
  const Found found = co_await ReadBack(w, id);
  if (found != Found::kUnknown) {
    c->unread_in_a_row = 0;
    co_return found;
  }
  ++c->unread_in_a_row;
  if (c->why_unchecked.empty()) c->why_unchecked = Aborted() ? "the run was aborted" : w->error;
  co_return found;
}

drivers::Task<PhaseRunner::Found> PhaseRunner::ReadBack(Worker* w, int64_t id) {
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

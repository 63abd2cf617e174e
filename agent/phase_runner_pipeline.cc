// PhaseRunner::RunPipelined: a closed-loop worker of a phase with
// `pipeline: N` draws up to N operations, hands them to its connection back
// to back (AsyncDriver::Append) and reads their answers in order. Each
// operation keeps its own outcome and its latency from the batch's start
// (its intended start: the worker was free then) to its own answer, so
// the first answer of a batch is fast and the last one carries the
// queueing. An operation inside a pipeline is not retried; a connection
// lost mid-batch ends every unanswered operation as a lost connection
// (ambiguous for a write), counted one by one.
// clang-format off
#include "agent/phase_runner.h"  // first: Boost 1.74's awaitable.hpp needs <utility> before it
// clang-format on

#include "common/clock.h"

namespace stampede::agent {

drivers::Task<void> PhaseRunner::RunPipelined(Worker* w) {
  WorkerSchedule& schedule = *w->schedule;
  const int depth = int(phase_.pipeline());
  w->batch_ops.assign(size_t(depth), 0);
  w->batch_results.assign(size_t(depth), drivers::OpResult{});
  w->batch_ended_ns.assign(size_t(depth), 0);
  w->batch_errors.resize(size_t(depth));
  const int64_t think_ns = int64_t(phase_.think_time_ms()) * kNsPerMs;
  int64_t due;
  while (schedule.Next(&due)) {
    if (Aborted()) co_return;
    const int64_t intended = MonoNowNs();
    if (Halted() || intended >= deadline_mono_ns_) co_return MissRest(w);
    int n = 0;
    do {
      w->batch_ops[size_t(n)] = w->ops->Next(&w->req);
      w->driver->Append(w->req);
    } while (++n < depth && schedule.Next(&due));
    Arm(w);
    co_await w->driver->ExecuteAppended(n, w->batch_results.data(), w->batch_ended_ns.data(), w->batch_errors.data());
    const bool cut = Disarm(w);
    for (int i = 0; i < n; ++i) {
      const drivers::OpResult& r = w->batch_results[size_t(i)];
      std::string& error = w->batch_errors[size_t(i)];
      if (cut && r.outcome != Outcome::kOk) error = TimeoutNote() + error;
      Settle(w, w->batch_ops[size_t(i)], r, intended, 0, w->batch_ended_ns[size_t(i)], error);
    }
    if (!w->driver->connected()) co_await AfterLoss(w);
    if (w->home >= 0) co_await MaybeGoHome(w);
    if (think_ns > 0 && !co_await SleepUntil(w, std::min(MonoNowNs() + think_ns, deadline_mono_ns_))) break;
  }
}

}  // namespace stampede::agent

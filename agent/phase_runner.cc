#include "agent/phase_runner.h"

#include <sys/socket.h>

#include <algorithm>
#include <cmath>

#include "agent/one_off_statements.h"
#include "agent/phase_runner_worker.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/rng.h"
#include "proto/histogram_codec.h"
#include "workloads/workload_registry.h"

namespace stampede::agent {

WorkerShare ShareOf(uint32_t total, uint32_t agent_index, uint32_t agent_count) {
  uint32_t base = total / agent_count, extra = total % agent_count;
  WorkerShare s;
  s.count = base + (agent_index < extra ? 1 : 0);
  s.first = agent_index * base + std::min(agent_index, extra);
  return s;
}

PhaseRunner::PhaseRunner(PhaseRunnerOptions options)
    : options_(std::move(options)), phase_(options_.plan.phases(options_.phase_index)) {}

PhaseRunner::~PhaseRunner() {
  Cancel();
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
  if (watchdog_.joinable()) watchdog_.join();
}

drivers::ConnectOptions PhaseRunner::OptionsFor(int endpoint) const {
  return ConnectOptionsFor(options_, endpoint);
}

Status PhaseRunner::Prepare() {
  const v1::Target& target = options_.plan.target();
  driver_info_ = drivers::FindDriver(target.driver());
  if (!driver_info_) return Status::Error("unknown driver " + target.driver());
  share_ = ShareOf(phase_.workers(), options_.agent_index, options_.agent_count);

  workloads::WorkloadContext ctx;
  ctx.dialect = driver_info_->dialect;
  ctx.flavor = target.flavor();
  ctx.seed = options_.plan.seed();
  ctx.phase_index = options_.phase_index;
  ctx.total_workers = phase_.workers();
  ctx.step = phase_.step();
  ctx.group_workers = phase_.group_workers();
  ctx.custom = &phase_.custom();
  std::map<std::string, std::string> params(phase_.params().begin(), phase_.params().end());
  auto workload = workloads::CreateWorkload(phase_.workload(), ctx, params);
  if (!workload.ok()) return workload.status();
  workload_ = std::move(*workload);
  const size_t num_ops = workload_->ops().size();
  const int num_endpoints = target.endpoints_size();
  logged_ = std::vector<std::array<std::atomic<bool>, kNumOutcomes>>(num_ops);
  acc_ops_.assign(num_ops, {});
  acc_latency_.assign(num_ops, Histogram());
  acc_endpoints_.assign(num_endpoints, {});

  if (options_.lead) {
    // The lead alone, before any agent prepares: the previous phase's cleanup
    // (every agent has finished it), the plan's setup before the first
    // phase, this phase's setup, the workload's own.
    const v1::Plan& plan = options_.plan;
    if (options_.phase_index > 0) {
      const auto& prev = plan.phases(int(options_.phase_index) - 1).cleanup();
      Status s = RunOnce(options_, {prev.begin(), prev.end()}, "cleanup of phase " + plan.phases(int(options_.phase_index) - 1).name());
      if (!s.ok()) return s;
    }
    std::vector<std::string> setup;
    if (options_.phase_index == 0) setup.assign(plan.setup().begin(), plan.setup().end());
    setup.insert(setup.end(), phase_.setup().begin(), phase_.setup().end());
    for (const std::string& st : workload_->SetupStatements()) setup.push_back(st);
    Status s = RunOnce(options_, setup, "setup");
    if (!s.ok()) return s;
  }

  op_timeout_ns_ = int64_t(target.op_timeout_ms()) * kNsPerMs;
  // In a timed phase an operation that could not start within op_timeout of
  // its due time would have timed out for its user: it is missed, not
  // started late (and the backlog does not burst onto a recovering cluster).
  // An ops-bounded phase is there to do its operations: late, if need be.
  max_lag_ns_ = op_timeout_ns_ > 0 && phase_.duration_ms() > 0 ? op_timeout_ns_ : INT64_MAX;
  const uint64_t seed = options_.plan.seed();
  owes_ = WorkerSchedule::Owes(phase_);
  owed_ops_ = owes_ ? 0 : -1;
  for (uint32_t i = 0; i < share_.count; ++i) {
    auto w = std::make_unique<Worker>();
    w->global = share_.first + i;
    const uint64_t budget = WorkerSchedule::BudgetOf(phase_, w->global);
    w->schedule = std::make_unique<WorkerSchedule>(phase_, seed, options_.phase_index, w->global, budget);
    const int64_t owed = WorkerSchedule::Owed(phase_, seed, options_.phase_index, w->global, budget);
    if (owes_) owed_ops_ += owed;
    w->jitter = Rng(MixSeed(options_.plan.seed() ^ 0x6a177e5, w->global));
    if (target.balance() == "random") {
      w->endpoint = static_cast<int>(w->jitter.Uniform(num_endpoints));
    } else if (target.balance() == "first-alive") {
      w->endpoint = 0;
    } else {
      w->endpoint = static_cast<int>(w->global % num_endpoints);
    }
    w->stats = std::make_unique<WorkerStats>(num_ops, num_endpoints);
    workers_.push_back(std::move(w));
  }
  for (auto& w : workers_) {
    Worker* raw = w.get();
    raw->thread = std::thread([this, raw] { WorkerMain(raw); });
  }
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return prepared_ == static_cast<int>(workers_.size()); });
  Status result = prepare_error_;
  lock.unlock();
  if (!result.ok()) Cancel();
  return result;
}

void PhaseRunner::WorkerMain(Worker* w) {
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
    std::lock_guard<std::mutex> lock(mu_);
    ++prepared_;
    if (!s.ok() && prepare_error_.ok()) prepare_error_ = s;
  }
  cv_.notify_all();
  if (s.ok() && WaitForGate()) {
    SetActive(w, true);
    RunLoop(w, driver.get());
    SetActive(w, false);
  }
  w->fd.store(-1);
  driver->Close();
  driver.reset();
  {
    std::lock_guard<std::mutex> lock(mu_);
    w->finished = true;
  }
  cv_.notify_all();
}

void PhaseRunner::SetActive(Worker* w, bool active) {
  if (w->active == active) return;
  w->active = active;
  if (active) {
    active_.fetch_add(1, std::memory_order_relaxed);
  } else {
    active_.fetch_sub(1, std::memory_order_relaxed);
  }
}

bool PhaseRunner::SleepUntil(int64_t mono_ns) {
  while (!Halted()) {
    int64_t now = MonoNowNs();
    if (now >= mono_ns) return true;
    SleepUntilMonoNs(std::min(mono_ns, now + kMaxSleepSliceNs));
  }
  return false;
}

bool PhaseRunner::WaitForGate() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return gate_open_; });
  return halt_.load() != kAborted;
}

void PhaseRunner::WatchdogMain() {
  bool stopped = false;
  while (true) {
    if (halt_.load() == kAborted) {
      // Aborted: what is in flight is cut now, not at its timeout.
      for (auto& w : workers_) {
        int fd = w->fd.load();
        if (fd >= 0 && w->op_deadline_ns.exchange(0) != 0) ::shutdown(fd, SHUT_RDWR);
      }
      return;
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (std::all_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->finished; })) return;
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

void PhaseRunner::ReportError(int op, Outcome outcome, const std::string& message) {
  auto& flag = logged_[op][static_cast<int>(outcome)];
  if (flag.load(std::memory_order_relaxed) || flag.exchange(true)) return;
  std::string line = "first " + std::string(OutcomeName(outcome)) + " error in phase " +
                     phase_.name() + ", op " + workload_->ops()[op] + ": " + message;
  SLOG(kWarn) << line;
  if (options_.on_log) options_.on_log(line);
}

void PhaseRunner::Run(int64_t start_coord_ns, int64_t join_coord_ns) {
  const int64_t offset = options_.clock_offset_ns ? options_.clock_offset_ns() : 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    start_mono_ns_ = start_coord_ns - offset;
    join_mono_ns_ = join_coord_ns ? join_coord_ns - offset : 0;
    uint64_t limit_ms = phase_.duration_ms() ? phase_.duration_ms() : phase_.timeout_ms();
    deadline_mono_ns_ = limit_ms ? start_mono_ns_ + int64_t(limit_ms) * kNsPerMs : INT64_MAX;
    hard_stop_mono_ns_ = deadline_mono_ns_ == INT64_MAX
                             ? INT64_MAX
                             : deadline_mono_ns_ + (op_timeout_ns_ > 0 ? op_timeout_ns_ : kNsPerSec);
    gate_open_ = true;
  }
  cv_.notify_all();
  if (op_timeout_ns_ > 0 || hard_stop_mono_ns_ != INT64_MAX) {
    watchdog_ = std::thread([this] { WatchdogMain(); });
  }
  // A rejoining share's seconds are numbered from the phase start too.
  const uint32_t first_seq =
      join_mono_ns_ > start_mono_ns_ ? uint32_t((join_mono_ns_ - start_mono_ns_) / kNsPerSec) : 0;
  for (uint32_t seq = first_seq;; ++seq) {
    const int64_t boundary = start_mono_ns_ + int64_t(seq + 1) * kNsPerSec;
    std::unique_lock<std::mutex> lock(mu_);
    bool all_done = cv_.wait_for(
        lock, std::chrono::nanoseconds(std::max<int64_t>(0, boundary - MonoNowNs())), [&] {
          return std::all_of(workers_.begin(), workers_.end(),
                             [](const auto& w) { return w->finished; });
        });
    lock.unlock();
    if (all_done) {
      Collect(seq, start_coord_ns + int64_t(seq) * kNsPerSec, MonoNowNs() + offset, true);
      break;
    }
    Collect(seq, start_coord_ns + int64_t(seq) * kNsPerSec,
            start_coord_ns + int64_t(seq + 1) * kNsPerSec, false);
    if (hard_stop_mono_ns_ != INT64_MAX && MonoNowNs() > hard_stop_mono_ns_ + 2 * kNsPerSec) {
      SLOG(kWarn) << "phase " << phase_.name() << ": workers still busy "
                  << (MonoNowNs() - hard_stop_mono_ns_) / kNsPerSec << " s past the hard stop";
    }
  }
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
  if (watchdog_.joinable()) watchdog_.join();
}

void PhaseRunner::Cancel() {
  halt_.store(kAborted);
  {
    std::lock_guard<std::mutex> lock(mu_);
    gate_open_ = true;
  }
  cv_.notify_all();
}

void PhaseRunner::Collect(uint32_t seq, int64_t start_ns, int64_t end_ns, bool final) {
  for (auto& o : acc_ops_) o = OpTotals{};
  for (auto& h : acc_latency_) h.Reset();
  for (auto& e : acc_endpoints_) e = EndpointTotals{};
  for (auto& w : workers_) w->stats->DrainInto(&acc_ops_, &acc_latency_, &acc_endpoints_);
  v1::Snapshot snap;
  snap.set_run_id(options_.run_id);
  snap.set_agent(options_.agent_name);
  snap.set_phase_index(options_.phase_index);
  snap.set_seq(seq);
  snap.set_start_ns(start_ns);
  snap.set_end_ns(std::max(start_ns, end_ns));
  snap.set_active_workers(active_.load());
  snap.set_final(final);
  for (size_t i = 0; i < acc_ops_.size(); ++i) {
    uint64_t total = 0;
    for (uint64_t c : acc_ops_[i].outcomes) total += c;
    if (total == 0 && acc_latency_[i].count() == 0 && acc_ops_[i].missed == 0) continue;
    v1::OpStats* op = snap.add_ops();
    op->set_op(workload_->ops()[i]);
    for (uint64_t c : acc_ops_[i].outcomes) op->add_outcomes(c);
    op->set_retries(acc_ops_[i].retries);
    op->set_missed(acc_ops_[i].missed);
    HistogramToProto(acc_latency_[i], op->mutable_latency());
  }
  for (size_t i = 0; i < acc_endpoints_.size(); ++i) {
    const EndpointTotals& e = acc_endpoints_[i];
    if (!e.lost && !e.reconnects && !e.connect_failures) continue;
    v1::EndpointStats* s = snap.add_endpoints();
    s->set_endpoint(options_.plan.target().endpoints(static_cast<int>(i)));
    s->set_lost(e.lost);
    s->set_reconnects(e.reconnects);
    s->set_connect_failures(e.connect_failures);
  }
  if (options_.on_snapshot) options_.on_snapshot(snap);
}

}  // namespace stampede::agent

#include "agent/phase_runner.h"

#include <sys/socket.h>

#include <algorithm>
#include <cmath>

#include "agent/stage_schedule.h"

#include "common/clock.h"
#include "common/log.h"
#include "common/rng.h"
#include "common/strings.h"
#include "proto/histogram_codec.h"
#include "workloads/workload_registry.h"

namespace stampede::agent {
namespace {

constexpr int64_t kMaxSleepSliceNs = 50 * kNsPerMs;
constexpr int64_t kFirstBackoffNs = 100 * kNsPerMs;
constexpr int64_t kMaxBackoffNs = 2 * kNsPerSec;
constexpr int64_t kWatchdogTickNs = 20 * kNsPerMs;
constexpr int kMaxTxnStatements = 16;
constexpr int64_t kStageTickNs = 20 * kNsPerMs;  // ramp granularity for waiting workers
// Missed operations are attributed to ops by drawing them from the
// workload; past this many per worker the rest is split in proportion.
constexpr uint64_t kMaxAttributed = uint64_t{1} << 20;

}  // namespace

struct PhaseRunner::Worker {
  uint32_t global = 0;
  int endpoint = 0;     // index into target.endpoints
  std::unique_ptr<WorkerStats> stats;
  std::unique_ptr<WorkerSchedule> schedule;
  std::thread thread;
  int64_t backoff_ns = kFirstBackoffNs;
  int failures = 0;  // connections lost since the last successful op
  Rng jitter{0};
  // Watchdog interface: the worker publishes the socket and the deadline of
  // the operation in flight (0: none); the watchdog shuts the socket down
  // when the deadline passes and sets timed_out.
  std::atomic<int> fd{-1};
  std::atomic<int64_t> op_deadline_ns{0};
  std::atomic<bool> timed_out{false};
  bool finished = false;  // guarded by PhaseRunner::mu_
  bool active = false;    // counted in active_ (worker thread only)
};

drivers::ConnectOptions ConnectOptionsFor(const PhaseRunnerOptions& o, int endpoint) {
  const v1::Target& t = o.plan.target();
  drivers::ConnectOptions c;
  SplitHostPort(t.endpoints(endpoint), &c.host, &c.port);
  c.user = t.user();
  c.password = o.password;
  c.database = t.database();
  c.flavor = t.flavor();
  c.connect_timeout_ms = static_cast<int>(t.connect_timeout_ms());
  c.op_timeout_ms = static_cast<int>(t.op_timeout_ms());
  return c;
}

Status RunOnce(const PhaseRunnerOptions& o, const std::vector<std::string>& statements,
               const std::string& what) {
  if (statements.empty()) return Status::Ok();
  const drivers::DriverInfo* info = drivers::FindDriver(o.plan.target().driver());
  if (!info) return Status::Error("unknown driver " + o.plan.target().driver());
  // One live endpoint is enough, whichever answers first.
  std::unique_ptr<drivers::Driver> d = info->factory(o.plan.target().flavor());
  Status s;
  for (int e = 0; e < o.plan.target().endpoints_size(); ++e) {
    s = d->Connect(ConnectOptionsFor(o, e));
    if (s.ok()) break;
  }
  if (!s.ok()) return s.WithContext(what + ": connect");
  for (const std::string& stmt : statements) {
    s = d->ExecuteOnce(stmt);
    if (!s.ok()) return s.WithContext(what);
  }
  return Status::Ok();
}

Status RunFinalCleanup(const PhaseRunnerOptions& o) {
  const v1::Plan& plan = o.plan;
  std::vector<std::string> cleanup;
  if (plan.phases_size() > 0) {
    const auto& last = plan.phases(plan.phases_size() - 1).cleanup();
    cleanup.assign(last.begin(), last.end());
  }
  cleanup.insert(cleanup.end(), plan.cleanup().begin(), plan.cleanup().end());
  return RunOnce(o, cleanup, "cleanup");
}

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

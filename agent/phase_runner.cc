#include "agent/phase_runner.h"

#include <algorithm>

#include "common/clock.h"
#include "common/log.h"
#include "common/strings.h"
#include "proto/histogram_codec.h"
#include "workloads/workload_registry.h"

namespace stampede::agent {
namespace {

constexpr int64_t kMaxSleepSliceNs = 50 * kNsPerMs;
constexpr int64_t kFirstBackoffNs = 100 * kNsPerMs;
constexpr int64_t kMaxBackoffNs = 1 * kNsPerSec;

}  // namespace

struct PhaseRunner::Worker {
  uint32_t global = 0;
  uint64_t budget = 0;  // ops for this worker; 0: unlimited
  drivers::ConnectOptions connect;
  std::unique_ptr<WorkerStats> stats;
  std::thread thread;
  int64_t backoff_ns = kFirstBackoffNs;
  bool finished = false;  // guarded by PhaseRunner::mu_
};

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
}

drivers::ConnectOptions PhaseRunner::EndpointFor(uint32_t global_worker) const {
  const v1::Target& t = options_.plan.target();
  drivers::ConnectOptions c;
  const std::string& ep = t.endpoints(static_cast<int>(global_worker % t.endpoints_size()));
  SplitHostPort(ep, &c.host, &c.port);
  c.user = t.user();
  c.password = options_.password;
  c.database = t.database();
  c.flavor = t.flavor();
  c.connect_timeout_ms = static_cast<int>(t.connect_timeout_ms());
  return c;
}

Status PhaseRunner::Prepare() {
  driver_info_ = drivers::FindDriver(options_.plan.target().driver());
  if (!driver_info_) return Status::Error("unknown driver " + options_.plan.target().driver());
  share_ = ShareOf(phase_.workers(), options_.agent_index, options_.agent_count);

  workloads::WorkloadContext ctx;
  ctx.dialect = driver_info_->dialect;
  ctx.seed = options_.plan.seed();
  ctx.phase_index = options_.phase_index;
  ctx.total_workers = phase_.workers();
  std::map<std::string, std::string> params(phase_.params().begin(), phase_.params().end());
  auto workload = workloads::CreateWorkload(phase_.workload(), ctx, params);
  if (!workload.ok()) return workload.status();
  workload_ = std::move(*workload);
  const size_t num_ops = workload_->ops().size();
  logged_ = std::vector<std::array<std::atomic<bool>, kNumOutcomes>>(num_ops);
  acc_outcomes_.assign(num_ops, {});
  acc_latency_.assign(num_ops, Histogram());

  if (options_.agent_index == 0 && !workload_->SetupStatements().empty()) {
    std::unique_ptr<drivers::Driver> d = driver_info_->factory();
    Status s = d->Connect(EndpointFor(0));
    if (!s.ok()) return s.WithContext("setup: connect");
    for (const std::string& stmt : workload_->SetupStatements()) {
      s = d->ExecuteOnce(stmt);
      if (!s.ok()) return s.WithContext("setup");
    }
  }

  for (uint32_t i = 0; i < share_.count; ++i) {
    auto w = std::make_unique<Worker>();
    w->global = share_.first + i;
    if (phase_.ops() > 0) {
      uint64_t W = phase_.workers();
      w->budget = phase_.ops() / W + (w->global < phase_.ops() % W ? 1 : 0);
    }
    w->connect = EndpointFor(w->global);
    w->stats = std::make_unique<WorkerStats>(num_ops);
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
  std::unique_ptr<drivers::Driver> driver = driver_info_->factory();
  Status s = driver->Connect(w->connect);
  if (s.ok()) s = driver->Prepare(workload_->statements());
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++prepared_;
    if (!s.ok() && prepare_error_.ok()) prepare_error_ = s;
  }
  cv_.notify_all();
  if (s.ok() && WaitForGate()) {
    std::unique_ptr<workloads::WorkerOps> ops = workload_->MakeWorker(w->global);
    active_.fetch_add(1);
    const bool open_loop = phase_.rate() > 0;
    const int64_t interval_ns =
        open_loop ? static_cast<int64_t>(double(phase_.workers()) * 1e9 / phase_.rate()) : 0;
    const int64_t offset_ns = open_loop ? interval_ns * w->global / phase_.workers() : 0;
    drivers::OpRequest req;
    std::string error;
    error.reserve(256);
    for (uint64_t k = 0; !cancelled_.load(std::memory_order_relaxed); ++k) {
      if (w->budget && k >= w->budget) break;
      int64_t intended;
      if (open_loop) {
        intended = start_mono_ns_ + offset_ns + static_cast<int64_t>(k) * interval_ns;
        if (intended >= deadline_mono_ns_) break;
        while (!cancelled_.load(std::memory_order_relaxed)) {
          int64_t now = MonoNowNs();
          if (now >= intended) break;
          SleepUntilMonoNs(std::min(intended, now + kMaxSleepSliceNs));
        }
        if (cancelled_.load(std::memory_order_relaxed)) break;
      } else {
        intended = MonoNowNs();
        if (intended >= deadline_mono_ns_) break;
      }
      int op = ops->Next(&req);
      drivers::OpResult r;
      if (!driver->connected()) {
        s = driver->Connect(w->connect);
        if (s.ok()) s = driver->Prepare(workload_->statements());
        if (s.ok()) {
          w->backoff_ns = kFirstBackoffNs;
        } else {
          r.outcome = Outcome::kUnavailable;
          error = "reconnect " + s.message();
        }
      }
      if (driver->connected()) r = driver->Execute(req, &error);
      w->stats->Record(op, r.outcome, static_cast<uint64_t>(MonoNowNs() - intended));
      if (r.outcome != Outcome::kOk) ReportError(op, r.outcome, error);
      if (!driver->connected()) {
        // Back off before reconnecting so a dead node is not hammered.
        int64_t until = MonoNowNs() + w->backoff_ns;
        w->backoff_ns = std::min(w->backoff_ns * 2, kMaxBackoffNs);
        while (!cancelled_.load(std::memory_order_relaxed) && MonoNowNs() < until) {
          SleepUntilMonoNs(std::min(until, MonoNowNs() + kMaxSleepSliceNs));
        }
      }
    }
    active_.fetch_sub(1);
  }
  driver->Close();
  driver.reset();
  {
    std::lock_guard<std::mutex> lock(mu_);
    w->finished = true;
  }
  cv_.notify_all();
}

bool PhaseRunner::WaitForGate() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return gate_open_; });
  return !cancelled_.load();
}

void PhaseRunner::ReportError(int op, Outcome outcome, const std::string& message) {
  auto& flag = logged_[op][static_cast<int>(outcome)];
  if (flag.load(std::memory_order_relaxed) || flag.exchange(true)) return;
  std::string line = "first " + std::string(OutcomeName(outcome)) + " error in phase " +
                     phase_.name() + ", op " + workload_->ops()[op] + ": " + message;
  SLOG(kWarn) << line;
  if (options_.on_log) options_.on_log(line);
}

void PhaseRunner::Run(int64_t start_coord_ns) {
  const int64_t offset = options_.clock_offset_ns ? options_.clock_offset_ns() : 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    start_mono_ns_ = start_coord_ns - offset;
    deadline_mono_ns_ = phase_.duration_ms()
                            ? start_mono_ns_ + static_cast<int64_t>(phase_.duration_ms()) * kNsPerMs
                            : INT64_MAX;
    gate_open_ = true;
  }
  cv_.notify_all();
  for (uint32_t seq = 0;; ++seq) {
    const int64_t boundary = start_mono_ns_ + int64_t(seq + 1) * kNsPerSec;
    std::unique_lock<std::mutex> lock(mu_);
    bool all_done = cv_.wait_for(lock, std::chrono::nanoseconds(std::max<int64_t>(0, boundary - MonoNowNs())), [&] {
      return std::all_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->finished; });
    });
    lock.unlock();
    if (all_done) {
      Collect(seq, start_coord_ns + int64_t(seq) * kNsPerSec, MonoNowNs() + offset, true);
      break;
    }
    Collect(seq, start_coord_ns + int64_t(seq) * kNsPerSec, start_coord_ns + int64_t(seq + 1) * kNsPerSec,
            false);
  }
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
}

void PhaseRunner::Cancel() {
  cancelled_.store(true);
  {
    std::lock_guard<std::mutex> lock(mu_);
    gate_open_ = true;
  }
  cv_.notify_all();
}

void PhaseRunner::Collect(uint32_t seq, int64_t start_ns, int64_t end_ns, bool final) {
  for (auto& o : acc_outcomes_) o.fill(0);
  for (auto& h : acc_latency_) h.Reset();
  for (auto& w : workers_) w->stats->DrainInto(&acc_outcomes_, &acc_latency_);
  v1::Snapshot snap;
  snap.set_run_id(options_.run_id);
  snap.set_agent(options_.agent_name);
  snap.set_phase_index(options_.phase_index);
  snap.set_seq(seq);
  snap.set_start_ns(start_ns);
  snap.set_end_ns(std::max(start_ns, end_ns));
  snap.set_active_workers(active_.load());
  snap.set_final(final);
  for (size_t i = 0; i < acc_outcomes_.size(); ++i) {
    uint64_t total = 0;
    for (uint64_t c : acc_outcomes_[i]) total += c;
    if (total == 0 && acc_latency_[i].count() == 0) continue;
    v1::OpStats* op = snap.add_ops();
    op->set_op(workload_->ops()[i]);
    for (uint64_t c : acc_outcomes_[i]) op->add_outcomes(c);
    HistogramToProto(acc_latency_[i], op->mutable_latency());
  }
  if (options_.on_snapshot) options_.on_snapshot(snap);
}

}  // namespace stampede::agent

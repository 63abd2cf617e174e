#include "agent/phase_runner.h"

#include <algorithm>
#include <charconv>
#include <chrono>

#include "agent/cpu_budget.h"
#include "agent/one_off_statements.h"
#include "agent/phase_runner.h"
#include "common/clock.h"
#include "common/log.h"
#include "plan/phase_shape.h"
#include "proto/histogram_codec.h"
#include "workloads/workload_registry.h"

namespace stampede::agent {
namespace {

// Missed operations are attributed to ops by drawing them from the
// workload; past this many per worker the rest is split in proportion.
constexpr uint64_t kMaxAttributed = uint64_t{1} << 20;

}  // namespace

WorkerShare ShareOf(uint32_t total, uint32_t agent_index, uint32_t agent_count, const std::vector<uint32_t>& weights) {
  uint64_t sum = 0, before = 0;
  if (weights.size() == agent_count && agent_index < agent_count) {
    for (uint32_t i = 0; i < agent_count; ++i) {
      sum += weights[i];
      if (i < agent_index) before += weights[i];
    }
  }
  if (sum > 0) {
    // Boundaries at total x (cumulative weight / sum): every worker in
    // exactly one share. total <= 100,000 and the coordinator's weights are
    // at most 10^6 each: no overflow.
    const uint64_t first = uint64_t(total) * before / sum;
    const uint64_t end = uint64_t(total) * (before + weights[agent_index]) / sum;
    return WorkerShare{uint32_t(first), uint32_t(end - first)};
  }
  uint32_t base = total / agent_count, extra = total % agent_count;
  WorkerShare s;
  s.count = base + (agent_index < extra ? 1 : 0);
  s.first = agent_index * base + std::min(agent_index, extra);
  return s;
}

std::unique_ptr<PhaseRunner> PhaseRunner::Create(PhaseRunnerOptions options) {
  return std::make_unique<PhaseRunner>(std::move(options));
}

PhaseRunner::PhaseRunner(PhaseRunnerOptions options)
    : options_(std::move(options)),
      phase_(options_.plan.phases(options_.phase_index)),
      retry_(options_.plan),
      cockroach_(options_.plan.target().flavor() == "cockroachdb"),
      per_endpoint_ok_(options_.plan.target().flavor() != "redis-cluster"),
      endpoint_names_({options_.plan.target().endpoints().begin(), options_.plan.target().endpoints().end()},
                      per_endpoint_ok_ ? 0 : kMaxFoundEndpoints) {}

bool PhaseRunner::Joining(int endpoint) const {
  const v1::Target& t = options_.plan.target();
  if (endpoint < 0 || endpoint >= t.endpoints_size()) return false;
  return std::find(t.joining().begin(), t.joining().end(), t.endpoints(endpoint)) != t.joining().end();
}

drivers::ConnectOptions PhaseRunner::OptionsFor(int endpoint) {
  drivers::ConnectOptions o = ConnectOptionsFor(options_, endpoint);
  o.endpoint_names = &endpoint_names_;
  return o;
}

std::string PhaseRunner::TimeoutNote() const {
  // A cut at the hard stop may come sooner than op_timeout (an operation
  // started near the deadline), or with no op_timeout at all.
  if (op_timeout_ns_ == 0 || MonoNowNs() >= hard_stop_mono_ns_) return "cut at the phase's hard stop; ";
  return "timed out after " + std::to_string(op_timeout_ns_ / kNsPerMs) + " ms (op_timeout); ";
}

WorkerStats* PhaseRunner::NewStats() {
  stats_.push_back(std::make_unique<WorkerStats>(workload_->ops().size(), endpoint_names_.capacity()));
  return stats_.back().get();
}

Status PhaseRunner::PrepareShare(const std::function<WorkerState*()>& make,
                                 const std::function<WorkerStats*(size_t)>& stats_for) {
  const v1::Target& target = options_.plan.target();
  driver_info_ = drivers::FindDriver(target.driver());
  if (!driver_info_) return Status::Error("unknown driver " + target.driver());
  share_ = ShareOf(phase_.workers(), options_.agent_index, options_.agent_count, options_.weights);

  workloads::WorkloadContext ctx;
  ctx.dialect = driver_info_->dialect;
  ctx.flavor = target.flavor();
  ctx.seed = options_.plan.seed();
  ctx.phase_index = options_.phase_index;
  ctx.total_workers = phase_.workers();
  ctx.step = phase_.step();
  ctx.group_workers = phase_.group_workers();
  ctx.custom = &phase_.custom();
  ctx.pipeline = std::max<uint32_t>(1, phase_.pipeline());
  ctx.batch = std::max<uint32_t>(1, phase_.batch());
  ctx.open_loop = plan::IsOpenLoop(phase_);
  std::map<std::string, std::string> params(phase_.params().begin(), phase_.params().end());
  auto workload = workloads::CreateWorkload(phase_.workload(), ctx, params);
  if (!workload.ok()) return workload.status();
  workload_ = std::move(*workload);
  const size_t num_ops = workload_->ops().size();
  const int num_endpoints = target.endpoints_size();
  logged_ = std::vector<std::array<std::atomic<bool>, kNumOutcomes>>(num_ops);
  acc_ops_.assign(num_ops, {});
  acc_latency_.assign(num_ops, Histogram());
  acc_endpoints_.assign(endpoint_names_.capacity(), {});

  if (options_.lead) {
    // The lead alone, before any agent prepares: the previous phase's cleanup
    // (every agent has finished it), the plan's setup before the first
    // phase, this phase's setup, the workload's own.
    const v1::Plan& plan = options_.plan;
    if (options_.phase_index > 0) {
      const v1::Phase& prev = plan.phases(int(options_.phase_index) - 1);
      Status s = RunOnce(options_, {prev.cleanup().begin(), prev.cleanup().end()}, "cleanup of phase " + prev.name());
      if (!s.ok()) return s;
    }
    std::vector<std::string> setup;
    if (options_.phase_index == 0) setup.assign(plan.setup().begin(), plan.setup().end());
    setup.insert(setup.end(), phase_.setup().begin(), phase_.setup().end());
    // The workload's preload says how far it is (its statements are
    // counted; the plan's are not).
    SetupProgress progress{std::vector<uint64_t>(setup.size(), 0), workload_->SetupUnit(),
                           "phase " + phase_.name() + ": preload"};
    for (const std::string& st : workload_->SetupStatements()) setup.push_back(st);
    const std::vector<uint64_t> units = workload_->SetupUnits();
    progress.units.insert(progress.units.end(), units.begin(), units.end());
    Status s = RunOnce(options_, setup, "setup", units.empty() ? nullptr : &progress);
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
    WorkerState* w = make();
    w->global = share_.first + i;
    const uint64_t budget = WorkerSchedule::BudgetOf(phase_, w->global);
    w->schedule.emplace(phase_, seed, options_.phase_index, w->global, budget);
    if (owes_) owed_ops_ += WorkerSchedule::Owed(phase_, seed, options_.phase_index, w->global, budget);
    w->jitter = Rng(MixSeed(options_.plan.seed() ^ 0x6a177e5, w->global));
    if (target.balance() == "random") {
      w->endpoint = static_cast<int>(w->jitter.Uniform(num_endpoints));
    } else if (target.balance() == "first-alive") {
      w->endpoint = 0;
    } else {
      w->endpoint = static_cast<int>(w->global % num_endpoints);
    }
    if (Joining(w->endpoint)) w->home = w->endpoint;
    w->stats = stats_for(i);
    if (workload_->keeps_history()) w->history = std::make_unique<HistoryLog>();
    states_.push_back(w);
  }
  return Status::Ok();
}

void PhaseRunner::SetTimes(int64_t start_coord_ns, int64_t join_coord_ns) {
  const int64_t offset = options_.clock_offset_ns ? options_.clock_offset_ns() : 0;
  start_mono_ns_ = start_coord_ns - offset;
  join_mono_ns_ = join_coord_ns ? join_coord_ns - offset : 0;
  const uint64_t limit_ms = phase_.duration_ms() ? phase_.duration_ms() : phase_.timeout_ms();
  deadline_mono_ns_ = limit_ms ? start_mono_ns_ + int64_t(limit_ms) * kNsPerMs : INT64_MAX;
  hard_stop_mono_ns_ = deadline_mono_ns_ == INT64_MAX
                           ? INT64_MAX
                           : deadline_mono_ns_ + (op_timeout_ns_ > 0 ? op_timeout_ns_ : kNsPerSec);
}

void PhaseRunner::CollectUntil(int64_t start_coord_ns) {
  const int64_t offset = start_coord_ns - start_mono_ns_;
  coord_offset_ns_ = offset;
  // A rejoining share's seconds are numbered from the phase start too.
  const uint32_t first_seq =
      join_mono_ns_ > start_mono_ns_ ? uint32_t((join_mono_ns_ - start_mono_ns_) / kNsPerSec) : 0;
  last_cpu_ns_ = AgentCpuNs();
  last_process_cpu_ns_ = ProcessCpuNs();
  last_loops_cpu_ns_ = LoopsCpuNs();
  cpu_cores_ = std::min(double(std::max(1, event_loops_)), CpuCoresAllowed());
  for (uint32_t seq = first_seq;; ++seq) {
    const int64_t boundary = start_mono_ns_ + int64_t(seq + 1) * kNsPerSec;
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::nanoseconds(std::max<int64_t>(0, boundary - MonoNowNs()));
    MutexLock lock(mu_);
    bool all_done = AllFinished();
    while (!all_done) {
      const bool timed_out = cv_.wait_until(lock.native(), until) == std::cv_status::timeout;
      all_done = AllFinished();
      if (timed_out) break;
    }
    lock.Unlock();
    if (all_done) {
      ended_coord_ns_ = MonoNowNs() + offset;
      Collect(seq, start_coord_ns + int64_t(seq) * kNsPerSec, ended_coord_ns_, true);
      return;
    }
    Collect(seq, start_coord_ns + int64_t(seq) * kNsPerSec, start_coord_ns + int64_t(seq + 1) * kNsPerSec, false);
    if (hard_stop_mono_ns_ != INT64_MAX && MonoNowNs() > hard_stop_mono_ns_ + 2 * kNsPerSec && !OnlyFinalRead()) {
      SLOG(kWarn) << "phase " << phase_.name() << ": workers still busy "
                  << (MonoNowNs() - hard_stop_mono_ns_) / kNsPerSec << " s past the hard stop";
    }
  }
}

int PhaseRunner::DrawOp(WorkerState* w) {
  const int txn_size = workload_->transaction_size();
  if (txn_size <= 1) return w->ops->Next(&w->req);
  for (int i = 0; i < txn_size; ++i) w->ops->Next(&w->req);
  return workload_->transaction_op();
}

void PhaseRunner::MissOverdue(WorkerState* w) {
  if (!w->schedule->open_loop() || max_lag_ns_ == INT64_MAX) return;
  const int64_t now = MonoNowNs();
  int64_t due;
  while (w->schedule->Peek(&due) && now - (start_mono_ns_ + due) > max_lag_ns_ &&
         start_mono_ns_ + due >= join_mono_ns_) {
    w->schedule->Next(&due);
    w->stats->Miss(DrawOp(w));
  }
}

void PhaseRunner::MissRest(WorkerState* w) {
  if (Aborted() || !owes_) return;
  if (phase_.duration_ms() == 0 && phase_.timeout_ms() > 0) timed_out_.store(true);
  // The operation drawn last was not started either.
  std::vector<uint64_t> missed(w->stats->num_ops(), 0);
  uint64_t drawn = 1;
  missed[size_t(DrawOp(w))]++;
  int64_t due;
  while (drawn < kMaxAttributed && w->schedule->Next(&due)) {
    missed[size_t(DrawOp(w))]++;
    ++drawn;
  }
  // Past kMaxAttributed the ops are not drawn: split the rest as the drawn.
  const uint64_t owed =
      uint64_t(std::max<int64_t>(0, WorkerSchedule::Owed(phase_, options_.plan.seed(), options_.phase_index, w->global,
                                                         WorkerSchedule::BudgetOf(phase_, w->global))));
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

void PhaseRunner::SetActive(WorkerState* w, bool active) {
  if (w->active == active) return;
  w->active = active;
  if (active) {
    active_.fetch_add(1, std::memory_order_relaxed);
  } else {
    active_.fetch_sub(1, std::memory_order_relaxed);
  }
}

int64_t PhaseRunner::NextBackoffNs(WorkerState* w) {
  w->backed_off = true;
  return Jittered(w->backoff.Next(), &w->jitter);
}

void PhaseRunner::ReportError(int op, Outcome outcome, const std::string& message) {
  auto& flag = logged_[size_t(op)][static_cast<int>(outcome)];
  if (flag.load(std::memory_order_relaxed) || flag.exchange(true)) return;
  std::string line = "first " + std::string(OutcomeName(outcome)) + " error in phase " + phase_.name() + ", op " +
                     workload_->ops()[size_t(op)] + ": " + message;
  SLOG(kWarn) << line;
  if (options_.on_log) options_.on_log(line);
}

void PhaseRunner::ReportReconnectError(const std::string& message) {
  // The cause without the endpoint: "127.0.0.1:5432: connection refused".
  const size_t colon = message.find(": ");
  const std::string cause = colon == std::string::npos ? message : message.substr(colon + 2);
  {
    MutexLock lock(mu_);
    if (reconnect_causes_.size() >= kMaxReconnectCauses || !reconnect_causes_.insert(cause).second) return;
  }
  const std::string line = "phase " + phase_.name() + ": a worker could not reconnect: " + message;
  SLOG(kWarn) << line;
  if (options_.on_log) options_.on_log(line);
}

void PhaseRunner::Collect(uint32_t seq, int64_t start_ns, int64_t end_ns, bool final) {
  for (auto& o : acc_ops_) o = OpTotals{};
  for (auto& h : acc_latency_) h.Reset();
  for (auto& e : acc_endpoints_) e = EndpointTotals{};
  OpTimes times;
  acc_lag_.Reset();
  acc_anomalies_ = {};
  acc_examples_.clear();
  for (auto& stats : stats_) {
    stats->DrainInto(&acc_ops_, &acc_latency_, &acc_endpoints_, &times);
    stats->DrainLagInto(&acc_lag_);
    stats->DrainAnomalies(&acc_anomalies_, &acc_examples_);
  }
  v1::Snapshot snap;
  // On the coordinator's clock, as the interval is.
  auto coord = [this](int64_t mono) { return mono ? mono + coord_offset_ns_ : 0; };
  snap.set_first_ok_ns(coord(times.first_ok));
  snap.set_last_ok_ns(coord(times.last_ok));
  snap.set_first_err_ns(coord(times.first_err));
  snap.set_last_err_ns(coord(times.last_err));
  if (options_.clock_uncertainty_ns) snap.set_clock_uncertainty_ns(options_.clock_uncertainty_ns());
  snap.set_run_id(options_.run_id);
  snap.set_agent(options_.agent_name);
  snap.set_phase_index(options_.phase_index);
  snap.set_seq(seq);
  snap.set_start_ns(start_ns);
  snap.set_end_ns(std::max(start_ns, end_ns));
  snap.set_active_workers(active_.load());
  snap.set_final(final);
  const int64_t cpu = AgentCpuNs(), process_cpu = ProcessCpuNs();
  snap.set_cpu_ns(uint64_t(std::max<int64_t>(0, cpu - last_cpu_ns_)));
  snap.set_process_cpu_ns(uint64_t(std::max<int64_t>(0, process_cpu - last_process_cpu_ns_)));
  snap.set_process(ProcessTag());
  last_cpu_ns_ = cpu;
  last_process_cpu_ns_ = process_cpu;
  snap.set_cpu_cores(cpu_cores_);
  if (const int64_t loops = LoopsCpuNs(); loops >= 0) {
    snap.set_loops_cpu_ns(uint64_t(std::max<int64_t>(0, loops - last_loops_cpu_ns_)));
    last_loops_cpu_ns_ = loops;
  }
  if (acc_lag_.count()) HistogramToProto(acc_lag_, snap.mutable_loop_lag());
  for (size_t i = 0; i < acc_ops_.size(); ++i) {
    uint64_t total = 0;
    for (uint64_t c : acc_ops_[i].outcomes) total += c;
    if (total == 0 && acc_latency_[i].count() == 0 && acc_ops_[i].missed == 0) continue;
    v1::OpStats* op = snap.add_ops();
    op->set_op(workload_->ops()[i]);
    for (uint64_t c : acc_ops_[i].outcomes) op->add_outcomes(c);
    op->set_retries(acc_ops_[i].retries);
    op->set_missed(acc_ops_[i].missed);
    op->set_rollbacks(acc_ops_[i].rollbacks);
    op->set_disk_full(acc_ops_[i].disk_full);
    op->set_rows(acc_ops_[i].rows);
    HistogramToProto(acc_latency_[i], op->mutable_latency());
  }
  const std::vector<std::string> names = endpoint_names_.Names();
  for (size_t i = 0; i < acc_endpoints_.size() && i < names.size(); ++i) {
    const EndpointTotals& e = acc_endpoints_[i];
    if (!e.lost && !e.reconnects && !e.connect_failures && !e.ok) continue;
    v1::EndpointStats* s = snap.add_endpoints();
    s->set_endpoint(names[i]);
    s->set_lost(e.lost);
    s->set_reconnects(e.reconnects);
    s->set_connect_failures(e.connect_failures);
    s->set_ok(e.ok);
    s->set_first_ok_ns(coord(e.times.first_ok));
    s->set_last_ok_ns(coord(e.times.last_ok));
  }
  AddAnomalies(coord, &snap);
  std::vector<v1::Snapshot> parts = AddHistory(coord, final, &snap);
  if (!options_.on_snapshot) return;
  for (const v1::Snapshot& part : parts) options_.on_snapshot(part);
  options_.on_snapshot(snap);
}

void PhaseRunner::AddAnomalies(const std::function<int64_t(int64_t)>& coord, v1::Snapshot* snap) const {
  for (size_t k = 0; k < acc_anomalies_.size(); ++k) {
    if (acc_anomalies_[k] == 0) continue;
    v1::AnomalyCount* c = snap->add_anomalies();
    c->set_kind(std::string(kAnomalyNames[k]));
    c->set_count(acc_anomalies_[k]);
  }
  const v1::Target& t = options_.plan.target();
  for (const AnomalySeen& a : acc_examples_) {
    v1::AnomalyExample* e = snap->add_anomaly_examples();
    e->set_kind(std::string(AnomalyName(a.note.kind)));
    e->set_time_ns(coord(a.mono_ns));
    if (a.endpoint >= 0 && a.endpoint < t.endpoints_size()) e->set_endpoint(t.endpoints(a.endpoint));
    if (a.op >= 0 && size_t(a.op) < workload_->ops().size()) e->set_op(workload_->ops()[size_t(a.op)]);
    e->set_key(a.note.key);
    e->set_expected(a.note.expected);
    e->set_got(a.note.got);
    e->set_lag_ns(a.note.lag_ns);
    e->set_final(a.final);
  }
}

namespace {

// A read's list as the database returned it ("1,5,9") into its values.
void ParseList(std::string_view text, v1::HistoryMop* m) {
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    int64_t v = 0;
    const auto [next, ec] = std::from_chars(p, end, v);
    if (ec == std::errc()) m->add_values(v);
    p = next;
    while (p < end && *p != ',') ++p;  // anything else up to the separator
    if (p < end) ++p;
  }
}

}  // namespace

std::vector<v1::Snapshot> PhaseRunner::AddHistory(const std::function<int64_t(int64_t)>& coord, bool final,
                                                  v1::Snapshot* snap) {
  std::vector<v1::Snapshot> parts;
  v1::Snapshot* into = snap;
  size_t bytes = 0;
  uint64_t dropped = 0;
  // Events before one instant, from every worker: the workers go on while
  // they are drained in turn, and what they record meanwhile belongs to
  // the next snapshot, so each snapshot's events all precede the next's.
  const int64_t cut = final ? INT64_MAX : MonoNowNs();
  for (WorkerState* w : states_) {
    if (!w->history) continue;
    w->history->Drain([&](const HistoryEvent& e) {
      if (e.mono_ns >= cut) return false;
      // An event's encoded size, near enough: its numbers and its lists'.
      size_t size = 24;
      for (int i = 0; i < e.n; ++i) size += 24 + e.mops[i].text.size() / 2;
      if (size > kMaxHistoryBytes) {  // lists too long for any message
        ++dropped;
        return true;
      }
      if (bytes > 0 && bytes + size > kMaxHistoryBytes) {
        // A message is full: the rest goes in the interval's next part.
        v1::Snapshot& part = parts.emplace_back();
        part.set_run_id(snap->run_id());
        part.set_agent(snap->agent());
        part.set_phase_index(snap->phase_index());
        part.set_seq(snap->seq());
        part.set_start_ns(snap->start_ns());
        part.set_end_ns(snap->end_ns());
        part.set_part(uint32_t(parts.size()));
        into = &part;
        bytes = 0;
      }
      bytes += size;
      v1::HistoryEvent* h = into->add_history();
      h->set_type(static_cast<v1::HistoryEvent::Type>(e.type));
      h->set_time_ns(coord(e.mono_ns));
      h->set_process(w->global);
      h->set_endpoint(e.endpoint);
      h->set_final(e.final);
      for (int i = 0; i < e.n; ++i) {
        v1::HistoryMop* m = h->add_mops();
        m->set_read(e.mops[i].read);
        m->set_key(e.mops[i].key);
        m->set_value(e.mops[i].value);
        if (e.mops[i].read && e.type == HistoryType::kOk) ParseList(e.mops[i].text, m);
      }
      return true;
    });
  }
  snap->set_history_dropped(dropped);
  return parts;
}

}  // namespace stampede::agent

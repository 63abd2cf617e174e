#include "report/recovery.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/histogram.h"
#include "proto/fault_action.h"
#include "record/record_codec.h"
#include "report/text_format.h"

namespace stampede::report {
namespace {

LatencyWindow Window(const RecoveryTracker::Latencies& l) {
  Histogram h;
  l.MergeInto(&h);
  return {double(h.ValueAtQuantile(0.99)) / 1000.0, double(h.max_ns()) / 1000.0, h.count()};
}

std::string Fmt(double v, const char* unit) {
  if (v < 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%s", v, unit);
  return buf;
}

// Seconds to the ms when they were measured so.
std::string Exact(double v, bool sub_second) {
  if (v < 0 || !sub_second) return Fmt(v, " s");
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f s", v);
  return buf;
}

// A recovery time: n/a when nothing was observed after the fault, "not
// recovered" when the run went on without it happening (until its end or
// the next fault).
std::string Recovered(double v, bool observed, bool next_fault) {
  if (v >= 0) return Fmt(v, " s");
  if (!observed) return "n/a";
  return NotRecovered(next_fault);
}

// In the phase tables' unit (report/text_format.h).
std::string Lat(const LatencyWindow& w) {
  if (w.count == 0) return "n/a";
  return HumanUs(w.p99_us) + " / " + HumanUs(w.max_us);
}

// Seconds kept for a fault's baseline beyond baseline_s: the seconds are
// journalled a little after the fault that follows them is requested.
constexpr double kRecentMarginS = 5;
constexpr double kResultWaitS = 600;

}  // namespace

RecoveryTracker::Latencies RecoveryTracker::Latencies::Of(const Histogram& h) {
  Latencies l;
  h.ForEachBucket([&](int index, uint64_t count) { l.buckets.emplace_back(index, count); });
  l.sum_ns = h.sum_ns();
  l.max_ns = h.max_ns();
  return l;
}

void RecoveryTracker::Latencies::Add(const Latencies& other) {
  std::vector<std::pair<int, uint64_t>> merged;
  merged.reserve(buckets.size() + other.buckets.size());
  auto a = buckets.cbegin();
  auto b = other.buckets.cbegin();
  while (a != buckets.cend() || b != other.buckets.cend()) {
    if (b == other.buckets.cend() || (a != buckets.cend() && a->first < b->first)) {
      merged.push_back(*a++);
    } else if (a == buckets.cend() || b->first < a->first) {
      merged.push_back(*b++);
    } else {
      merged.emplace_back(a->first, a->second + b->second);
      ++a, ++b;
    }
  }
  buckets = std::move(merged);
  sum_ns += other.sum_ns;
  max_ns = std::max(max_ns, other.max_ns);
}

void RecoveryTracker::Latencies::MergeInto(Histogram* h) const {
  for (const auto& [index, count] : buckets) h->AddBucket(index, count);
  h->AddSummary(sum_ns, max_ns);
}

void RecoveryTracker::Add(const record::Record& r) {
  std::visit(record::Overloaded{
                 [&](const record::RunStart& x) {
                   opt_.baseline_s = x.recovery.baseline_s;
                   opt_.recovered_fraction = x.recovery.recovered_fraction;
                   opt_.hold_s = x.recovery.hold_s;
                   healthy_polls_ = std::max(1, x.recovery.healthy_polls);
                 },
                 [&](const record::Second& x) { AddSecond(x); },
                 [&](const record::PhaseStart& x) { AddPhase(x); },
                 [&](const record::HealthPoll& x) {
                   Process(Poll{x.t, x.healthy});
                 },
                 [&](const record::FaultSent& x) { AddFault(x); },
                 [&](const record::FaultDone& x) { AddDone(x); },
                 [](const auto&) {},
             },
             r);
}

void RecoveryTracker::AddPhase(const record::PhaseStart& p) {
  phase_start_.emplace(p.phase, p.t);
  if (!p.group.empty()) phase_start_.emplace(p.group, p.t);
}

void RecoveryTracker::AddFault(const record::FaultSent& x) {
  if (x.undo) return;
  Fault f;
  f.r.index = int(x.index);
  f.r.phase = x.phase;
  f.r.action = x.action;
  f.r.node = x.node;
  f.r.agent = x.agent;
  f.r.detail = x.detail;
  f.r.roll = x.roll;
  f.r.t = f.r.requested_t = x.requested_t;
  if (auto p = phase_start_.find(x.phase); p != phase_start_.end()) f.r.phase_start_t = p->second;
  faults_.push_back(std::move(f));
  auto done = results_.find(faults_.back().r.index);
  if (done != results_.end()) Resolve(&faults_.back(), &done->second);
}

void RecoveryTracker::AddDone(const record::FaultDone& x) {
  const int index = int(x.index);
  Done& d = results_[index];
  d.ok = x.ok;
  d.message = x.message;
  d.t = x.t;
  for (Fault& f : faults_) {
    if (f.r.index == index && !f.resolved) Resolve(&f, &d);
  }
}

// One op's counts of the second, if its phase has run the op.
bool RecoveryTracker::OpSecond(const record::Second& second, Sec* s) {
  auto it = second.ops.find(op_);
  if (it != second.ops.end()) op_phases_.insert(second.index);
  if (!op_phases_.count(second.index)) return false;
  if (it != second.ops.end()) {
    s->outcomes = it->second.outcomes;
    s->latency = Latencies::Of(it->second.latency);
  }
  s->ok = s->outcomes[0];
  for (int i = 1; i < kNumOutcomes; ++i) s->errors += s->outcomes[size_t(i)];
  return true;
}

void RecoveryTracker::AddSecond(const record::Second& second) {
  if (second.late) return;
  Sec s;
  s.end = second.t;
  s.start = s.end - second.interval_s;
  s.phase = second.index;
  if (!op_.empty()) {
    if (!OpSecond(second, &s)) return;
  } else {
    s.scheduled = second.scheduled;
    s.outcomes = second.Outcomes();
    s.ok = s.outcomes[0];
    for (int i = 1; i < kNumOutcomes; ++i) s.errors += s.outcomes[size_t(i)];
    for (const auto& [name, op] : second.ops) s.latency.Add(Latencies::Of(op.latency));
    s.first_ok = second.first_ok_t;
    s.last_ok = second.last_ok_t;
    s.first_err = second.first_err_t;
    s.last_err = second.last_err_t;
    s.uncertainty = second.clock_uncertainty_s;
  }
  // A result that does not come within kResultWaitS (its agent lost; it
  // is journalled when the run ends) no longer holds the numbers back.
  for (Fault& f : faults_) {
    if (!f.resolved && s.end > f.r.t + kResultWaitS) Resolve(&f, nullptr);
  }
  Process(s);
}

// A fault's time is settled by its result (when the action took effect);
// until then what comes waits, so that every record is applied once,
// against the fault's final time.
void RecoveryTracker::Resolve(Fault* f, const Done* done) {
  if (done) {
    f->r.ok = done->ok;
    f->r.message = done->message;
    f->r.done_t = done->t;
    // A topology change counts from when it was asked for: its action is
    // the data moving, and returns when that is done.
    if (done->ok && done->t >= 0 && !IsTopologyAction(f->r.action)) f->r.t = done->t;
  }
  f->resolved = true;
  const size_t k = size_t(f - faults_.data());
  for (const Sec& s : recent_) ApplySecond(f, s, NextT(k));
  Drain();
}

bool RecoveryTracker::Holding() const {
  for (const Fault& f : faults_) {
    if (!f.resolved) return true;
  }
  return !waiting_.empty();
}

void RecoveryTracker::Drain() {
  for (const Fault& f : faults_) {
    if (!f.resolved) return;
  }
  std::deque<std::variant<Sec, Poll>> waiting = std::move(waiting_);
  waiting_.clear();
  for (const auto& w : waiting) {
    if (const Sec* s = std::get_if<Sec>(&w)) {
      Process(*s);
    } else {
      Process(std::get<Poll>(w));
    }
  }
}

void RecoveryTracker::FinishAll() {
  for (Fault& f : faults_) {
    if (!f.resolved) Resolve(&f, nullptr);
  }
}

double RecoveryTracker::NextT(size_t k) const { return k + 1 < faults_.size() ? faults_[k + 1].r.t : 1e18; }

void RecoveryTracker::Process(const Sec& s) {
  if (Holding()) {
    waiting_.emplace_back(s);
    return;
  }
  for (size_t k = 0; k < faults_.size(); ++k) ApplySecond(&faults_[k], s, NextT(k));
  recent_.push_back(s);
  while (!recent_.empty() && recent_.front().end < s.end - opt_.baseline_s - kRecentMarginS) recent_.pop_front();
}

void RecoveryTracker::Process(const Poll& p) {
  if (Holding()) {
    waiting_.emplace_back(p);
    return;
  }
  for (size_t k = 0; k < faults_.size(); ++k) ApplyPoll(&faults_[k], p, NextT(k));
}

void RecoveryTracker::ApplySecond(Fault* f, const Sec& s, double next) const {
  const double t = f->r.t, dur = s.end - s.start;
  // A new phase: the pause before it (a stepped workload's steps, the
  // coordinator's start lead) is no outage, so the next gap is measured
  // from the phase's start.
  if (f->last_phase >= 0 && int64_t(s.phase) != f->last_phase) f->prev_ok = std::max(f->prev_ok, s.start);
  f->last_phase = s.phase;
  if (s.first_ok >= 0 || s.first_err >= 0) f->seen_times = true;
  // The baseline: seconds wholly before the fault. One that straddles it
  // holds operations after it too (a delay's first slow ones), which must
  // not pass for the latency before.
  if (s.end <= t && s.start >= t - opt_.baseline_s - 0.5) {
    f->base_ok += double(s.ok);
    f->base_time += dur;
    f->base_scheduled += std::max(0.0, s.scheduled);
    f->base_open = f->base_open && s.scheduled >= 0;
    f->before.Add(s.latency);
  }
  if (s.end <= t || s.start >= next) {
    if (s.end <= t && s.ok) f->prev_ok = s.last_ok >= 0 ? s.last_ok : s.end;
    return;
  }
  f->r.observed = true;
  ApplyTimes(f, s);
  for (int i = 0; i < kNumOutcomes; ++i) f->r.outcomes[size_t(i)] += s.outcomes[size_t(i)];
  if (s.errors > 0) {
    if (f->first_err < 0) f->first_err = s.start;
    f->last_err = s.end;
  }
  f->run_zero = s.ok == 0 ? f->run_zero + dur : 0;
  f->r.unavailable_s = std::max(f->r.unavailable_s, f->run_zero);
  ApplyWindow(f, s);
}

// When operations ended: the longest stretch without an ok after the fault
// (from the last ok before it, or the fault, to the next ok: a stretch that
// crosses a second's boundary; one within a second is not seen), and the
// first and last error after it.
//
// A second whose oks came without their times stands for its whole
// interval in an older agent's journal (no second has times): no gap is
// invented inside it. Where agents send times, such oks are stragglers:
// Record stores an operation's time, then its count, and the collector
// takes counts, then times, so an operation that ended as one interval was
// drained can be counted in the next with its time in the one before
// (agent/worker_stats.h). Its time is already in prev_ok; standing for its
// interval would cut an outage in two (a 1.5 s pause once measured 0.5 s).
void RecoveryTracker::ApplyTimes(Fault* f, const Sec& s) {
  const double t = f->r.t;
  if (s.first_ok >= 0 || s.first_err >= 0) f->timed = true;
  f->uncertainty = std::max(f->uncertainty, s.uncertainty);
  if (s.ok && (s.first_ok >= 0 || !f->seen_times)) {  // not stragglers (above)
    const double first = s.first_ok >= 0 ? s.first_ok : s.start;
    if (first > std::max(f->prev_ok, t)) f->gap = std::max(f->gap, first - std::max(f->prev_ok, t));
    f->prev_ok = s.last_ok >= 0 ? s.last_ok : s.end;
  }
  const double last_err = s.last_err >= 0 ? s.last_err : s.end;
  if (s.errors && last_err >= t) {
    if (f->exact_first_err < 0) f->exact_first_err = std::max(s.first_err >= 0 ? s.first_err : s.start, t);
    f->exact_last_err = last_err;
  }
}

// Throughput against the baseline: the dip, and recovered once it holds
// for hold_s. Latencies go to "during" until the held stretch that ends
// in recovery begins, and to "after" from there. A fault whose effect
// comes late (a partition the cluster notices after its node timeout) has
// not recovered because the rate held before it dipped: the dip, when it
// comes, takes that back.
void RecoveryTracker::ApplyWindow(Fault* f, const Sec& s) const {
  const double dur = s.end - s.start;
  // What the second should carry: the baseline, or less when its schedule
  // owed less (a ramp down); a second that owed nothing is not rated.
  double expected = Baseline(*f);
  if (s.scheduled >= 0) expected = std::min(expected, s.scheduled / std::max(dur, 1e-9));
  const double target = opt_.recovered_fraction * expected;
  bool was_recovered = f->r.recovered_s >= 0;
  if (dur >= 0.5 && s.scheduled != 0) {
    const double rate = double(s.ok) / dur;
    f->rated = true;
    if (expected > 0 && (f->min_ratio < 0 || rate / expected < f->min_ratio)) f->min_ratio = rate / expected;
    if (rate < target) {
      if (was_recovered && !f->dipped) {
        f->r.recovered_s = -1;
        f->during.Add(f->after);
        f->after = Latencies();
        was_recovered = false;
      }
      f->dipped = true;
      f->held_from = -1;
    } else if (!was_recovered) {
      if (f->held_from < 0) {
        f->held_from = s.start;
        f->held_first_ok = s.first_ok;
      }
      if (s.end - f->held_from >= opt_.hold_s - 1e-6) {
        // From its first ok when known: not before the outage ended.
        const double from = std::max(f->held_from, f->held_first_ok);
        f->r.recovered_s = f->dipped ? std::max(0.0, from - f->r.t) : 0;
      }
    }
  }
  if (was_recovered) {
    f->after.Add(s.latency);
    return;
  }
  if (f->held_from < 0) {
    for (const Latencies& h : f->held) f->during.Add(h);
    f->held.clear();
    f->during.Add(s.latency);
    return;
  }
  f->held.push_back(s.latency);
  if (f->r.recovered_s < 0) return;
  // Recovered: the held stretch is "after"; without a dip, so is the rest.
  for (const Latencies& h : f->held) f->after.Add(h);
  f->held.clear();
  if (!f->dipped) {
    f->after.Add(f->during);
    f->during = Latencies();
  }
}

void RecoveryTracker::Streak::Add(const Poll& p, double fault_t, int needed) {
  if (!p.healthy) {
    active = true;
    n = 0;
    return;
  }
  if (!active || done) return;
  if (n++ == 0) start = p.t;
  if (n >= needed) {
    done = true;
    healthy_s = std::max(0.0, start - fault_t);
  }
}

// Healthy again: the first run of K healthy polls after the fault that
// follows an unhealthy poll (or, if the probe never saw ill health before
// the next fault, the first such run after the fault).
void RecoveryTracker::ApplyPoll(Fault* f, const Poll& p, double next) const {
  if (p.t <= f->r.t) return;
  f->r.probed = true;
  if (p.t < next && !p.healthy) f->saw_unhealthy = true;
  f->any.Add(p, f->r.t, healthy_polls_);
  f->after_unhealthy.Add(p, f->r.t, healthy_polls_);
}

double RecoveryTracker::Baseline(const Fault& f) {
  if (f.base_time <= 0) return 0;
  const double ok = f.base_open ? std::min(f.base_ok, f.base_scheduled) : f.base_ok;
  return ok / f.base_time;
}

FaultRecovery RecoveryTracker::Numbers(const Fault& f, size_t k) const {
  FaultRecovery r = f.r;
  r.next_fault = k + 1 < faults_.size();
  r.baseline_ops_per_s = Baseline(f);
  r.before = Window(f.before);
  r.first_failure_s = f.first_err < 0 ? -1 : std::max(0.0, f.first_err - r.t);
  r.error_window_s = f.first_err < 0 ? -1 : f.last_err - f.first_err;
  r.sub_second = f.timed && f.r.observed;
  if (r.sub_second) {
    // Whole seconds without an ok still count (an outage to the window's end
    // has no next ok to measure to).
    r.unavailable_s = std::max(f.r.unavailable_s, f.gap);
    if (f.exact_first_err >= 0) {
      r.first_failure_s = f.exact_first_err - r.t;
      r.error_window_s = f.exact_last_err - f.exact_first_err;
    }
    r.clock_uncertainty_s = f.uncertainty;
  }
  r.dip = r.baseline_ops_per_s > 0 ? f.min_ratio : -1;
  // The rate never dropped below its target: nothing to recover from, even
  // when the window ended before a whole hold (a restoring action late in
  // the run).
  const bool never_dipped = r.recovered_s < 0 && f.rated && !f.dipped;
  if (never_dipped) r.recovered_s = 0;
  // A start or resume follows an outage: its "baseline" is the outage, and
  // a dip against it says nothing.
  if (IsRestoringAction(r.action)) r.dip = -1;
  r.healthy_s = f.saw_unhealthy ? f.after_unhealthy.healthy_s : f.any.healthy_s;
  Latencies during = f.during, after = f.after;
  for (const Latencies& h : f.held) during.Add(h);  // not recovered (yet)
  if (never_dipped) std::swap(during, after);       // recovered at once: all of it is after
  r.during = Window(during);
  r.after = Window(after);
  return r;
}

std::vector<FaultRecovery> RecoveryTracker::Result() const {
  const RecoveryTracker* t = this;
  RecoveryTracker finished;
  if (Holding()) {
    finished = *this;
    finished.FinishAll();
    t = &finished;
  }
  std::vector<FaultRecovery> out;
  for (size_t k = 0; k < t->faults_.size(); ++k) out.push_back(t->Numbers(t->faults_[k], k));
  return out;
}

namespace {

std::string OnPlanClock(double t, const FaultRecovery& f) {
  char buf[64];
  if (t < 0) return "n/a";
  if (f.phase_start_t < 0) {
    std::snprintf(buf, sizeof(buf), "%.1f s", t);
  } else {
    std::snprintf(buf, sizeof(buf), "%+.1f s", t - f.phase_start_t);
    return f.phase + buf;
  }
  return buf;
}

// "at insert+21.0 s (asked for at insert+12.0 s: the action took 9.0 s;
// 21.7 s into the run)": the plan's clock first, the run's in brackets.
std::string FaultHeadingTime(const FaultRecovery& f) {
  std::string out = "at " + f.When();
  char run[48];
  std::snprintf(run, sizeof(run), "%.1f s into the run", f.t);
  if (IsTopologyAction(f.action) && f.done_t >= f.t) {
    char took[48];
    std::snprintf(took, sizeof(took), " (its command took %.1f s; ", f.done_t - f.t);
    return out + took + run + ")";
  }
  if (f.requested_t >= 0 && f.t - f.requested_t >= 0.05) {
    char took[48];
    std::snprintf(took, sizeof(took), ": the action took %.1f s", f.t - f.requested_t);
    return out + " (asked for at " + f.Asked() + took + "; " + run + ")";
  }
  return f.phase_start_t >= 0 ? out + " (" + run + ")" : out;
}

}  // namespace

std::string FaultRecovery::When() const { return OnPlanClock(t, *this); }
std::string FaultRecovery::Asked() const { return OnPlanClock(requested_t, *this); }

std::string NotRecovered(bool next_fault) {
  return next_fault ? "not recovered before the next fault" : "not recovered within the run";
}

std::string SignedSeconds(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%+.1f s", v);
  return buf;
}

std::vector<FaultRecovery> ComputeRecovery(const std::vector<Json>& journal) {
  RecoveryTracker tracker;
  for (const Json& line : journal) {
    if (auto r = record::Decode(line)) tracker.Add(*r);
  }
  return tracker.Result();
}

Json RecoveryToJson(const FaultRecovery& f) {
  Json errors = Json::object();
  for (int i = 1; i < kNumOutcomes; ++i) errors[std::string(kOutcomeNames[i])] = f.outcomes[i];
  auto lat = [](const LatencyWindow& w) {
    return Json{{"p99_us", w.p99_us}, {"max_us", w.max_us}, {"count", w.count}};
  };
  auto num = [](double v) { return v < 0 ? Json(nullptr) : Json(v); };
  return {{"index", f.index},
          {"phase", f.phase},
          {"action", f.action},
          {"node", f.node},
          {"detail", f.detail},
          {"agent", f.agent},
          {"ok", f.ok},
          {"message", f.message},
          {"t_s", f.t},
          {"requested_t_s", num(f.requested_t)},
          {"done_t_s", num(f.done_t)},
          {"phase_start_t_s", num(f.phase_start_t)},
          {"when", f.When()},
          {"asked", f.Asked()},
          {"baseline_ops_per_s", f.baseline_ops_per_s},
          {"time_to_first_failure_s", num(f.first_failure_s)},
          {"unavailability_s", f.unavailable_s},
          {"error_window_s", num(f.error_window_s)},
          {"sub_second", f.sub_second},
          {"clock_uncertainty_s", f.sub_second ? Json(f.clock_uncertainty_s) : Json(nullptr)},
          {"ok_after", f.outcomes[0]},
          {"errors", errors},
          {"throughput_dip", num(f.dip)},
          {"time_to_recovered_s", num(f.recovered_s)},
          {"time_to_healthy_s", num(f.healthy_s)},
          {"client_gap_s", f.HasGap() ? Json(f.Gap()) : Json(nullptr)},
          {"recovered", f.recovered_s >= 0 ? Json(true)
                        : f.observed       ? Json(false)
                                           : Json(nullptr)},
          {"recovery_window_ends", f.next_fault ? "next fault" : "end of run"},
          {"healthy", f.healthy_s >= 0 ? Json(true)
                      : f.probed       ? Json(false)
                                       : Json(nullptr)},
          {"latency_before", lat(f.before)},
          {"latency_during", lat(f.during)},
          {"latency_after", lat(f.after)},
          {"rebalance", ShowsRebalance(f) ? RebalanceToJson(*f.rebalance) : Json(nullptr)}};
}

std::string RenderRecoveryMarkdown(const std::vector<FaultRecovery>& faults) {
  if (faults.empty()) return "";
  std::ostringstream md;
  md << "\n## Faults and recovery\n";
  for (const FaultRecovery& f : faults) {
    md << "\n### " << f.action << " " << f.node << (f.detail.empty() ? "" : " (" + f.detail + ")") << " "
       << FaultHeadingTime(f) << ", agent " << f.agent << ": " << (f.ok ? "done" : "FAILED: " + f.message) << "\n\n";
    std::string errors;
    for (int i = 1; i < kNumOutcomes; ++i) {
      if (!f.outcomes[i]) continue;
      errors += (errors.empty() ? "" : ", ") + std::string(kOutcomeNames[i]) + " " + std::to_string(f.outcomes[i]);
    }
    char dip[32] = "n/a";
    if (f.dip >= 0) std::snprintf(dip, sizeof(dip), "%.0f%%", f.dip * 100);
    md << "| measure | value |\n|---|---:|\n"
       << "| baseline (ok ops/s before) | " << Fmt(f.baseline_ops_per_s, "") << " |\n"
       << "| time to first failed op | " << Exact(f.first_failure_s, f.sub_second) << " |\n"
       << "| unavailability (longest zero-success window) | " << Exact(f.unavailable_s, f.sub_second) << " |\n"
       << "| first-to-last error window | " << Exact(f.error_window_s, f.sub_second) << " |\n"
       << "| errors after the fault | " << (errors.empty() ? "0" : errors) << " |\n"
       << "| lowest throughput, % of baseline (lowest 1 s ok ops/s / baseline; 0% = no op succeeded) | " << dip
       << " |\n"
       << "| time to recovered throughput | " << Recovered(f.recovered_s, f.observed, f.next_fault) << " |\n"
       << "| time to healthy (health probe) | "
       << (f.probed ? Recovered(f.healthy_s, true, false) : std::string("n/a (no probe)")) << " |\n"
       << "| clients behind the database (recovered - healthy) | " << (f.HasGap() ? SignedSeconds(f.Gap()) : "n/a")
       << " |\n"
       << "| p99 / max before | " << Lat(f.before) << " |\n"
       << "| p99 / max during | " << Lat(f.during) << " |\n"
       << "| p99 / max after | " << Lat(f.after) << " |\n";
    if (ShowsRebalance(f)) md << RebalanceMarkdownRows(*f.rebalance);
    if (f.sub_second) {
      char unc[64];
      std::snprintf(unc, sizeof(unc), "%.1f ms", f.clock_uncertainty_s * 1000);
      md << "\nTime to first failed op, unavailability and the error window are from when operations ended, to "
            "the ms, on the coordinator's clock (agents' clock offsets within "
         << unc << ").\n";
    }
  }
  return md.str();
}

}  // namespace stampede::report

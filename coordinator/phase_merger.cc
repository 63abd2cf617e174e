#include "coordinator/phase_merger.h"

#include <algorithm>

#include "common/clock.h"
#include "proto/histogram_codec.h"

namespace stampede::coordinator {

PhaseMerger::PhaseMerger(std::string phase, uint32_t index, int64_t start_ns, int64_t run_start_ns,
                         std::set<std::string> agents, int64_t grace_ns)
    : phase_(std::move(phase)),
      index_(index),
      start_ns_(start_ns),
      run_start_ns_(run_start_ns),
      expected_(std::move(agents)),
      grace_ns_(grace_ns) {}

void PhaseMerger::Merge(const v1::Snapshot& s, Pending* p) {
  p->agents.insert(s.agent());
  p->start_ns = std::min(p->start_ns, s.start_ns());
  p->end_ns = std::max(p->end_ns, s.end_ns());
  p->active_workers += s.active_workers();
  uint64_t& agent_ops = p->agent_ops[s.agent()];
  p->agent_cpu_ns[s.agent()] += s.cpu_ns();
  if (!s.process().empty()) {
    auto& [process_ns, agents_ns] = p->process_cpu_ns[s.process()];
    process_ns = std::max<uint64_t>(process_ns, s.process_cpu_ns());
    agents_ns += s.cpu_ns();
  }
  // An agent that says what it may use (and how late its loops ran).
  const double interval_s = double(s.end_ns() - s.start_ns()) / 1e9;
  if (s.cpu_cores() > 0 && interval_s >= record::Second::kShortestRateIntervalS) {
    record::AgentLoad& load = p->agent_load[s.agent()];
    // The event loops' own CPU where the agent sends it (an embedded run's
    // process holds other agents and the coordinator too).
    const double cpu_ns = double(s.loops_cpu_ns() ? s.loops_cpu_ns() : s.cpu_ns());
    load.cpu = std::min(100.0, cpu_ns / 1e9 / interval_s / s.cpu_cores());
    if (s.loop_lag().index_size() > 0) load.lag_p99_ms = double(ProtoValueAtQuantile(s.loop_lag(), 0.99)) / 1e6;
  }
  auto earliest = [](int64_t* at, int64_t v) {
    if (v > 0 && (*at == 0 || v < *at)) *at = v;
  };
  earliest(&p->first_ok_ns, s.first_ok_ns());
  earliest(&p->first_err_ns, s.first_err_ns());
  p->last_ok_ns = std::max(p->last_ok_ns, s.last_ok_ns());
  p->last_err_ns = std::max(p->last_err_ns, s.last_err_ns());
  p->clock_uncertainty_ns = std::max(p->clock_uncertainty_ns, s.clock_uncertainty_ns());
  for (const v1::OpStats& o : s.ops()) {
    Op& op = p->ops[o.op()];
    for (int i = 0; i < o.outcomes_size() && i < kNumOutcomes; ++i) {
      op.outcomes[i] += o.outcomes(i);
      agent_ops += o.outcomes(i);
    }
    op.retries += o.retries();
    op.missed += o.missed();
    op.rollbacks += o.rollbacks();
    op.disk_full += o.disk_full();
    op.rows += o.rows();
    MergeHistogramProto(o.latency(), &op.latency);
  }
  for (const v1::EndpointStats& e : s.endpoints()) {
    Endpoint& ep = p->endpoints[e.endpoint()];
    ep.lost += e.lost();
    ep.reconnects += e.reconnects();
    ep.connect_failures += e.connect_failures();
    ep.ok += e.ok();
    earliest(&ep.first_ok_ns, e.first_ok_ns());
    ep.last_ok_ns = std::max(ep.last_ok_ns, e.last_ok_ns());
  }
  for (const v1::AnomalyCount& a : s.anomalies()) p->anomalies[a.kind()] += a.count();
  for (const v1::HistoryEvent& e : s.history()) {
    p->history.push_back(e);
    p->history.back().set_agent(s.agent());
  }
  history_dropped_ += s.history_dropped();
  for (const v1::AnomalyExample& e : s.anomaly_examples()) {
    p->anomaly_examples.push_back({e.kind(), double(e.time_ns() - run_start_ns_) / 1e9, s.agent(), e.endpoint(), e.op(),
                                   e.key(), e.expected(), e.got(), double(e.lag_ns()) / 1e9, e.final(), ""});
  }
}

std::vector<record::Second> PhaseMerger::Add(const v1::Snapshot& s) {
  if (s.part() > 0) return AddPart(s);
  if (!MarkSeen(s.agent(), s.seq())) return {};
  if (s.final()) final_seq_[s.agent()] = s.seq();
  if (int64_t(s.seq()) < next_seq_) {
    Pending late;
    Merge(s, &late);
    std::vector<record::Second> out;
    ReleaseHistory(&late);
    out.push_back(ToSecond(s.seq(), &late, true));
    return out;
  }
  Merge(s, &pending_[s.seq()]);
  return {};
}

// A part of an interval's history: sent before the interval's snapshot,
// so one whose snapshot was seen (or journalled) was handed in before.
// It waits with the interval; it does not count as the agent's snapshot.
std::vector<record::Second> PhaseMerger::AddPart(const v1::Snapshot& s) {
  if (Seen(s.agent(), s.seq()) || !seen_parts_.insert({s.agent(), s.seq(), s.part()}).second) return {};
  Pending late;
  Pending* p = int64_t(s.seq()) < next_seq_ ? &late : &pending_[s.seq()];
  for (const v1::HistoryEvent& e : s.history()) {
    p->history.push_back(e);
    p->history.back().set_agent(s.agent());
  }
  if (p == &late) ReleaseHistory(&late);  // its line went: the events follow as late ones
  return {};
}

bool PhaseMerger::Complete(uint32_t seq, const Pending& p) const {
  for (const std::string& a : expected_) {
    if (p.agents.count(a)) continue;
    auto f = final_seq_.find(a);
    if (f != final_seq_.end() && f->second <= seq) continue;
    return false;
  }
  return true;
}

std::vector<record::Second> PhaseMerger::Flush(int64_t now_ns, bool all) {
  std::vector<record::Second> lines;
  while (!pending_.empty()) {
    auto it = pending_.begin();
    uint32_t seq = it->first;
    bool overdue = now_ns > start_ns_ + int64_t(seq + 1) * kNsPerSec + grace_ns_;
    if (!all && !overdue && !Complete(seq, it->second)) break;
    ReleaseHistory(&it->second);
    lines.push_back(ToSecond(seq, &it->second, false));
    next_seq_ = int64_t(seq) + 1;
    pending_.erase(it);
  }
  return lines;
}

void PhaseMerger::ReleaseHistory(Pending* p) {
  std::stable_sort(p->history.begin(), p->history.end(),
                   [](const v1::HistoryEvent& a, const v1::HistoryEvent& b) { return a.time_ns() < b.time_ns(); });
  for (v1::HistoryEvent& e : p->history) history_.push_back(std::move(e));
  p->history.clear();
}

uint64_t PhaseMerger::TakeHistory(std::vector<v1::HistoryEvent>* out) {
  for (v1::HistoryEvent& e : history_) out->push_back(std::move(e));
  history_.clear();
  const uint64_t dropped = history_dropped_;
  history_dropped_ = 0;
  return dropped;
}

void PhaseMerger::DropAgent(const std::string& agent) { expected_.erase(agent); }

void PhaseMerger::AddAgent(const std::string& agent) {
  expected_.insert(agent);
  final_seq_.erase(agent);
}

void PhaseMerger::MarkJournalled(const std::string& agent, uint32_t seq) { MarkSeen(agent, seq); }

bool PhaseMerger::Seen(const std::string& agent, uint32_t seq) const {
  if (seq >= kSeenBits) return seen_beyond_.count({agent, seq}) > 0;
  auto it = seen_bits_.find(agent);
  return it != seen_bits_.end() && it->second.size() > seq && it->second[seq];
}

bool PhaseMerger::MarkSeen(const std::string& agent, uint32_t seq) {
  if (seq >= kSeenBits) return seen_beyond_.insert({agent, seq}).second;
  std::vector<bool>& bits = seen_bits_[agent];
  if (bits.size() <= seq) bits.resize(std::max<size_t>(seq + 1, bits.size() * 2));
  if (bits[seq]) return false;
  bits[seq] = true;
  return true;
}

// Moves the merged histograms out of *p, which is dropped next.
record::Second PhaseMerger::ToSecond(uint32_t seq, Pending* p, bool late) const {
  record::Second s;
  s.phase = phase_;
  s.index = index_;
  s.seq = seq;
  s.t = double(p->end_ns - run_start_ns_) / 1e9;
  s.phase_t = double(p->end_ns - start_ns_) / 1e9;
  s.interval_s = double(p->end_ns - p->start_ns) / 1e9;
  s.agents = uint32_t(p->agents.size());
  s.active_workers = p->active_workers;
  for (auto& [name, op] : p->ops) {
    record::OpSecond& o = s.ops[name];
    o.outcomes = op.outcomes;
    o.retries = op.retries;
    o.missed = op.missed;
    o.rollbacks = op.rollbacks;
    o.disk_full = op.disk_full;
    o.rows = op.rows;
    o.latency = std::move(op.latency);
  }
  s.agent_ops = p->agent_ops;
  s.from.assign(p->agents.begin(), p->agents.end());
  for (const auto& [agent, ns] : p->agent_cpu_ns) s.agent_cpu_s[agent] = double(ns) / 1e9;
  for (const auto& [process, ns] : p->process_cpu_ns) {
    s.other_cpu_s += double(ns.first > ns.second ? ns.first - ns.second : 0) / 1e9;
  }
  s.agent_load = p->agent_load;
  auto at = [this](int64_t ns) { return ns > 0 ? double(ns - run_start_ns_) / 1e9 : -1.0; };
  for (const auto& [name, e] : p->endpoints) {
    s.endpoints[name] = {e.lost, e.reconnects, e.connect_failures, e.ok, at(e.first_ok_ns), at(e.last_ok_ns)};
  }
  s.first_ok_t = at(p->first_ok_ns);
  s.last_ok_t = at(p->last_ok_ns);
  s.first_err_t = at(p->first_err_ns);
  s.last_err_t = at(p->last_err_ns);
  s.clock_uncertainty_s = double(p->clock_uncertainty_ns) / 1e9;
  if (ops_due_by_ && !late) {
    const double from = double(p->start_ns - start_ns_) / 1e9;
    s.scheduled = std::max(0.0, ops_due_by_(s.phase_t) - ops_due_by_(from));
  }
  s.anomalies = std::move(p->anomalies);
  s.anomaly_examples = std::move(p->anomaly_examples);
  s.late = late;
  return s;
}

}  // namespace stampede::coordinator

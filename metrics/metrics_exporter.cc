#include "metrics/metrics_exporter.h"

#include <prometheus/text_serializer.h>

#include "proto/histogram_codec.h"

namespace stampede::metrics {

MetricsExporter::MetricsExporter() : registry_(std::make_shared<prometheus::Registry>()) {
  ops_ = &prometheus::BuildCounter()
              .Name("stampede_ops_total")
              .Help("Operations finished, by phase, op and outcome (ok, retryable, unavailable, ambiguous, fatal)")
              .Register(*registry_);
  missed_ = &prometheus::BuildCounter()
                 .Name("stampede_ops_missed_total")
                 .Help(
                     "Operations the schedule owed that were never started (the backlog at a deadline, or "
                     "due more than op_timeout before their worker got to them), by phase and op")
                 .Register(*registry_);
  retries_ = &prometheus::BuildCounter()
                  .Name("stampede_op_retries_total")
                  .Help("Extra attempts of operations (their latency includes them), by phase and op")
                  .Register(*registry_);
  rollbacks_ = &prometheus::BuildCounter()
                    .Name("stampede_op_rollbacks_total")
                    .Help(
                        "Operations counted ok that the workload itself rolled back (TPC-C's New-Orders on an "
                        "unused item), by phase and op")
                    .Register(*registry_);
  disk_full_ = &prometheus::BuildCounter()
                    .Name("stampede_op_disk_full_total")
                    .Help("Operations in error that the database refused for a full disk, by phase and op")
                    .Register(*registry_);
  unaccounted_ = &prometheus::BuildCounter()
                      .Name("stampede_ops_unaccounted_total")
                      .Help("Operations a phase owed that no agent reported: the shares of agents lost on the way")
                      .Register(*registry_);
  latency_ = &prometheus::BuildHistogram()
                  .Name("stampede_op_latency_seconds")
                  .Help("Operation latency including retries (open loop: from the intended start)")
                  .Register(*registry_);
  active_ = &prometheus::BuildGauge()
                 .Name("stampede_active_workers")
                 .Help("Workers running operations, by phase")
                 .Register(*registry_);
  progress_ = &prometheus::BuildGauge()
                   .Name("stampede_phase_progress_ratio")
                   .Help("How far the phase is: of the operations it owes, else of its duration (0..1)")
                   .Register(*registry_);
  RegisterMoveGauges();
  agents_ = &prometheus::BuildGauge()
                 .Name("stampede_agents_connected")
                 .Help("Agents connected to the coordinator (an agent: 1)")
                 .Register(*registry_)
                 .Add({});
  faults_ = &prometheus::BuildCounter()
                 .Name("stampede_fault_events_total")
                 .Help("Fault actions sent, by action and node")
                 .Register(*registry_);
  anomalies_ = &prometheus::BuildCounter()
                    .Name("stampede_anomalies_total")
                    .Help("Consistency anomalies the workload's checks found (docs/consistency.md), by phase and kind")
                    .Register(*registry_);
  healthy_family_ = &prometheus::BuildGauge()
                         .Name("stampede_cluster_healthy")
                         .Help("1 if the cluster's own health probe reports healthy, else 0")
                         .Register(*registry_);
  underreplicated_family_ = &prometheus::BuildGauge()
                                 .Name("stampede_cluster_underreplicated")
                                 .Help("Under-replicated ranges/regions/tablets (or missing nodes) the probe reports")
                                 .Register(*registry_);
  node_up_ = &prometheus::BuildGauge()
                  .Name("stampede_node_up")
                  .Help("1 if the node's process was running at its last sample, else 0")
                  .Register(*registry_);
  node_disk_ = &prometheus::BuildGauge()
                    .Name("stampede_node_disk_bytes")
                    .Help("Disk usage of the node's data directory (du), sampled by its agent")
                    .Register(*registry_);
  node_rss_ = &prometheus::BuildGauge()
                   .Name("stampede_node_resident_memory_bytes")
                   .Help("Resident memory of the node's process")
                   .Register(*registry_);
  node_cpu_ = &prometheus::BuildGauge()
                   .Name("stampede_node_cpu_seconds")
                   .Help("CPU time (user + system) the node's process has used since it started")
                   .Register(*registry_);
  agent_cpu_ = &prometheus::BuildGauge()
                    .Name("stampede_agent_cpu_ratio")
                    .Help("CPU the agent's process used last second over the cores it may use")
                    .Register(*registry_);
  agent_lag_ = &prometheus::BuildGauge()
                    .Name("stampede_agent_loop_lag_p99_seconds")
                    .Help("p99 of how late the agent's event loops ran a timer last second")
                    .Register(*registry_);
  agent_saturated_ = &prometheus::BuildGauge()
                          .Name("stampede_client_saturated")
                          .Help(
                              "1 if the agent itself was the bottleneck last second (CPU > 90% or loop lag p99 > "
                              "10 ms), else 0")
                          .Register(*registry_);
  node_share_ = &prometheus::BuildGauge()
                     .Name("stampede_node_share")
                     .Help(
                         "What the node holds, from the database's own view (unit: slots, regions, replicas, "
                         "tablets)")
                     .Register(*registry_);
}

void MetricsExporter::RegisterMoveGauges() {
  move_ratio_ = &prometheus::BuildGauge()
                     .Name("stampede_move_progress_ratio")
                     .Help(
                         "How much of the data a join or a leave must move has moved, by the health polls' "
                         "view of where the data is (0..1; 1 once balanced)")
                     .Register(*registry_);
  move_left_ = &prometheus::BuildGauge()
                    .Name("stampede_move_seconds_left")
                    .Help("Seconds until a join's or leave's data move ends, at the pace of the last polls")
                    .Register(*registry_);
}

const prometheus::Histogram::BucketBoundaries& MetricsExporter::Buckets() {
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
  return kBuckets;
}

void MetricsExporter::AddOp(const std::string& phase, const std::string& op, const OpCounts& c) {
  if (c.missed) missed_->Add({{"phase", phase}, {"op", op}}).Increment(double(c.missed));
  if (c.retries) retries_->Add({{"phase", phase}, {"op", op}}).Increment(double(c.retries));
  if (c.rollbacks) rollbacks_->Add({{"phase", phase}, {"op", op}}).Increment(double(c.rollbacks));
  if (c.disk_full) disk_full_->Add({{"phase", phase}, {"op", op}}).Increment(double(c.disk_full));
  for (int i = 0; i < kNumOutcomes; ++i) {
    if (!c.outcomes[size_t(i)]) continue;
    ops_->Add({{"phase", phase}, {"op", op}, {"outcome", std::string(kOutcomeNames[i])}})
        .Increment(double(c.outcomes[size_t(i)]));
  }
  const Histogram& latency = c.latency;
  if (latency.count() == 0) return;
  const auto& bounds = Buckets();
  std::vector<double> increments(bounds.size() + 1, 0.0);
  latency.ForEachBucket([&](int index, uint64_t count) {
    const double seconds = double(HistogramLayout::Midpoint(index)) / 1e9;
    size_t b = 0;
    while (b < bounds.size() && seconds > bounds[b]) ++b;
    increments[b] += double(count);
  });
  latency_->Add({{"phase", phase}, {"op", op}}, bounds).ObserveMultiple(increments, double(latency.sum_ns()) / 1e9);
}

// get_if, not visit: the analysis of what mu_ guards does not follow into
// lambdas.
void MetricsExporter::OnRecord(const record::Record& r) {
  MutexLock lock(mu_);
  UpdateMoveLocked(r);
  if (const auto* second = std::get_if<record::Second>(&r)) {
    AddSecondLocked(*second);
  } else if (const auto* start = std::get_if<record::PhaseStart>(&r)) {
    active_->Add({{"phase", start->phase}}).Set(0);
  } else if (const auto* end = std::get_if<record::PhaseEnd>(&r)) {
    active_->Add({{"phase", end->phase}}).Set(0);
    if (end->unaccounted) unaccounted_->Add({{"phase", end->phase}}).Increment(double(end->unaccounted));
  } else if (const auto* checked = std::get_if<record::HistoryChecked>(&r)) {
    for (const auto& [kind, n] : checked->counts)
      anomalies_->Add({{"phase", checked->phase}, {"kind", kind}}).Increment(double(n));
  } else if (const auto* fault = std::get_if<record::FaultSent>(&r)) {
    faults_->Add({{"action", fault->action}, {"node", fault->node}}).Increment();
  } else if (const auto* poll = std::get_if<record::HealthPoll>(&r)) {
    healthy_family_->Add({}).Set(poll->healthy ? 1 : 0);
    if (poll->answered) underreplicated_family_->Add({}).Set(double(poll->underreplicated));
    if (!poll->shares.empty()) {
      // A node that left the cluster leaves the gauge too.
      std::set<prometheus::Labels> now;
      for (const record::NodeShare& s : poll->shares) {
        if (s.share < 0) continue;
        const prometheus::Labels labels = {{"node", s.node}, {"unit", poll->share_unit}};
        node_share_->Add(labels).Set(s.share);
        now.insert(labels);
      }
      for (const prometheus::Labels& gone : share_labels_) {
        if (!now.count(gone)) node_share_->Remove(&node_share_->Add(gone));
      }
      share_labels_ = std::move(now);
    }
  } else if (const auto* node = std::get_if<record::NodeSample>(&r)) {
    const prometheus::Labels labels = {{"node", node->node}};
    node_up_->Add(labels).Set(node->running ? 1 : 0);
    if (node->disk_bytes >= 0) node_disk_->Add(labels).Set(double(node->disk_bytes));
    if (node->rss_bytes >= 0) node_rss_->Add(labels).Set(double(node->rss_bytes));
    if (node->cpu_s >= 0) node_cpu_->Add(labels).Set(node->cpu_s);
  }
}

void MetricsExporter::UpdateMoveLocked(const record::Record& r) {
  if (const auto* run = std::get_if<record::RunStart>(&r)) {
    move_ = report::MoveProgress(run->recovery.balance_tolerance);
    return;
  }
  if (!std::holds_alternative<record::FaultSent>(r) && !std::holds_alternative<record::HealthPoll>(r)) return;
  move_.Add(r);
  const std::optional<report::MoveStatus> status = move_.Current();
  if (!status) return;
  // "join redis-new": the action, then the node.
  const size_t space = status->what.find(' ');
  const prometheus::Labels labels = {{"action", status->what.substr(0, space)},
                                     {"node", space == std::string::npos ? "" : status->what.substr(space + 1)}};
  move_ratio_->Add(labels).Set(status->ratio);
  if (status->left_s >= 0) {
    move_left_->Add(labels).Set(status->left_s);
  } else if (move_left_->Has(labels)) {
    move_left_->Remove(&move_left_->Add(labels));
  }
}

void MetricsExporter::AddSecondLocked(const record::Second& second) {
  for (const auto& [name, op] : second.ops) {
    AddOp(second.phase, name, {op.outcomes, op.missed, op.retries, op.rollbacks, op.disk_full, op.latency});
  }
  for (const auto& [kind, n] : second.anomalies)
    anomalies_->Add({{"phase", second.phase}, {"kind", kind}}).Increment(double(n));
  if (!second.late) {
    active_->Add({{"phase", second.phase}}).Set(double(second.active_workers));
    if (second.progress >= 0) progress_->Add({{"phase", second.phase}}).Set(second.progress);
    agents_->Set(double(second.agents));
    for (const auto& [agent, load] : second.agent_load) {
      const prometheus::Labels labels = {{"agent", agent}};
      if (load.cpu >= 0) agent_cpu_->Add(labels).Set(load.cpu);
      if (load.lag_p99_ms >= 0) agent_lag_->Add(labels).Set(load.lag_p99_ms / 1000);
      agent_saturated_->Add(labels).Set(load.Saturated() ? 1 : 0);
    }
  }
}

void MetricsExporter::OnSnapshot(const std::string& phase, const v1::Snapshot& snapshot) {
  MutexLock lock(mu_);
  for (const v1::OpStats& op : snapshot.ops()) {
    std::array<uint64_t, kNumOutcomes> outcomes{};
    for (int i = 0; i < op.outcomes_size() && i < kNumOutcomes; ++i) outcomes[size_t(i)] = op.outcomes(i);
    Histogram h;
    MergeHistogramProto(op.latency(), &h);
    AddOp(phase, op.op(), {outcomes, op.missed(), op.retries(), op.rollbacks(), op.disk_full(), h});
  }
  for (const v1::AnomalyCount& a : snapshot.anomalies()) {
    anomalies_->Add({{"phase", phase}, {"kind", a.kind()}}).Increment(double(a.count()));
  }
  active_->Add({{"phase", phase}}).Set(snapshot.final() ? 0 : double(snapshot.active_workers()));
}

void MetricsExporter::SetAgentsConnected(size_t n) { agents_->Set(double(n)); }

std::string MetricsExporter::Render() const {
  prometheus::TextSerializer serializer;
  return serializer.Serialize(registry_->Collect());
}

}  // namespace stampede::metrics

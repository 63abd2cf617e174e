// Prometheus metrics of a coordinator (the merged view of all agents) or of
// one agent, in the names and labels of DESIGN.md section 6:
//
//   stampede_ops_total{phase,op,outcome}          counter
//   stampede_ops_missed_total{phase,op}           counter (due, never started)
//   stampede_op_retries_total{phase,op}           counter (extra attempts)
//   stampede_op_rollbacks_total{phase,op}         counter (counted ok, rolled back by the workload)
//   stampede_op_disk_full_total{phase,op}         counter (errors: refused for a full disk)
//   stampede_ops_unaccounted_total{phase}         counter (lost agents' shares)
//   stampede_op_latency_seconds{phase,op}         histogram
//   stampede_active_workers{phase}                gauge
//   stampede_phase_progress_ratio{phase}          gauge (of the operations owed, else of the duration)
//   stampede_move_progress_ratio{action,node}     gauge (how much of a join's or leave's data has moved)
//   stampede_move_seconds_left{action,node}       gauge (at the pace of the last polls; absent: not known)
//   stampede_agents_connected                     gauge
//   stampede_fault_events_total{action,node}      counter
//   stampede_cluster_healthy                      gauge (1, 0; absent before a probe)
//   stampede_cluster_underreplicated              gauge
//   stampede_agent_cpu_ratio{agent}               gauge (CPU used / cores it may use, last second)
//   stampede_agent_loop_lag_p99_seconds{agent}    gauge (how late its event loops ran timers)
//   stampede_client_saturated{agent}              gauge (1: the agent was the bottleneck last second)
//   stampede_node_share{node,unit}                gauge (what the node holds, the database's view)
//   stampede_anomalies_total{phase,kind}          counter (consistency anomalies the workload's checks found)
//
// Labels are bounded by the plan and the agents (phase, op, node and agent
// names, outcomes, actions): never a key, a statement or a worker. The latency histograms are
// fed once a second from the merged log-linear histograms
// (Histogram::ObserveMultiple), never per operation. Thread-safe.
#ifndef STAMPEDE_METRICS_METRICS_EXPORTER_H_
#define STAMPEDE_METRICS_METRICS_EXPORTER_H_

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "common/histogram.h"
#include "common/mutex.h"
#include "common/outcome.h"
#include "proto/stampede.pb.h"
#include "record/records.h"
#include "report/move_progress.h"

namespace stampede::metrics {

class MetricsExporter {
 public:
  MetricsExporter();

  // A record of the run as it is journalled (seconds, phases, faults,
  // health polls; others are ignored).
  void OnRecord(const record::Record& r);
  // An agent's own snapshot of `phase`.
  void OnSnapshot(const std::string& phase, const v1::Snapshot& snapshot);
  void SetAgentsConnected(size_t n);

  // The text exposition format, for GET /metrics.
  std::string Render() const;
  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

  // Bucket upper bounds of stampede_op_latency_seconds.
  static const prometheus::Histogram::BucketBoundaries& Buckets();

 private:
  void AddSecondLocked(const record::Second& second) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One op's counts of a second or a snapshot.
  struct OpCounts {
    const std::array<uint64_t, kNumOutcomes>& outcomes;
    uint64_t missed, retries, rollbacks, disk_full;
    const Histogram& latency;
  };
  void AddOp(const std::string& phase, const std::string& op, const OpCounts& c);
  void RegisterMoveGauges();  // the constructor's, for a join's or leave's data move
  // A join's or leave's data move, after a fault or a health poll.
  void UpdateMoveLocked(const record::Record& r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* ops_;
  prometheus::Family<prometheus::Counter>* missed_;
  prometheus::Family<prometheus::Counter>* retries_;
  prometheus::Family<prometheus::Counter>* rollbacks_;
  prometheus::Family<prometheus::Counter>* disk_full_;
  prometheus::Family<prometheus::Counter>* unaccounted_;
  prometheus::Family<prometheus::Histogram>* latency_;
  prometheus::Family<prometheus::Gauge>* active_;
  prometheus::Family<prometheus::Gauge>* progress_;
  prometheus::Family<prometheus::Gauge>* move_ratio_;
  prometheus::Family<prometheus::Gauge>* move_left_;
  report::MoveProgress move_ ABSL_GUARDED_BY(mu_);
  prometheus::Gauge* agents_;
  prometheus::Family<prometheus::Counter>* faults_;
  prometheus::Family<prometheus::Counter>* anomalies_;
  prometheus::Family<prometheus::Gauge>* healthy_family_;
  prometheus::Family<prometheus::Gauge>* underreplicated_family_;
  // The database nodes' resources (agent/node_sampler.h), by node.
  prometheus::Family<prometheus::Gauge>* node_up_;
  prometheus::Family<prometheus::Gauge>* node_disk_;
  prometheus::Family<prometheus::Gauge>* node_rss_;
  prometheus::Family<prometheus::Gauge>* node_cpu_;
  prometheus::Family<prometheus::Gauge>* agent_cpu_;
  prometheus::Family<prometheus::Gauge>* agent_lag_;
  prometheus::Family<prometheus::Gauge>* agent_saturated_;
  prometheus::Family<prometheus::Gauge>* node_share_;
  std::set<prometheus::Labels> share_labels_ ABSL_GUARDED_BY(mu_);  // the last poll's nodes
  Mutex mu_;
  std::map<std::string, std::string> phase_of_index_;  // journal phase names by index
};

}  // namespace stampede::metrics

#endif  // STAMPEDE_METRICS_METRICS_EXPORTER_H_

// Per-worker, per-op counters: written by one worker thread without locks or
// allocation, drained once a second by the runner's collector.
#ifndef STAMPEDE_AGENT_WORKER_STATS_H_
#define STAMPEDE_AGENT_WORKER_STATS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/anomaly.h"
#include "common/histogram.h"
#include "common/outcome.h"

namespace stampede::agent {

struct OpCounters {
  std::array<std::atomic<uint64_t>, kNumOutcomes> outcomes{};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> missed{0};
  std::atomic<uint64_t> rollbacks{0};
  std::atomic<uint64_t> disk_full{0};
  std::atomic<uint64_t> rows{0};  // rows a load's ok operations put in
  HistogramRecorder latency;
};

// Connection events of one loop's workers on one endpoint, and the
// operations it served: how many ended ok there, and when the first and the
// last of them did (monotonic ns, 0: none) — when a node that joined served
// its first operation, and one that left its last.
struct EndpointCounters {
  std::atomic<uint64_t> lost{0};
  std::atomic<uint64_t> reconnects{0};
  std::atomic<uint64_t> connect_failures{0};
  std::atomic<uint64_t> ok{0};
  std::atomic<int64_t> first_ok{0}, last_ok{0};

  // The loop's thread only. Times before the count, as WorkerStats::Record.
  void RecordOk(int64_t now_ns) {
    if (!first_ok.load(std::memory_order_relaxed)) first_ok.store(now_ns, std::memory_order_relaxed);
    last_ok.store(now_ns, std::memory_order_relaxed);
    ok.fetch_add(1, std::memory_order_release);
  }
};

// What the collector accumulates per op and per endpoint.
struct OpTotals {
  std::array<uint64_t, kNumOutcomes> outcomes{};
  uint64_t retries = 0;
  uint64_t missed = 0;
  uint64_t rollbacks = 0;
  uint64_t disk_full = 0;
  uint64_t rows = 0;
};
// When, within one collection interval, operations first and last ended
// ok and in error (monotonic ns, 0: none): what the sub-second recovery
// numbers are made of (report/recovery.h).
struct OpTimes {
  int64_t first_ok = 0, last_ok = 0, first_err = 0, last_err = 0;
  void Merge(int64_t first, int64_t last, bool ok) {
    int64_t& f = ok ? first_ok : first_err;
    int64_t& l = ok ? last_ok : last_err;
    if (first && (!f || first < f)) f = first;
    if (last > l) l = last;
  }
};
struct EndpointTotals {
  uint64_t lost = 0;
  uint64_t reconnects = 0;
  uint64_t connect_failures = 0;
  uint64_t ok = 0;
  OpTimes times;  // its ok times only
};

inline uint64_t Take(std::atomic<uint64_t>& c) {
  return c.load(std::memory_order_relaxed) ? c.exchange(0, std::memory_order_relaxed) : 0;
}

// An anomaly a worker's check found (common/anomaly.h), with when it was
// seen (monotonic), on which endpoint, by which op.
struct AnomalySeen {
  AnomalyNote note;
  int64_t mono_ns = 0;
  int32_t endpoint = 0;
  int32_t op = 0;
  bool final = false;  // by the final read after the phase (WorkerOps::FinalRead)
};

class WorkerStats {
 public:
  WorkerStats(size_t num_ops, size_t num_endpoints) {
    for (size_t i = 0; i < num_ops; ++i) ops_.push_back(std::make_unique<OpCounters>());
    for (size_t i = 0; i < num_endpoints; ++i) {
      endpoints_.push_back(std::make_unique<EndpointCounters>());
    }
  }

  // Worker thread only; now_ns: when the operation ended (monotonic).
  void Record(int op, Outcome outcome, uint64_t latency_ns, uint32_t retries, int64_t now_ns) {
    // The time before the count (released with it), and the collector takes
    // counts before times: an operation counted in an interval has its time
    // there too. One that ends between the collector's two takes has its
    // time in that interval and its count in the next (report/recovery.cc:
    // a straggler).
    const bool ok = outcome == Outcome::kOk;
    std::atomic<int64_t>& first = ok ? first_ok_ : first_err_;
    if (!first.load(std::memory_order_relaxed)) first.store(now_ns, std::memory_order_relaxed);
    (ok ? last_ok_ : last_err_).store(now_ns, std::memory_order_relaxed);
    OpCounters& c = *ops_[op];
    c.outcomes[static_cast<int>(outcome)].fetch_add(1, std::memory_order_release);
    if (retries) c.retries.fetch_add(retries, std::memory_order_relaxed);
    c.latency.Record(latency_ns);
  }
  // Worker thread only: an anomaly. Its count always; the first
  // kAnomalyExamples of the phase are kept as examples, and the final
  // read's (one more slot).
  static constexpr uint32_t kAnomalyExamples = 10;
  void RecordAnomaly(const AnomalySeen& a) {
    anomalies_[static_cast<size_t>(a.note.kind)].fetch_add(1, std::memory_order_relaxed);
    const uint32_t n = examples_published_.load(std::memory_order_relaxed);
    if (n >= (a.final ? kAnomalyExamples + 1 : kAnomalyExamples)) return;
    examples_[n] = a;
    examples_published_.store(n + 1, std::memory_order_release);
  }
  // Collector thread only: the anomalies since the last call.
  void DrainAnomalies(std::array<uint64_t, kNumAnomalies>* counts, std::vector<AnomalySeen>* examples) {
    for (size_t k = 0; k < anomalies_.size(); ++k) (*counts)[k] += Take(anomalies_[k]);
    const uint32_t n = examples_published_.load(std::memory_order_acquire);
    for (uint32_t i = examples_taken_; i < n; ++i) examples->push_back(examples_[i]);
    examples_taken_ = n;
  }
  // The loop's thread only: how late a timer ran (the loop's lag probe).
  void RecordLag(uint64_t ns) { loop_lag_.Record(ns); }
  // Collector thread only.
  void DrainLagInto(Histogram* h) { loop_lag_.DrainInto(h); }
  // Worker thread only: n operations of kind op were due but not started.
  void Miss(int op, uint64_t n = 1) { ops_[op]->missed.fetch_add(n, std::memory_order_relaxed); }
  // Worker thread only: an op (counted ok) that the workload rolled back.
  void Rollback(int op) { ops_[op]->rollbacks.fetch_add(1, std::memory_order_relaxed); }
  // Worker thread only: an op (counted in error) refused for a full disk.
  void DiskFull(int op) { ops_[op]->disk_full.fetch_add(1, std::memory_order_relaxed); }
  // Worker thread only: rows an op of a load put in (WorkerOps::rows).
  void Rows(int op, uint64_t n) { ops_[op]->rows.fetch_add(n, std::memory_order_relaxed); }
  size_t num_ops() const { return ops_.size(); }
  EndpointCounters& endpoint(size_t i) { return *endpoints_[i]; }

  // Collector thread only: moves counts into the accumulators.
  void DrainInto(std::vector<OpTotals>* ops, std::vector<Histogram>* latency, std::vector<EndpointTotals>* endpoints,
                 OpTimes* times) {
    for (size_t i = 0; i < ops_.size(); ++i) {
      for (int o = 0; o < kNumOutcomes; ++o) (*ops)[i].outcomes[o] += Take(ops_[i]->outcomes[o]);
      (*ops)[i].retries += Take(ops_[i]->retries);
      (*ops)[i].missed += Take(ops_[i]->missed);
      (*ops)[i].rollbacks += Take(ops_[i]->rollbacks);
      (*ops)[i].disk_full += Take(ops_[i]->disk_full);
      (*ops)[i].rows += Take(ops_[i]->rows);
      ops_[i]->latency.DrainInto(&(*latency)[i]);
    }
    // Counts first, then times (see Record): every counted operation's time
    // is visible here.
    std::atomic_thread_fence(std::memory_order_acquire);
    times->Merge(first_ok_.exchange(0, std::memory_order_relaxed), last_ok_.exchange(0, std::memory_order_relaxed),
                 true);
    times->Merge(first_err_.exchange(0, std::memory_order_relaxed), last_err_.exchange(0, std::memory_order_relaxed),
                 false);
    for (size_t i = 0; i < endpoints_.size(); ++i) {
      EndpointCounters& c = *endpoints_[i];
      EndpointTotals& t = (*endpoints)[i];
      t.lost += Take(c.lost);
      t.reconnects += Take(c.reconnects);
      t.connect_failures += Take(c.connect_failures);
      t.ok += Take(c.ok);
    }
    // As above: the counts taken, then their times.
    std::atomic_thread_fence(std::memory_order_acquire);
    for (size_t i = 0; i < endpoints_.size(); ++i) {
      EndpointCounters& c = *endpoints_[i];
      (*endpoints)[i].times.Merge(c.first_ok.exchange(0, std::memory_order_relaxed),
                                  c.last_ok.exchange(0, std::memory_order_relaxed), true);
    }
  }

 private:
  std::vector<std::unique_ptr<OpCounters>> ops_;
  std::vector<std::unique_ptr<EndpointCounters>> endpoints_;
  std::atomic<int64_t> first_ok_{0}, last_ok_{0}, first_err_{0}, last_err_{0};
  HistogramRecorder loop_lag_;
  std::array<std::atomic<uint64_t>, kNumAnomalies> anomalies_{};
  std::array<AnomalySeen, kAnomalyExamples + 1> examples_{};
  std::atomic<uint32_t> examples_published_{0};
  uint32_t examples_taken_ = 0;  // collector thread
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_WORKER_STATS_H_

// Per-worker, per-op counters: written by one worker thread without locks or
// allocation, drained once a second by the runner's collector.
#ifndef STAMPEDE_AGENT_WORKER_STATS_H_
#define STAMPEDE_AGENT_WORKER_STATS_H_

#include <array>
#include <atomic>
#include <memory>
#include <vector>

#include "common/histogram.h"
#include "common/outcome.h"

namespace stampede::agent {

struct OpCounters {
  std::array<std::atomic<uint64_t>, kNumOutcomes> outcomes{};
  HistogramRecorder latency;
};

class WorkerStats {
 public:
  explicit WorkerStats(size_t num_ops) {
    for (size_t i = 0; i < num_ops; ++i) ops_.push_back(std::make_unique<OpCounters>());
  }

  // Worker thread only.
  void Record(int op, Outcome outcome, uint64_t latency_ns) {
    OpCounters& c = *ops_[op];
    c.outcomes[static_cast<int>(outcome)].fetch_add(1, std::memory_order_relaxed);
    c.latency.Record(latency_ns);
  }

  // Collector thread only: moves counts into the accumulators.
  void DrainInto(std::vector<std::array<uint64_t, kNumOutcomes>>* outcomes,
                 std::vector<Histogram>* latency) {
    for (size_t i = 0; i < ops_.size(); ++i) {
      for (int o = 0; o < kNumOutcomes; ++o) {
        if (ops_[i]->outcomes[o].load(std::memory_order_relaxed) == 0) continue;
        (*outcomes)[i][o] += ops_[i]->outcomes[o].exchange(0, std::memory_order_relaxed);
      }
      ops_[i]->latency.DrainInto(&(*latency)[i]);
    }
  }

 private:
  std::vector<std::unique_ptr<OpCounters>> ops_;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_WORKER_STATS_H_

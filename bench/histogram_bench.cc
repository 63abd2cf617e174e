// What recording a latency costs a worker, and what the collector and the
// coordinator pay to drain, merge and serialize histograms.
//
//   build/bench/histogram_bench
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "common/histogram.h"
#include "common/rng.h"

namespace stampede {
namespace {

// Latencies spread over 50 µs .. 50 ms, as a run against a busy cluster.
std::vector<uint64_t> Latencies(size_t n) {
  Rng rng(7);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = 50'000 + rng.Uniform(50'000'000);
  return v;
}

// A worker's Record(): the per-operation cost (one writer thread).
void BM_RecorderRecord(benchmark::State& state) {
  static HistogramRecorder recorder;
  const std::vector<uint64_t> values = Latencies(4096);
  size_t i = 0;
  for (auto _ : state) {
    recorder.Record(values[i++ & 4095]);
  }
}
BENCHMARK(BM_RecorderRecord);

// The collector's second-by-second drain of one recorder.
void BM_RecorderDrain(benchmark::State& state) {
  static HistogramRecorder recorder;
  const std::vector<uint64_t> values = Latencies(4096);
  Histogram out;
  for (auto _ : state) {
    state.PauseTiming();
    for (int k = 0; k < state.range(0); ++k) recorder.Record(values[size_t(k) & 4095]);
    state.ResumeTiming();
    recorder.DrainInto(&out);
  }
}
BENCHMARK(BM_RecorderDrain)->Arg(100)->Arg(10000);

// The coordinator's merge of one agent's snapshot histogram into the run's.
void BM_HistogramMerge(benchmark::State& state) {
  Histogram from;
  for (uint64_t v : Latencies(size_t(state.range(0)))) from.Record(v);
  Histogram into;
  for (auto _ : state) {
    into.Merge(from);
    benchmark::DoNotOptimize(into.count());
  }
}
BENCHMARK(BM_HistogramMerge)->Arg(100)->Arg(10000);

// Sparse form as it travels in snapshots: read back bucket by bucket.
void BM_HistogramSparseRoundTrip(benchmark::State& state) {
  Histogram from;
  for (uint64_t v : Latencies(size_t(state.range(0)))) from.Record(v);
  for (auto _ : state) {
    Histogram back;
    from.ForEachBucket([&](int i, uint64_t c) { back.AddBucket(i, c); });
    benchmark::DoNotOptimize(back.count());
  }
}
BENCHMARK(BM_HistogramSparseRoundTrip)->Arg(100)->Arg(10000);

}  // namespace
}  // namespace stampede

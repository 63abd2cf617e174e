// What the run history costs (runs/run_store.h, docs/history.md): a run's
// end (its record written, the plan's runs read back and compared, as
// `stampede run` does), and listing a history of 10,000 runs, in the
// SQLite file. Each run carries 40 tracked numbers and 10 checks, a
// nightly failover plan's size.
//
//   build/bench/run_store_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "runs/run_store.h"
#include "runs/trends.h"

namespace stampede {
namespace {

runs::RunRecord ARun(int i, const std::string& plan) {
  runs::RunRecord r;
  r.run_id = plan + "-" + std::to_string(i);
  r.plan = plan;
  char started[32];
  std::snprintf(started, sizeof(started), "2026-%02d-%02dT%02d:00:00Z", 1 + i / 600 % 12, 1 + i / 24 % 25, i % 24);
  r.started_at = started;
  r.verdict = "ok";
  r.duration_s = 60;
  for (int m = 0; m < 40; ++m) r.metrics.push_back({"phase op metric " + std::to_string(m), 100.0 + i % 7, m % 2 == 0});
  for (int c = 0; c < 10; ++c) r.checks.push_back({"phase load: check " + std::to_string(c), 1.0 + i % 5, false});
  return r;
}

// A store holding n runs: of one plan, or spread over 100 plans.
std::string Filled(int n, bool one_plan) {
  const std::string path = "/tmp/stampede-runs-bench-" + std::to_string(getpid()) + "-" + std::to_string(n) +
                           (one_plan ? "-one" : "-many") + ".db";
  std::remove(path.c_str());
  auto store = runs::RunStore::Open(path);
  for (int i = 0; i < n; ++i) (void)(*store)->Record(ARun(i, one_plan ? "nightly" : "plan" + std::to_string(i % 100)));
  return path;
}

// A run's end, as `stampede run` does it: the store opened, the run
// recorded, the plan's last runs read and the latest compared with them.
void BM_RunEnd(benchmark::State& state) {
  const std::string path = Filled(int(state.range(0)), true);
  int i = int(state.range(0));
  for (auto _ : state) {
    auto store = runs::RunStore::Open(path);
    (void)(*store)->Record(ARun(i++, "nightly"));
    auto list = (*store)->Runs("nightly", runs::kLevelWindow + 1);
    auto plans = (*store)->Plans();
    benchmark::DoNotOptimize(runs::LatestInWords(*list, (*plans)[0].runs - 1));
  }
  std::remove(path.c_str());
}
BENCHMARK(BM_RunEnd)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(5);

// `stampede history` on 10,000 runs of 100 plans, and one plan's 10,000.
void BM_ListPlans(benchmark::State& state) {
  const std::string path = Filled(10000, false);
  auto store = runs::RunStore::Open(path);
  for (auto _ : state) benchmark::DoNotOptimize((*store)->Plans());
  std::remove(path.c_str());
}
BENCHMARK(BM_ListPlans)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_RunsOfAPlan(benchmark::State& state) {
  const std::string path = Filled(10000, true);
  auto store = runs::RunStore::Open(path);
  for (auto _ : state) benchmark::DoNotOptimize((*store)->Runs("nightly"));
  std::remove(path.c_str());
}
BENCHMARK(BM_RunsOfAPlan)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace stampede

BENCHMARK_MAIN();

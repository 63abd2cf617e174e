// What append's history costs: a worker's record of one transaction (the
// operation path), and the coordinator's check of a whole history
// (report/history_check.h, its dependency graph included), 100,000 and
// 1,000,000 transactions.
//
//   build/bench/history_check_bench [--benchmark_filter=Check]
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/history_log.h"
#include "common/rng.h"
#include "report/history_check.h"

namespace stampede {
namespace {

// A consistent history of n transactions by 8 workers, as a correct
// database gives: 1-4 appends and reads on 10 keys at a time, each key
// taking 32 appends, then the final reads. Returns its path.
std::string WriteHistory(int64_t n) {
  const std::string path = "/tmp/stampede-history-bench-" + std::to_string(getpid()) + ".jsonl";
  std::ofstream out(path);
  std::map<int64_t, std::string> lists;
  Rng rng(7);
  int64_t t = 0, value = 0, index = 0;
  auto line = [&](const char* type, int process, const std::string& mops, bool final) {
    out << R"({"index":)" << index++ << R"(,"type":")" << type << R"(","f":"txn","process":)" << process
        << R"(,"time":)" << (t += 10000) << R"(,"value":[)" << mops
        << R"(],"phase":"append","endpoint":"127.0.0.1:5432","agent":"a1")" << (final ? R"(,"final":true})" : "}")
        << "\n";
  };
  for (int64_t i = 0; i < n; ++i) {
    const int process = int(i % 8);
    const int64_t first = (value / 320) * 10;
    std::string invoked, completed;
    const int mops = 1 + int(rng.Uniform(4));
    for (int m = 0; m < mops; ++m) {
      const int64_t key = first + int64_t(rng.Uniform(10));
      const std::string sep = m ? "," : "";
      if (rng.NextDouble() < 0.5) {
        invoked += sep + R"(["r",)" + std::to_string(key) + ",null]";
        completed += sep + R"(["r",)" + std::to_string(key) + ",[" + lists[key] + "]]";
      } else {
        const std::string v = std::to_string(++value);
        lists[key] += (lists[key].empty() ? "" : ",") + v;
        invoked += sep + R"(["append",)" + std::to_string(key) + "," + v + "]";
        completed += sep + R"(["append",)" + std::to_string(key) + "," + v + "]";
      }
    }
    line("invoke", process, invoked, false);
    line("ok", process, completed, false);
  }
  for (const auto& [key, list] : lists) {
    line("invoke", 0, R"(["r",)" + std::to_string(key) + ",null]", true);
    line("ok", 0, R"(["r",)" + std::to_string(key) + ",[" + list + "]]", true);
  }
  return path;
}

void BM_CheckHistory(benchmark::State& state) {
  const std::string path = WriteHistory(state.range(0));
  uint64_t anomalies = 0;
  for (auto _ : state) {
    auto c = report::CheckHistory(path, "append", 0);
    if (!c.ok()) state.SkipWithError(c.status().message().c_str());
    for (const auto& [kind, n] : c->counts) anomalies += n;
  }
  if (anomalies) state.SkipWithError("a consistent history has anomalies");
  state.counters["transactions"] = double(state.range(0));
  state.counters["transactions/s"] =
      benchmark::Counter(double(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
  std::remove(path.c_str());
}
// 100,000 and 1,000,000 transactions: the second is a long run's history
// (about 3 minutes at 6,000 transactions a second).
BENCHMARK(BM_CheckHistory)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(1);

// A worker's record of a two-append, one-read transaction's completion.
void BM_HistoryRecord(benchmark::State& state) {
  HistoryLog log;
  const std::string list = "101,205,309,413,517,621,725,829";
  HistoryEvent e;
  e.type = HistoryType::kOk;
  e.n = 3;
  e.mops[0] = {false, 4, 17, {}};
  e.mops[1] = {false, 7, 18, {}};
  e.mops[2] = {true, 4, 0, list};
  int64_t i = 0;
  for (auto _ : state) {
    e.mono_ns = ++i;
    log.Record(e);
    if ((i & 4095) == 0) log.Drain([](const HistoryEvent&) { return true; });
  }
}
BENCHMARK(BM_HistoryRecord);

}  // namespace
}  // namespace stampede

BENCHMARK_MAIN();

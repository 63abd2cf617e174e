// Per-operation generator cost: the time a worker spends producing the next
// operation's parameters (WorkerOps::Next, plus More for multi-statement
// ops), for every built-in workload. This is on the hot path of every
// operation, next to the driver's own cost (~8-10 µs per point select for
// the peers in docs/PERFORMANCE.md); it should stay at a few hundred ns.
//
//   build/bench/generators_bench
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "workloads/workload_registry.h"

namespace stampede::workloads {
namespace {

void RunGenerator(benchmark::State& state, const std::string& workload, const std::string& step,
                  const std::map<std::string, std::string>& params,
                  drivers::Dialect dialect = drivers::Dialect::kPostgres) {
  WorkloadContext ctx;
  ctx.seed = 42;
  ctx.total_workers = 64;
  ctx.group_workers = 64;
  ctx.step = step;
  ctx.dialect = dialect;
  auto w = CreateWorkload(workload, ctx, params);
  if (!w.ok()) {
    state.SkipWithError(w.status().message().c_str());
    return;
  }
  auto ops = (*w)->MakeWorker(7);
  drivers::OpRequest req;
  for (auto _ : state) {
    int op = ops->Next(&req);
    while (ops->More(&req)) {
    }
    benchmark::DoNotOptimize(op);
    benchmark::DoNotOptimize(req);
  }
}

void BM_CrudInsert(benchmark::State& s) { RunGenerator(s, "crud", "", {}); }
void BM_CrudMixed(benchmark::State& s) {
  RunGenerator(s, "crud", "", {{"insert", "1"}, {"select", "3"}, {"update", "1"}, {"keys", "1000000"}});
}
void BM_KvUniform(benchmark::State& s) { RunGenerator(s, "kv", "", {{"keys", "1000000"}}); }
void BM_KvZipfian(benchmark::State& s) {
  RunGenerator(s, "kv", "", {{"keys", "1000000"}, {"distribution", "zipfian"}});
}
void BM_RebalanceInsertOne(benchmark::State& s) {
  RunGenerator(s, "rebalance2021", "InsertOne", {{"records_per_worker", "1000000000"}});
}
void BM_RebalanceSelectOne(benchmark::State& s) {
  RunGenerator(s, "rebalance2021", "SelectOne", {{"records_per_worker", "1000000000"}});
}
void BM_YcsbLoad(benchmark::State& s) { RunGenerator(s, "ycsb", "load", {{"records", "1000000000"}}); }
void BM_YcsbA(benchmark::State& s) { RunGenerator(s, "ycsb", "run", {{"mix", "a"}, {"records", "1000000"}}); }
void BM_YcsbD(benchmark::State& s) { RunGenerator(s, "ycsb", "run", {{"mix", "d"}, {"records", "1000000"}}); }
void BM_YcsbE(benchmark::State& s) { RunGenerator(s, "ycsb", "run", {{"mix", "e"}, {"records", "1000000"}}); }
void BM_YcsbFRedis(benchmark::State& s) {
  RunGenerator(s, "ycsb", "run", {{"mix", "f"}, {"records", "1000000"}}, drivers::Dialect::kRedis);
}

void BM_HugedbMixed(benchmark::State& s) {
  RunGenerator(s, "hugedb2019", "mixed", {{"users", "100000000"}, {"searches", "100000000"}});
}
void BM_GeoSearchMove(benchmark::State& s) { RunGenerator(s, "geo", "run", {{"points", "1000000"}}); }
void BM_Custom(benchmark::State& s) {
  // An insert with six generated values, and a lookup of a remembered id.
  static v1::CustomWorkload spec = [] {
    v1::CustomWorkload c;
    auto* ins = c.add_ops();
    ins->set_name("ins");
    ins->set_weight(1);
    auto* st = ins->add_statements();
    st->set_text("INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)");
    for (const char* k : {"sequence", "uniform", "zipfian", "string", "uuid", "now"}) {
      auto* g = st->add_params();
      g->set_kind(k);
      g->set_a(k == std::string("string") ? 20 : 1000);
      g->set_b(2000);
    }
    auto* get = c.add_ops();
    get->set_name("get");
    get->set_weight(1);
    auto* gs = get->add_statements();
    gs->set_text("SELECT * FROM t WHERE id = $1");
    auto* from = gs->add_params();
    from->set_kind("from");
    from->set_from_op("ins");
    return c;
  }();
  WorkloadContext ctx;
  ctx.total_workers = 64;
  ctx.custom = &spec;
  auto w = CreateWorkload("custom", ctx, {});
  if (!w.ok()) {
    s.SkipWithError(w.status().message().c_str());
    return;
  }
  auto ops = (*w)->MakeWorker(3);
  drivers::OpRequest req;
  drivers::OpResult ok;
  for (auto _ : s) {
    int op = ops->Next(&req);
    while (ops->More(&req)) {
    }
    ops->Observe(op, ok);
    benchmark::DoNotOptimize(req);
  }
}

BENCHMARK(BM_CrudInsert);
BENCHMARK(BM_CrudMixed);
BENCHMARK(BM_KvUniform);
BENCHMARK(BM_KvZipfian);
BENCHMARK(BM_RebalanceInsertOne);
BENCHMARK(BM_RebalanceSelectOne);
BENCHMARK(BM_YcsbLoad);
BENCHMARK(BM_YcsbA);
BENCHMARK(BM_YcsbD);
BENCHMARK(BM_YcsbE);
BENCHMARK(BM_YcsbFRedis);
BENCHMARK(BM_HugedbMixed);
BENCHMARK(BM_GeoSearchMove);
BENCHMARK(BM_Custom);

}  // namespace
}  // namespace stampede::workloads

BENCHMARK_MAIN();

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "workloads/crud_workload.h"
#include "workloads/orm_workload.h"
#include "workloads/rebalance_workload.h"
#include "workloads/workload_registry.h"

namespace stampede::workloads {
namespace {

TEST(WorkloadRegistryTest, NamesAreUnique) { EXPECT_TRUE(CheckWorkloadRegistry().ok()); }

// A TPC-C load's progress counts its rows: the specification's
// cardinalities for W warehouses; other steps and workloads count
// operations.
TEST(WorkloadRegistryTest, ProgressRowsOfATpccLoad) {
  EXPECT_EQ(ProgressRows("tpcc", {{"warehouses", "3"}}, "load"), 1597033u);
  EXPECT_EQ(ProgressRows("tpcc", {{"warehouses", "5"}}, "load"), 2595055u);
  EXPECT_EQ(ProgressRows("tpcc", {{"warehouses", "3"}}, "check"), 0u);
  EXPECT_EQ(ProgressRows("kv", {{"keys", "10"}}, ""), 0u);
  EXPECT_EQ(ProgressRows("no-such-workload", {}, "load"), 0u);
}

// Inserts of all workers, on however many agents, never share a key, and the
// stream of a worker does not depend on which agent runs it.
TEST(CrudWorkloadTest, InsertKeysAreDisjointAcrossWorkers) {
  WorkloadContext ctx;
  ctx.seed = 42;
  ctx.total_workers = 8;
  auto w = CreateWorkload("crud", ctx, {});
  ASSERT_TRUE(w.ok()) << w.status().message();
  std::set<int64_t> seen;
  for (uint32_t g = 0; g < 8; ++g) {
    auto ops = (*w)->MakeWorker(g);
    for (int i = 0; i < 1000; ++i) {
      drivers::OpRequest req;
      ASSERT_EQ(ops->Next(&req), 0);
      EXPECT_TRUE(seen.insert(req.params[0].i).second) << req.params[0].i;
    }
  }
  EXPECT_EQ(seen.size(), 8000u);
  EXPECT_EQ(*seen.rbegin(), 7999);
}

TEST(CrudWorkloadTest, SameSeedSameStream) {
  WorkloadContext ctx;
  ctx.seed = 7;
  ctx.total_workers = 4;
  std::map<std::string, std::string> params = {{"insert", "1"}, {"select", "3"}};
  auto a = CreateWorkload("crud", ctx, params);
  auto b = CreateWorkload("crud", ctx, params);
  auto wa = (*a)->MakeWorker(2), wb = (*b)->MakeWorker(2);
  for (int i = 0; i < 100; ++i) {
    drivers::OpRequest ra, rb;
    ASSERT_EQ(wa->Next(&ra), wb->Next(&rb));
    EXPECT_EQ(ra.params[0].i, rb.params[0].i);
  }
}

TEST(CrudWorkloadTest, RejectsAllZeroWeights) {
  WorkloadContext ctx;
  auto w = CreateWorkload("crud", ctx, {{"insert", "0"}});
  EXPECT_FALSE(w.ok());
}

// check_writes: the ledger knows which inserts were acknowledged (ok) and
// which ambiguous, by the outcome of the operation that drew them; a
// transaction's inserts share its outcome.
TEST(CrudWorkloadTest, LedgerFollowsOutcomes) {
  WorkloadContext ctx;
  ctx.total_workers = 4;
  auto w = CreateWorkload("crud", ctx, {{"txn", "2"}});
  ASSERT_TRUE(w.ok()) << w.status().message();
  auto ops = (*w)->MakeWorker(1);
  const Outcome outcomes[] = {Outcome::kOk, Outcome::kAmbiguous, Outcome::kRetryable, Outcome::kOk};
  for (Outcome o : outcomes) {
    drivers::OpRequest req;
    ops->Next(&req);
    ops->Next(&req);  // the transaction's second statement
    ops->Observe(CrudWorkload::kTxn, drivers::OpResult{o, 1, 0});
  }
  drivers::OpRequest drawn;  // drawn, never run (missed): in neither set
  ops->Next(&drawn);
  ops->Next(&drawn);
  const WriteLedger* l = ops->writes();
  ASSERT_NE(l, nullptr);
  const bool acked[] = {true, true, false, false, false, false, true, true, false, false};
  const bool ambiguous[] = {false, false, true, true, false, false, false, false, false, false};
  for (uint64_t k = 0; k < 10; ++k) {
    EXPECT_EQ(l->acked(k), acked[k]) << k;
    EXPECT_EQ(l->ambiguous(k), ambiguous[k]) << k;
  }
  EXPECT_EQ(l->Id(3), 1 + 3 * 4);
  drivers::OpRequest read;
  EXPECT_EQ((*w)->ReadBack(13, &read), "");
  EXPECT_EQ(read.stmt, int(CrudWorkload::kSelect));
  EXPECT_EQ(read.params[0].i, 13);
  auto deletes = CreateWorkload("crud", ctx, {{"delete", "1"}});
  EXPECT_EQ((*deletes)->ReadBack(13, &read), "crud: its deletes remove acknowledged inserts");
  auto kv = CreateWorkload("kv", ctx, {});
  EXPECT_NE((*kv)->ReadBack(13, &read), "");
}

// Pipelined, a worker draws a batch before any outcome is known; each
// Observe settles the oldest operation drawn (its reads hold no inserts),
// and failed inserts are known too, for the unexpected-writes check.
TEST(CrudWorkloadTest, PipelinedLedgerSettlesInDrawOrder) {
  WorkloadContext ctx;
  ctx.total_workers = 2;
  ctx.pipeline = 4;
  auto w = CreateWorkload("crud", ctx, {{"insert", "1"}, {"select", "1"}});
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ((*w)->PipelineBlocker(), "");
  auto ops = (*w)->MakeWorker(0);
  std::vector<int> drawn;
  for (int round = 0; round < 3; ++round) {
    drawn.clear();
    for (int i = 0; i < 4; ++i) {
      drivers::OpRequest req;
      drawn.push_back(ops->Next(&req));
    }
    const Outcome outcomes[] = {Outcome::kOk, Outcome::kAmbiguous, Outcome::kUnavailable, Outcome::kOk};
    for (int i = 0; i < 4; ++i) ops->Observe(drawn[size_t(i)], drivers::OpResult{outcomes[i], 1, 0});
  }
  // Replay the draws with the same seed to know which were inserts.
  auto replay = (*w)->MakeWorker(0);
  const WriteLedger* l = ops->writes();
  uint64_t k = 0;
  int inserts = 0;
  for (int i = 0; i < 12; ++i) {
    drivers::OpRequest req;
    if (replay->Next(&req) != CrudWorkload::kInsert) continue;
    ++inserts;
    EXPECT_EQ(l->acked(k), i % 4 == 0 || i % 4 == 3) << i;
    EXPECT_EQ(l->ambiguous(k), i % 4 == 1) << i;
    EXPECT_EQ(l->failed(k), i % 4 == 2) << i;
    ++k;
  }
  EXPECT_GT(inserts, 2);
  EXPECT_FALSE(l->acked(k) || l->ambiguous(k) || l->failed(k));
  auto txn = CreateWorkload("crud", ctx, {{"txn", "2"}});
  EXPECT_EQ((*txn)->PipelineBlocker(), "crud with txn > 1 runs transactions");
  EXPECT_NE((*CreateWorkload("ycsb", ctx, {}))->PipelineBlocker(), "");
}

// batch: one statement inserts the rows of as many consecutive inserts;
// every row is in the ledger with the statement's outcome.
TEST(CrudWorkloadTest, BatchedInsertsFillOneStatementPerBatch) {
  WorkloadContext ctx;
  ctx.total_workers = 3;
  ctx.batch = 3;
  auto small = CreateWorkload("crud", ctx, {{"table", "t"}});
  ASSERT_TRUE(small.ok()) << small.status().message();
  EXPECT_EQ((*small)->BatchBlocker(), "");
  EXPECT_EQ((*small)->statements()[0].text, "INSERT INTO t (id, foo) VALUES ($1, $2), ($3, $4), ($5, $6)");
  auto ops = (*small)->MakeWorker(2);
  drivers::OpRequest req;
  ASSERT_EQ(ops->Next(&req), CrudWorkload::kInsert);
  ASSERT_EQ(req.nparams, 6);  // inline: up to kMaxParams
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(req.param(2 * r).i, 2 + 3 * r);
    EXPECT_EQ(req.param(2 * r + 1).s.size(), 10u);
  }
  ops->Observe(CrudWorkload::kInsert, drivers::OpResult{Outcome::kAmbiguous, 3, 0});
  ops->Next(&req);
  EXPECT_EQ(req.param(0).i, 2 + 3 * 3);
  ops->Observe(CrudWorkload::kInsert, drivers::OpResult{Outcome::kOk, 3, 0});
  const WriteLedger* l = ops->writes();
  for (uint64_t k = 0; k < 6; ++k) {
    EXPECT_EQ(l->ambiguous(k), k < 3) << k;
    EXPECT_EQ(l->acked(k), k >= 3) << k;
  }

  ctx.batch = 100;
  ctx.dialect = drivers::Dialect::kRedis;
  auto wide = CreateWorkload("crud", ctx, {{"table", "t"}});
  ASSERT_TRUE(wide.ok());
  const std::string& mset = (*wide)->statements()[0].text;
  EXPECT_EQ(mset.substr(0, 22), "MSET t:$1 $2 t:$3 $4 t");
  EXPECT_EQ(mset.substr(mset.size() - 11), "t:$199 $200");
  auto wops = (*wide)->MakeWorker(0);
  ASSERT_EQ(wops->Next(&req), CrudWorkload::kInsert);
  ASSERT_EQ(req.nparams, 200);  // wide: the worker's own array
  EXPECT_EQ(req.param(198).i, 99 * 3);
  std::set<std::string> values;
  for (int r = 0; r < 100; ++r) values.insert(std::string(req.param(2 * r + 1).s));
  EXPECT_EQ(values.size(), 100u);

  ctx.flavor = "redis-cluster";
  EXPECT_NE((*CreateWorkload("crud", ctx, {}))->BatchBlocker().find("CROSSSLOT"), std::string::npos);
  ctx.flavor = "";
  ctx.dialect = drivers::Dialect::kPostgres;
  EXPECT_NE((*CreateWorkload("crud", ctx, {{"txn", "2"}}))->BatchBlocker(), "");
  EXPECT_EQ((*CreateWorkload("crud", ctx, {{"insert", "0"}, {"select", "1"}}))->BatchBlocker(),
            "the phase inserts nothing");
  EXPECT_NE((*CreateWorkload("kv", ctx, {}))->BatchBlocker(), "");
}

// orm2019: the origin's counts, every id written once across Insert and
// MultiInsert, a MultiInsert of 100 rows in one statement.
TEST(OrmWorkloadTest, OriginCountsAndDisjointIds) {
  const auto& specs = OrmWorkload::ParamSpecs();
  auto steps = OrmWorkload::Steps(Params(specs, {}), 4);
  ASSERT_EQ(steps.size(), 5u);
  const uint64_t counts[] = {10000, 2500, 10000, 20000, 10000};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(steps[i].ops, counts[i]) << steps[i].name;
  EXPECT_EQ(steps[1].name, "MultiInsert");
  EXPECT_TRUE(steps[0].writes);
  auto tenth = OrmWorkload::Steps(Params(specs, {{"scale", "0.001"}}), 4);
  EXPECT_EQ(tenth[0].ops, 10u);
  EXPECT_EQ(tenth[1].ops, 3u);  // 2.5 rounds up
  EXPECT_EQ(tenth[1].workers, 3u);

  WorkloadContext ctx;
  ctx.dialect = drivers::Dialect::kMysql;
  ctx.total_workers = 3;
  ctx.step = "MultiInsert";
  auto multi = CreateWorkload("orm2019", ctx, {{"scale", "0.01"}});
  ASSERT_TRUE(multi.ok()) << multi.status().message();
  EXPECT_NE((*multi)->statements()[0].text.find("`right`"), std::string::npos);
  EXPECT_TRUE((*multi)->SetupStatements().empty());  // only Insert prepares the table
  std::set<int64_t> ids;
  for (uint32_t g = 0; g < 3; ++g) {
    auto ops = (*multi)->MakeWorker(g);
    drivers::OpRequest req;
    for (uint64_t k = 0; k < 9 / 3; ++k) {
      ASSERT_EQ(ops->Next(&req), OrmWorkload::kMultiInsert);
      ASSERT_EQ(req.nparams, 800);
      EXPECT_EQ(req.param(1).s, "Orm Benchmark");
      for (int r = 0; r < 100; ++r) EXPECT_TRUE(ids.insert(req.param(8 * r).i).second);
    }
  }
  EXPECT_EQ(*ids.begin(), 100);  // after Insert's 100 ids
  EXPECT_EQ(*ids.rbegin(), 100 + 900 - 1);
  ctx.step = "Insert";
  ctx.dialect = drivers::Dialect::kPostgres;
  auto insert = CreateWorkload("orm2019", ctx, {});
  ASSERT_TRUE(insert.ok());
  EXPECT_EQ((*insert)->SetupStatements().size(), 2u);
  drivers::OpRequest read;
  EXPECT_EQ((*insert)->ReadBack(7, &read), "");
  EXPECT_EQ(read.stmt, int(OrmWorkload::kRead));
  ctx.dialect = drivers::Dialect::kRedis;
  EXPECT_FALSE(CreateWorkload("orm2019", ctx, {}).ok());
}

TEST(RebalanceWorkloadTest, InsertOneKeepsALedgerAndReadsBack) {
  WorkloadContext ctx;
  ctx.total_workers = 2;
  ctx.step = "InsertOne";
  auto w = CreateWorkload("rebalance2021", ctx, {{"records_per_worker", "10"}});
  ASSERT_TRUE(w.ok()) << w.status().message();
  auto ops = (*w)->MakeWorker(1);
  for (Outcome o : {Outcome::kOk, Outcome::kUnavailable, Outcome::kOk}) {
    drivers::OpRequest req;
    ops->Next(&req);
    ops->Observe(RebalanceWorkload::kInsertOne, drivers::OpResult{o, 1, 0});
  }
  const WriteLedger* l = ops->writes();
  ASSERT_NE(l, nullptr);
  EXPECT_TRUE(l->acked(0));
  EXPECT_FALSE(l->acked(1));
  EXPECT_TRUE(l->acked(2));
  EXPECT_EQ(l->Id(2), 12);  // worker 1's ids start at 10
  drivers::OpRequest read;
  EXPECT_EQ((*w)->ReadBack(12, &read), "");
  EXPECT_EQ(read.stmt, int(RebalanceWorkload::kSelectOne));
  ctx.step = "UpdateOne";
  auto update = CreateWorkload("rebalance2021", ctx, {{"records_per_worker", "10"}});
  EXPECT_EQ((*update)->ReadBack(12, &read), "rebalance2021: step UpdateOne inserts nothing");
  EXPECT_EQ((*update)->MakeWorker(1)->writes(), nullptr);
}

TEST(KvWorkloadTest, ReadFractionAndDialects) {
  for (auto d : {drivers::Dialect::kPostgres, drivers::Dialect::kMysql, drivers::Dialect::kRedis}) {
    WorkloadContext ctx;
    ctx.dialect = d;
    auto w = CreateWorkload("kv", ctx, {{"read", "0.9"}, {"keys", "1000"}});
    ASSERT_TRUE(w.ok());
    auto ops = (*w)->MakeWorker(0);
    int reads = 0;
    for (int i = 0; i < 10000; ++i) {
      drivers::OpRequest req;
      if (ops->Next(&req) == 0) ++reads;
      EXPECT_LT(req.params[0].i, 1000);
    }
    EXPECT_NEAR(reads / 10000.0, 0.9, 0.02);
    EXPECT_EQ((*w)->statements().size(), 2u);
  }
}

// A preload writes every key once, 100,000 a statement, each counted.
TEST(KvWorkloadTest, PreloadInCountedChunks) {
  for (auto d : {drivers::Dialect::kPostgres, drivers::Dialect::kMysql, drivers::Dialect::kRedis}) {
    WorkloadContext ctx;
    ctx.dialect = d;
    auto w = CreateWorkload("kv", ctx, {{"keys", "250001"}, {"preload", "true"}, {"reset", "true"}});
    ASSERT_TRUE(w.ok());
    const std::vector<std::string> setup = (*w)->SetupStatements();
    const std::vector<uint64_t> units = (*w)->SetupUnits();
    ASSERT_EQ(units.size(), setup.size());
    ASSERT_GE(units.size(), 3u);
    EXPECT_EQ(std::vector<uint64_t>(units.end() - 3, units.end()), (std::vector<uint64_t>{100000, 100000, 50001}));
    EXPECT_EQ(units[0], 0u);  // the table's creation, or the reset
    EXPECT_EQ((*w)->SetupUnit(), "keys");
    const std::string& last = setup.back();
    EXPECT_NE(last.find("200000"), std::string::npos) << last;
    EXPECT_NE(last.find("250000"), std::string::npos) << last;
    EXPECT_EQ(last.find("250001"), std::string::npos) << last;
  }
  WorkloadContext ctx;
  EXPECT_TRUE((*CreateWorkload("kv", ctx, {}))->SetupUnits().empty());
}

// rebalance2021: worker g owns ids g*M .. g*M+M-1 in every step, and every
// foo string is unique (its tail encodes the id), before and after updates.
TEST(RebalanceWorkloadTest, StepsCoverEveryIdWithUniqueStrings) {
  std::set<std::string> foos;
  for (const char* step : {"InsertOne", "UpdateOne", "SelectOne"}) {
    WorkloadContext ctx;
    ctx.seed = 3;
    ctx.total_workers = 4;
    ctx.step = step;
    auto w = CreateWorkload("rebalance2021", ctx, {{"records_per_worker", "25"}});
    ASSERT_TRUE(w.ok()) << w.status().message();
    std::set<int64_t> ids;
    for (uint32_t g = 0; g < 4; ++g) {
      auto ops = (*w)->MakeWorker(g);
      for (int i = 0; i < 25; ++i) {
        drivers::OpRequest req;
        int op = ops->Next(&req);
        EXPECT_EQ((*w)->ops()[op], step);
        EXPECT_TRUE(ids.insert(req.params[0].i).second);
        EXPECT_EQ(req.params[0].i / 25, g);
        if (req.nparams > 1) {
          EXPECT_EQ(req.params[1].s.size(), 10u);
          EXPECT_TRUE(foos.insert(std::string(req.params[1].s)).second) << req.params[1].s;
        }
      }
    }
    EXPECT_EQ(ids.size(), 100u);
    EXPECT_EQ(*ids.rbegin(), 99);
  }
  EXPECT_EQ(foos.size(), 200u);  // inserts and updates
}

TEST(RebalanceWorkloadTest, CountChecksTheRowsOfTheWholePhase) {
  WorkloadContext ctx;
  ctx.total_workers = 1;
  ctx.group_workers = 50;
  ctx.step = "Count";
  auto w = CreateWorkload("rebalance2021", ctx, {{"records_per_worker", "20"}});
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE((*w)->SetupStatements().empty());  // only InsertOne prepares the table
  auto ops = (*w)->MakeWorker(0);
  drivers::OpRequest req;
  int op = ops->Next(&req);
  EXPECT_TRUE((*w)->statements()[op].scalar);
  drivers::OpResult r;
  r.value = 1000;
  ops->Observe(op, r);
  EXPECT_EQ(ops->Finish(), "Count = 1000 (expected 1000)");
  r.value = 998;
  ops->Observe(op, r);
  EXPECT_EQ(ops->Finish(), "Count = 998 (expected 1000, 2 short)");
}

// ycsb: the load step's keys are disjoint across workers (so across agents
// with the same seed), and cover exactly the record count.
TEST(YcsbWorkloadTest, LoadKeysAreDisjointAndComplete) {
  std::set<std::string> keys;
  for (uint32_t agent_worker_split : {0u, 3u}) {  // the same global workers, any split
    (void)agent_worker_split;
    keys.clear();
    WorkloadContext ctx;
    ctx.seed = 9;
    ctx.total_workers = 6;
    ctx.step = "load";
    auto w = CreateWorkload("ycsb", ctx, {{"records", "600"}, {"fields", "3"}});
    ASSERT_TRUE(w.ok()) << w.status().message();
    for (uint32_t g = 0; g < 6; ++g) {
      auto ops = (*w)->MakeWorker(g);
      for (int i = 0; i < 100; ++i) {
        drivers::OpRequest req;
        EXPECT_EQ((*w)->ops()[ops->Next(&req)], "insert");
        EXPECT_EQ(req.nparams, 4);
        EXPECT_TRUE(keys.insert(std::string(req.params[0].s)).second) << req.params[0].s;
        EXPECT_FALSE(ops->More(&req));  // SQL: one statement
      }
    }
    EXPECT_EQ(keys.size(), 600u);
  }
}

TEST(YcsbWorkloadTest, MixesHaveTheirProportions) {
  struct Case {
    const char* mix;
    const char* op;
    double fraction;
  };
  for (const Case& c : {Case{"a", "read", 0.5}, Case{"b", "read", 0.95}, Case{"c", "read", 1.0},
                        Case{"d", "insert", 0.05}, Case{"e", "scan", 0.95}, Case{"f", "readmodifywrite", 0.5}}) {
    WorkloadContext ctx;
    ctx.seed = 1;
    ctx.total_workers = 1;
    ctx.step = "run";
    ctx.dialect = drivers::Dialect::kRedis;
    auto w = CreateWorkload("ycsb", ctx, {{"records", "1000"}, {"mix", c.mix}});
    ASSERT_TRUE(w.ok()) << w.status().message();
    auto ops = (*w)->MakeWorker(0);
    int hits = 0;
    for (int i = 0; i < 20000; ++i) {
      drivers::OpRequest req;
      int op = ops->Next(&req);
      if ((*w)->ops()[op] == c.op) ++hits;
      int statements = 1;
      while (ops->More(&req)) ++statements;
      // Redis inserts also index the key; read-modify-write is two.
      const std::string name = (*w)->ops()[op];
      EXPECT_EQ(statements, name == "insert" || name == "readmodifywrite" ? 2 : 1) << name;
    }
    EXPECT_NEAR(hits / 20000.0, c.fraction, 0.01) << c.mix;
  }
}

// hugedb2019: every user id is inserted exactly once across both steps, and
// each search kind runs exactly `searches` times, for any worker count.
TEST(HugedbWorkloadTest, ExactCountsForAnyWorkerCount) {
  for (uint32_t workers : {1u, 7u, 16u}) {
    std::map<std::string, std::string> params = {{"users", "2000"}, {"searches", "300"}};
    auto info = FindWorkload("hugedb2019");
    ASSERT_NE(info, nullptr);
    auto steps = info->steps(Params(info->param_specs(), params), workers);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0].ops, 100u);  // 5% warm
    EXPECT_EQ(steps[1].ops, 1900u + 4 * 300u);
    std::set<int64_t> users;
    std::map<std::string, int> kinds;
    int statements = 0;
    for (const auto& step : steps) {
      WorkloadContext ctx;
      ctx.total_workers = workers;
      ctx.step = step.name;
      auto w = CreateWorkload("hugedb2019", ctx, params);
      ASSERT_TRUE(w.ok()) << w.status().message();
      for (uint32_t g = 0; g < workers; ++g) {
        auto ops = (*w)->MakeWorker(g);
        const uint64_t budget = step.ops / workers + (g < step.ops % workers ? 1 : 0);
        for (uint64_t k = 0; k < budget; ++k) {
          drivers::OpRequest req;
          const std::string name = (*w)->ops()[ops->Next(&req)];
          ++kinds[name];
          if (name == "InsertUsersItems") {
            EXPECT_TRUE(users.insert(req.params[0].i).second) << req.params[0].i;
          }
          ++statements;
          while (ops->More(&req)) ++statements;
        }
      }
    }
    EXPECT_EQ(users.size(), 2000u);
    EXPECT_EQ(*users.rbegin(), 1999);
    EXPECT_EQ(kinds["InsertUsersItems"], 2000);
    for (const char* k : {"SearchUsers", "UpdateItemsAmounts", "RandomSearchItems", "SearchRelsAddBonds"}) {
      EXPECT_EQ(kinds[k], 300) << k;
    }
    EXPECT_GT(statements, 2000 * 6 - 1 + 300 * 4);
  }
}

// custom: sequences are disjoint across workers; every `from` in one op
// execution reads the same earlier value; only ok ops are remembered.
TEST(CustomWorkloadTest, GeneratorsAndFrom) {
  v1::CustomWorkload spec;
  auto* ins = spec.add_ops();
  ins->set_name("ins");
  ins->set_weight(1);
  auto* st = ins->add_statements();
  st->set_text("INSERT INTO t VALUES ($1, $2)");
  st->set_write(true);
  st->add_params()->set_kind("sequence");
  st->add_params()->set_kind("uuid");
  auto* pay = spec.add_ops();
  pay->set_name("pay");
  pay->set_weight(1);
  pay->set_txn(true);
  for (int i = 0; i < 2; ++i) {
    auto* s2 = pay->add_statements();
    s2->set_text("UPDATE t SET x = 1 WHERE id = $1");
    auto* g = s2->add_params();
    g->set_kind("from");
    g->set_from_op("ins");
  }
  WorkloadContext ctx;
  ctx.total_workers = 3;
  ctx.custom = &spec;
  auto w = CreateWorkload("custom", ctx, {});
  ASSERT_TRUE(w.ok()) << w.status().message();
  std::set<int64_t> seqs;
  for (uint32_t g = 0; g < 3; ++g) {
    auto ops = (*w)->MakeWorker(g);
    std::set<int64_t> inserted;
    for (int i = 0; i < 400; ++i) {
      drivers::OpRequest req;
      int op = ops->Next(&req);
      if ((*w)->ops()[op] == "ins") {
        EXPECT_EQ(ops->TransactionSize(), 1);
        EXPECT_TRUE(seqs.insert(req.params[0].i).second);
        EXPECT_EQ(req.params[1].s.size(), 36u);
        EXPECT_EQ(req.params[1].s[14], '4');  // UUID version 4
        drivers::OpResult r;
        r.outcome = i % 2 ? Outcome::kOk : Outcome::kUnavailable;
        if (r.outcome == Outcome::kOk) inserted.insert(req.params[0].i);
        ops->Observe(op, r);
      } else {
        EXPECT_EQ(ops->TransactionSize(), 2);
        const int64_t first = req.params[0].i;
        ASSERT_TRUE(ops->More(&req));
        EXPECT_EQ(req.params[0].i, first);  // the same value in both statements
        EXPECT_FALSE(ops->More(&req));
        if (!inserted.empty()) {
          EXPECT_TRUE(inserted.count(first)) << first;
        }
      }
    }
  }
  EXPECT_GT(seqs.size(), 500u);
}

}  // namespace
}  // namespace stampede::workloads

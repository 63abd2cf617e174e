#include <gtest/gtest.h>

#include <set>

#include "workloads/tpcc_sql.h"
#include "workloads/tpcc_terminal.h"
#include "workloads/tpcc_workload.h"
#include "workloads/workload_registry.h"

namespace stampede::workloads {
namespace {

std::unique_ptr<Workload> Make(const std::string& step, uint32_t workers, drivers::Dialect dialect) {
  WorkloadContext ctx;
  ctx.dialect = dialect;
  ctx.step = step;
  ctx.total_workers = workers;
  auto w = CreateWorkload("tpcc", ctx, {{"warehouses", "2"}});
  EXPECT_TRUE(w.ok()) << w.status().message();
  return std::move(*w);
}

// 1,000 terminals do not all load: at most `loaders` of them (32 by
// default), never more than the parts; the run step has them all.
TEST(TpccTest, TheLoadTakesAtMostLoadersWorkers) {
  const auto& specs = TpccWorkload::ParamSpecs();
  auto steps = TpccWorkload::Steps(Params(specs, {{"warehouses", "100"}}), 1000);
  EXPECT_EQ(steps[0].name, "load");
  EXPECT_EQ(steps[0].workers, 32u);
  EXPECT_EQ(steps[2].workers, 1000u);
  steps = TpccWorkload::Steps(Params(specs, {{"warehouses", "100"}, {"loaders", "4"}}), 1000);
  EXPECT_EQ(steps[0].workers, 4u);
  steps = TpccWorkload::Steps(Params(specs, {{"warehouses", "1"}, {"loaders", "10000"}}), 1000);
  EXPECT_EQ(steps[0].workers, uint32_t(steps[0].ops));
}

// Each district loads in three transactions; the warehouse's row comes
// with its first district, the items once, with warehouse 1.
TEST(TpccTest, EveryPartOfEveryDistrictIsLoadedOnce) {
  auto w = Make("load", 7, drivers::Dialect::kPostgres);
  EXPECT_FALSE(w->SetupStatements().empty());
  const auto steps = TpccWorkload::Steps(Params(TpccWorkload::ParamSpecs(), {{"warehouses", "2"}}), 7);
  ASSERT_EQ(steps.size(), 4u);  // load, check, run, check
  ASSERT_EQ(steps[0].ops, 60u);
  std::multiset<std::pair<int64_t, int>> loaded;  // (w x 100 + d, statement)
  for (uint32_t g = 0; g < 7; ++g) {
    auto ops = w->MakeWorker(g);
    for (uint64_t k = 0; k < steps[0].ops / 7 + (g < steps[0].ops % 7 ? 1 : 0); ++k) {
      drivers::OpRequest req;
      EXPECT_EQ(ops->Next(&req), TpccWorkload::kLoad);
      const int n = ops->TransactionSize();
      for (int i = 0; i < n; ++i) {
        if (i > 0) {
          ASSERT_TRUE(ops->More(&req));
        }
        if (req.stmt == tpcc::kWarehouse) {
          EXPECT_EQ(req.nparams, 1);
          loaded.insert({req.param(0).i * 100 + 1, req.stmt});
        } else if (req.stmt == tpcc::kItemChunk) {  // its one parameter: the tenth
          EXPECT_EQ(req.nparams, 1);
          loaded.insert({100 + req.param(0).i, req.stmt});
        } else {
          EXPECT_EQ(req.nparams, 2);
          loaded.insert({req.param(0).i * 100 + req.param(1).i, req.stmt});
        }
      }
      EXPECT_FALSE(ops->More(&req));
    }
  }
  EXPECT_EQ(loaded.count({101, tpcc::kWarehouse}), 1u);
  EXPECT_EQ(loaded.count({102, tpcc::kWarehouse}), 0u);
  EXPECT_EQ(loaded.count({210, tpcc::kItemChunk}), 0u);
  for (int wh = 1; wh <= 2; ++wh) {
    for (int d = 1; d <= 10; ++d) {
      for (int s : {tpcc::kDistrict, tpcc::kStockChunk, tpcc::kCustomers, tpcc::kCustomerNames, tpcc::kHistory,
                    tpcc::kOrders, tpcc::kOrderLines, tpcc::kNewOrders}) {
        EXPECT_EQ(loaded.count({wh * 100 + d, s}), 1u) << wh << " " << d << " " << s;
      }
      EXPECT_EQ(loaded.count({wh * 100 + d, tpcc::kItemChunk}), wh == 1 ? 1u : 0u);
    }
  }
}

// The last loader to finish gives the rows the parts inserted (the
// customers' name update not counted twice).
TEST(TpccTest, TheLastLoaderSaysHowManyRowsWentIn) {
  auto w = Make("load", 2, drivers::Dialect::kPostgres);
  auto a = w->MakeWorker(0), b = w->MakeWorker(1);
  drivers::OpRequest req;
  drivers::OpResult r;
  r.rows = 1 + 1 + 10000 + 10000;  // part 0 of district 1, warehouse 1: warehouse, district, items, stock
  a->Next(&req);
  a->Observe(TpccWorkload::kLoad, r);
  b->Next(&req);  // part 1: customers, their names, history
  r.rows = 3000 + 3000 + 3000;
  b->Observe(TpccWorkload::kLoad, r);
  EXPECT_EQ(a->Finish(), "");
  EXPECT_EQ(b->Finish().rfind("TPC-C load: 26002 rows in ", 0), 0u);
}

// A condition's row names the district and the values; none: it holds.
TEST(TpccTest, AFailedConditionIsAnAnomalyNamingTheDistrict) {
  auto w = Make("check", 1, drivers::Dialect::kMysql);
  EXPECT_TRUE(w->SetupStatements().empty());
  auto ops = w->MakeWorker(0);
  drivers::OpRequest req;
  drivers::OpResult none;
  for (int i = 0; i < tpcc::kNumChecks; ++i) {
    ASSERT_EQ(ops->Next(&req), TpccWorkload::kCheck);
    EXPECT_EQ(req.stmt, TpccWorkload::kFirstCheck + i);
    drivers::OpResult one;
    one.rows = 1;
    if (i == tpcc::kOrderLineCount) {
      *req.text = "203 31050 31049 2";
      ops->Observe(TpccWorkload::kCheck, one);
      ASSERT_TRUE(ops->flagged());
      const AnomalyNote n = ops->TakeFlag();
      EXPECT_EQ(n.kind, Anomaly::kTpccOrderLines);
      EXPECT_EQ(n.key, 203);
      EXPECT_EQ(n.expected, 31050);
      EXPECT_EQ(n.got, 31049);
    } else if (i == tpcc::kWarehouseHistory) {  // a warehouse, in cents
      *req.text = "2 30001000 30000000 1";
      ops->Observe(TpccWorkload::kCheck, one);
      ASSERT_TRUE(ops->flagged());
      EXPECT_EQ(ops->TakeFlag().kind, Anomaly::kTpccHistory);
    } else {
      ops->Observe(TpccWorkload::kCheck, none);
      EXPECT_FALSE(ops->flagged());
    }
  }
  EXPECT_EQ(ops->Finish(),
            "condition 4 (sum(O_OL_CNT) = rows of ORDER_LINE) fails in warehouse 2 district 3: 31050 and 31049 (2 "
            "districts); condition 8 (W_YTD = sum(H_AMOUNT)) fails in warehouse 2: 300010.00 and 300000.00 (1 "
            "warehouses)");
  auto clean = w->MakeWorker(0);
  for (int i = 0; i < tpcc::kNumChecks; ++i) {
    clean->Next(&req);
    clean->Observe(TpccWorkload::kCheck, none);
  }
  EXPECT_EQ(clean->Finish(), "TPC-C conditions 1 to 5, 8 and 9 hold in every district (8 checks)");
}

TEST(TpccTest, StatementsUseOnlyTheirTwoParametersAndEachDialectsCasts) {
  for (auto dialect : {drivers::Dialect::kPostgres, drivers::Dialect::kMysql}) {
    const tpcc::Statements s = tpcc::MakeStatements(dialect, 42);
    ASSERT_EQ(s.load.size(), size_t(tpcc::kNumLoad));
    ASSERT_EQ(s.checks.size(), size_t(tpcc::kNumChecks));
    for (const auto& st : s.load) {
      EXPECT_EQ(st.text.find("$3"), std::string::npos) << st.text;
      EXPECT_TRUE(st.write);
      EXPECT_EQ(st.text.find(dialect == drivers::Dialect::kPostgres ? "SIGNED" : "AS INT)"), std::string::npos)
          << st.text;
    }
    for (const auto& st : s.checks) EXPECT_TRUE(st.scalar);
  }
  EXPECT_NE(tpcc::MakeStatements(drivers::Dialect::kPostgres, 42).load[tpcc::kCustomers].text.find("+ 42, 1000)"),
            std::string::npos);
}

// wait needs 10 terminals per warehouse and a closed loop; with it,
// terminals 0-9 are warehouse 1's, one district each.
TEST(TpccTest, WaitTakesTenTerminalsAWarehouse) {
  WorkloadContext ctx;
  ctx.total_workers = 15;
  const std::map<std::string, std::string> params = {{"warehouses", "2"}, {"wait", "1"}};
  auto w = CreateWorkload("tpcc", ctx, params);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("workers: 20 for warehouses: 2, not 15"), std::string::npos);
  ctx.step = "load";  // the load step has workers of its own
  EXPECT_TRUE(CreateWorkload("tpcc", ctx, params).ok());
  ctx.step = "run";
  ctx.total_workers = 20;
  ctx.open_loop = true;
  EXPECT_FALSE(CreateWorkload("tpcc", ctx, params).ok());
  ctx.open_loop = false;
  w = CreateWorkload("tpcc", ctx, params);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_TRUE((*w)->paced());
  drivers::OpRequest req;
  auto t = (*w)->MakeWorker(13);  // warehouse 2, district 4
  t->PauseNs();
  while (t->Next(&req) != TpccWorkload::kNewOrderOp + tpcc::kStockLevel) t->PauseNs();
  EXPECT_EQ(req.param(0).i, 2);
  EXPECT_EQ(req.param(1).i, 4);
}

TEST(TpccTest, RedisIsRefused) {
  WorkloadContext ctx;
  ctx.dialect = drivers::Dialect::kRedis;
  EXPECT_FALSE(CreateWorkload("tpcc", ctx, {}).ok());
}

}  // namespace
}  // namespace stampede::workloads

namespace stampede::workloads::tpcc {
namespace {

TerminalConfig Config(bool mysql, std::array<int, kNumTxns> mix) {
  TerminalConfig c;
  c.warehouses = 2;
  c.mysql = mysql;
  c.mix = mix;
  c.seed = 7;
  return c;
}

// New-Order on MySQL: district, its update, customer, order, new order,
// then stock and line per item; a line whose stock row is missing (the
// unused item) rolls the transaction back.
TEST(TpccTerminalTest, NewOrderRunsItsLinesAndRollsBackOnTheUnusedItem) {
  Terminal t(Config(true, {1, 0, 0, 0, 0}));
  drivers::OpRequest req;
  bool rolled_back = false, committed = false;
  for (int txn = 0; txn < 300 && !(rolled_back && committed); ++txn) {
    EXPECT_EQ(t.Next(&req), 0);
    EXPECT_EQ(req.stmt, kNoDistrict);
    drivers::OpResult r;
    r.rows = 1;
    r.value = 3001;
    std::vector<int> stmts;
    for (int step = 1;; ++step) {
      const auto then = t.Continue(step, r, &req);
      if (then != WorkerOps::Then::kNext) {
        (then == WorkerOps::Then::kRollback ? rolled_back : committed) = true;
        break;
      }
      stmts.push_back(req.stmt);
      r.rows = req.stmt == kNoStock && req.param(0).i > kItems ? 0 : 1;
    }
    ASSERT_GE(stmts.size(), 4u + 10u);
    EXPECT_EQ(stmts[0], kNoDistrictBump);
    EXPECT_EQ(stmts[2], kNoOrder);
    for (size_t i = 4; i < stmts.size(); ++i) EXPECT_EQ(stmts[i], i % 2 == 0 ? kNoStock : kNoLine);
  }
  EXPECT_TRUE(rolled_back);  // 1% of orders
  EXPECT_TRUE(committed);
}

// Delivery skips a district with no new order; a retry starts again at
// district 1.
TEST(TpccTerminalTest, DeliverySkipsADistrictWithoutNewOrders) {
  Terminal t(Config(false, {0, 0, 0, 1, 0}));
  drivers::OpRequest req;
  for (int attempt = 0; attempt < 2; ++attempt) {
    t.Next(&req);
    drivers::OpResult r;
    r.rows = 0;  // district 1: none
    int statements = 1;
    for (int step = 1; t.Continue(step, r, &req) == WorkerOps::Then::kNext; ++step) {
      ++statements;
      r.rows = 1;
      r.value = 2101;
    }
    EXPECT_EQ(statements, 1 + 9 * 5);
  }
}

// Each pause is the think time after the transaction before (none before
// the first) plus the keying time of the next, which the pause draws and
// Next() then runs; scaled by wait. Over many, the mean is the
// specification's (New-Order: 18 s keying + 12 s think, mean ~30 s).
TEST(TpccTerminalTest, PausesAreKeyingAndThinkTimesScaled) {
  TerminalConfig c = Config(false, {1, 0, 0, 0, 0});
  c.wait = 0.5;
  Terminal t(c);
  drivers::OpRequest req;
  EXPECT_EQ(t.PauseNs(), int64_t(18 * 0.5 * 1e9));  // keying only
  EXPECT_EQ(t.Next(&req), 0);
  double sum = 0;
  int64_t most = 0;
  constexpr int kN = 20000;
  for (int i = 0; i < kN; ++i) {
    const int64_t p = t.PauseNs();
    most = std::max(most, p);
    sum += double(p) / 1e9;
    t.Next(&req);
  }
  EXPECT_NEAR(sum / kN, (18 + 12) * 0.5, 0.3);
  EXPECT_LE(most, int64_t((18 + 120) * 0.5 * 1e9));  // think cut at 10 x its mean
  TerminalConfig sl = Config(false, {0, 0, 0, 0, 1});
  sl.wait = 1;
  Terminal u(sl);
  EXPECT_EQ(u.PauseNs(), int64_t(2 * 1e9));
  EXPECT_EQ(u.Next(&req), kStockLevel);
}

}  // namespace
}  // namespace stampede::workloads::tpcc

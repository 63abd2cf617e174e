#include "workloads/bank_workload.h"

#include <gtest/gtest.h>

#include <map>

#include "workloads/workload_registry.h"

namespace stampede::workloads {
namespace {

using Then = WorkerOps::Then;

// The accounts table in memory, answering the bank's statements as a
// database would (correct: balance + $2; naive: balance = $2).
struct FakeBank {
  std::map<int64_t, int64_t> balances;
  bool naive = false;

  drivers::OpResult Run(const drivers::OpRequest& req) {
    drivers::OpResult r;
    r.rows = 1;
    switch (req.stmt) {
      case BankWorkload::kRead:
        for (const auto& [id, b] : balances) r.value += b;
        break;
      case BankWorkload::kLockRead:
        r.value = balances[req.params[0].i];
        break;
      case BankWorkload::kWrite:
        balances[req.params[0].i] = naive ? req.params[1].i : balances[req.params[0].i] + req.params[1].i;
        break;
    }
    return r;
  }
  int64_t Total() const {
    int64_t t = 0;
    for (const auto& [id, b] : balances) t += b;
    return t;
  }
};

std::unique_ptr<Workload> Bank(std::map<std::string, std::string> params, FakeBank* db) {
  WorkloadContext ctx;
  ctx.seed = 7;
  auto w = CreateWorkload("bank", ctx, params);
  EXPECT_TRUE(w.ok()) << w.status().message();
  const int64_t n = params.count("accounts") ? std::stoll(params["accounts"]) : 10;
  for (int64_t i = 0; i < n; ++i) db->balances[i] = params.count("balance") ? std::stoll(params["balance"]) : 100;
  db->naive = params.count("naive") && params["naive"] == "true";
  return std::move(*w);
}

// One whole operation, its statements run one after another.
int RunOp(WorkerOps* ops, FakeBank* db, Then* ended = nullptr) {
  drivers::OpRequest req, next;
  const int op = ops->Next(&req);
  drivers::OpResult r = db->Run(req);
  Then then = Then::kCommit;
  if (ops->TransactionSize() == WorkerOps::kInteractive) {
    for (int step = 1; (then = ops->Continue(step, r, &next)) == Then::kNext; ++step) r = db->Run(next);
  }
  if (ended) *ended = then;
  ops->Observe(op, r);
  return op;
}

TEST(BankWorkloadTest, TransfersOneAtATimeKeepTheTotal) {
  FakeBank db;
  auto w = Bank({{"accounts", "5"}, {"balance", "20"}, {"max_transfer", "15"}}, &db);
  auto ops = w->MakeWorker(0);
  int transfers = 0, rollbacks = 0;
  for (int i = 0; i < 2000; ++i) {
    Then then;
    if (RunOp(ops.get(), &db, &then) == BankWorkload::kTransferOp) {
      ++transfers;
      rollbacks += then == Then::kRollback;
    }
    EXPECT_FALSE(ops->flagged()) << "after op " << i;
    ASSERT_EQ(db.Total(), 100);
  }
  EXPECT_GT(transfers, 500);
  EXPECT_GT(rollbacks, 0);  // a balance below the amount rolls back
  for (const auto& [id, b] : db.balances) EXPECT_GE(b, 0) << id;
}

TEST(BankWorkloadTest, RowsAreLockedAndWrittenInIdOrder) {
  FakeBank db;
  auto w = Bank({{"read", "0"}}, &db);
  auto ops = w->MakeWorker(3);
  for (int i = 0; i < 200; ++i) {
    drivers::OpRequest req, next;
    ops->Next(&req);
    ASSERT_EQ(req.stmt, BankWorkload::kLockRead);
    int64_t last = req.params[0].i;
    drivers::OpResult r = db.Run(req);
    for (int step = 1; ops->Continue(step, r, &next) == Then::kNext; ++step) {
      if (step == 2) last = -1;  // the writes start over from the lower id
      EXPECT_GT(next.params[0].i, last);
      last = next.params[0].i;
      r = db.Run(next);
    }
  }
}

// Naive transfers interleaved as concurrent clients run them: both read,
// then both write back what they computed. Where their pairs of accounts
// share one account, an update is lost and the total changes; the next
// read sees it.
TEST(BankWorkloadTest, NaiveTransfersLoseUpdatesAndTheReadSeesIt) {
  FakeBank db;
  auto w = Bank({{"naive", "true"}, {"read", "0"}, {"accounts", "3"}}, &db);
  auto a = w->MakeWorker(0), b = w->MakeWorker(1);
  for (int round = 0; round < 100 && db.Total() == 300; ++round) {
    drivers::OpRequest ra, rb, na, nb;
    a->Next(&ra);
    b->Next(&rb);
    drivers::OpResult xa = db.Run(ra), xb = db.Run(rb);
    for (int step = 1;; ++step) {
      const Then ta = a->Continue(step, xa, &na), tb = b->Continue(step, xb, &nb);
      if (ta == Then::kNext) xa = db.Run(na);
      if (tb == Then::kNext) xb = db.Run(nb);
      if (ta != Then::kNext && tb != Then::kNext) break;
    }
  }
  ASSERT_NE(db.Total(), 300);
  FakeBank same = db;
  auto reader = Bank({{"read", "1"}, {"accounts", "3"}}, &same)->MakeWorker(2);
  drivers::OpRequest read;
  const int op = reader->Next(&read);
  ASSERT_EQ(op, BankWorkload::kReadOp);
  reader->Observe(op, db.Run(read));
  ASSERT_TRUE(reader->flagged());
  const AnomalyNote n = reader->TakeFlag();
  EXPECT_EQ(n.kind, Anomaly::kWrongTotal);
  EXPECT_EQ(n.expected, 300);
  EXPECT_EQ(n.got, db.Total());
  EXPECT_FALSE(reader->flagged());
}

TEST(BankWorkloadTest, FinalReadIsNotedAtFinish) {
  FakeBank db;
  auto w = Bank({}, &db);
  auto ops = w->MakeWorker(0);
  EXPECT_EQ(ops->Finish(), "");
  drivers::OpRequest req;
  const int op = ops->FinalRead(&req);
  ASSERT_EQ(op, BankWorkload::kReadOp);
  db.balances[4] -= 1;
  ops->Observe(op, db.Run(req));
  EXPECT_TRUE(ops->flagged());
  EXPECT_EQ(ops->Finish(), "bank: final read: total 999, expected 1000 (wrong_total)");
}

TEST(BankWorkloadTest, RedisTransfersAreOneScript) {
  WorkloadContext ctx;
  ctx.dialect = drivers::Dialect::kRedis;
  auto w = CreateWorkload("bank", ctx, {{"read", "0"}, {"table", "b"}});
  ASSERT_TRUE(w.ok());
  EXPECT_NE((*w)->statements()[1].text.find("HINCRBY"), std::string::npos);
  EXPECT_NE((*w)->statements()[1].text.find(" 1 b:{accounts} $1 $2 $3"), std::string::npos);
  auto ops = (*w)->MakeWorker(0);
  drivers::OpRequest req;
  EXPECT_EQ(ops->Next(&req), BankWorkload::kTransferOp);
  EXPECT_EQ(ops->TransactionSize(), 1);
  EXPECT_EQ(req.nparams, 3);
  auto naive = CreateWorkload("bank", ctx, {{"read", "0"}, {"naive", "true"}});
  auto nops = (*naive)->MakeWorker(0);
  nops->Next(&req);
  EXPECT_EQ(nops->TransactionSize(), WorkerOps::kInteractive);  // read, read, write, write in turn
}

}  // namespace
}  // namespace stampede::workloads

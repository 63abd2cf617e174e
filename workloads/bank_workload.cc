#include "workloads/bank_workload.h"

#include <algorithm>

#include "common/rng.h"

namespace stampede::workloads {
namespace {

using drivers::Dialect;
using drivers::Param;
using Type = ParamSpec::Type;

struct BankShape {
  int64_t accounts = 10;
  int64_t total = 1000;  // accounts x balance
  int64_t max_transfer = 5;
  double read_fraction = 0.5;
  bool naive = false;
  bool redis = false;
};

class BankWorker : public WorkerOps {
 public:
  BankWorker(const BankShape& shape, uint64_t seed) : shape_(shape), rng_(seed) {}

  int Next(drivers::OpRequest* req) override {
    req->nparams = 0;
    if (rng_.NextDouble() < shape_.read_fraction) {
      req->stmt = BankWorkload::kRead;
      interactive_ = false;
      return BankWorkload::kReadOp;
    }
    const uint64_t n = uint64_t(shape_.accounts);
    from_ = int64_t(rng_.Uniform(n));
    to_ = int64_t(rng_.Uniform(n - 1));
    if (to_ >= from_) ++to_;
    amount_ = 1 + int64_t(rng_.Uniform(uint64_t(shape_.max_transfer)));
    if (shape_.redis && !shape_.naive) {  // one script
      req->stmt = BankWorkload::kLockRead;
      req->Set(0, Param::Int(from_));
      req->Set(1, Param::Int(to_));
      req->Set(2, Param::Int(amount_));
      interactive_ = false;
      return BankWorkload::kTransferOp;
    }
    // Rows in id order: two transfers over the same pair lock them in the
    // same order and do not deadlock.
    req->stmt = BankWorkload::kLockRead;
    req->Set(0, Param::Int(std::min(from_, to_)));
    interactive_ = true;
    return BankWorkload::kTransferOp;
  }

  int TransactionSize() const override { return interactive_ ? kInteractive : 1; }

  Then Continue(int step, const drivers::OpResult& last, drivers::OpRequest* req) override {
    req->nparams = 0;
    switch (step) {
      case 1:  // the lower id's balance: read the higher one's
        (from_ < to_ ? from_balance_ : to_balance_) = last.value;
        req->stmt = BankWorkload::kLockRead;
        req->Set(0, Param::Int(std::max(from_, to_)));
        return Then::kNext;
      case 2:
        (from_ < to_ ? to_balance_ : from_balance_) = last.value;
        if (from_balance_ < amount_) return shape_.redis ? Then::kCommit : Then::kRollback;
        WriteOne(req, std::min(from_, to_));
        return Then::kNext;
      case 3:
        WriteOne(req, std::max(from_, to_));
        return Then::kNext;
      default:
        return Then::kCommit;
    }
  }

  void Observe(int op, const drivers::OpResult& r) override {
    if (op != BankWorkload::kReadOp || r.outcome != Outcome::kOk) return;
    if (final_pending_) {
      final_pending_ = false;
      final_total_ = r.value;
      final_read_ = true;
    }
    if (r.value != shape_.total) Flag({Anomaly::kWrongTotal, -1, shape_.total, r.value, 0});
  }

  int FinalRead(drivers::OpRequest* req) override {
    if (final_asked_) return -1;
    final_asked_ = true;
    req->nparams = 0;
    req->stmt = BankWorkload::kRead;
    final_pending_ = true;
    return BankWorkload::kReadOp;
  }

  std::string Finish() override {
    if (!final_read_) return "";
    const std::string expected = std::to_string(shape_.total);
    if (final_total_ == shape_.total) return "bank: final read: total " + expected + " as expected";
    return "bank: final read: total " + std::to_string(final_total_) + ", expected " + expected + " (wrong_total)";
  }

 private:
  // One side of the transfer, in id order as the reads were. Correct:
  // balance + delta; naive: the balance it computed.
  void WriteOne(drivers::OpRequest* req, int64_t id) const {
    const bool from = id == from_;
    const int64_t delta = from ? -amount_ : amount_;
    req->stmt = BankWorkload::kWrite;
    req->Set(0, Param::Int(id));
    req->Set(1, Param::Int(shape_.naive ? (from ? from_balance_ : to_balance_) + delta : delta));
  }

  BankShape shape_;
  Rng rng_;
  bool interactive_ = false;
  int64_t from_ = 0, to_ = 0, amount_ = 0;
  int64_t from_balance_ = 0, to_balance_ = 0;
  bool final_asked_ = false, final_pending_ = false, final_read_ = false;
  int64_t final_total_ = 0;
};

}  // namespace

const std::vector<ParamSpec>& BankWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {
      {"table", Type::kString, "stampede_bank", "table (Redis: the hash's key prefix)", {}, 0, 0},
      {"accounts", Type::kInt, "10", "number of accounts", {}, 2, 1000},
      {"balance", Type::kInt, "100", "each account's starting balance", {}, 1, 1e12},
      {"max_transfer", Type::kInt, "5", "largest amount one transfer moves", {}, 1, 1e12},
      {"read", Type::kDouble, "0.5", "fraction of operations that read every balance (0..1)", {}, 0, 1},
      {"naive",
       Type::kBool,
       "false",
       "transfer without locks, writing back computed balances (lost updates)",
       {},
       0,
       0},
      {"reset", Type::kBool, "true", "set every account to balance before the phase", {}, 0, 0},
  };
  return kSpecs;
}

StatusOr<std::unique_ptr<Workload>> BankWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  std::unique_ptr<BankWorkload> w(new BankWorkload());
  w->ctx_ = ctx;
  w->ops_ = {"transfer", "read"};
  w->accounts_ = params.Int("accounts");
  w->balance_ = params.Int("balance");
  w->max_transfer_ = params.Int("max_transfer");
  w->read_fraction_ = params.Double("read");
  w->naive_ = params.Bool("naive");
  const std::string& t = params.Str("table");
  if (ctx.dialect == Dialect::kRedis) {
    w->RedisStatements(t, params);
  } else {
    w->SqlStatements(t, params);
  }
  return std::unique_ptr<Workload>(std::move(w));
}

void BankWorkload::SqlStatements(const std::string& t, const Params& params) {
  const bool pg = ctx_.dialect == Dialect::kPostgres;
  const std::string n = std::to_string(accounts_), b = std::to_string(balance_);
  statements_ = {
      {"SELECT CAST(SUM(balance) AS " + std::string(pg ? "BIGINT" : "SIGNED") + ") FROM " + t, false, true},
      {"SELECT balance FROM " + t + " WHERE id = $1" + (naive_ ? "" : " FOR UPDATE"), false, true},
      {"UPDATE " + t + " SET balance = " + (naive_ ? "$2" : "balance + $2") + " WHERE id = $1", true, false},
  };
  setup_.push_back("CREATE TABLE IF NOT EXISTS " + t + " (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)");
  if (!params.Bool("reset")) return;
  setup_.push_back("DELETE FROM " + t);
  if (pg) {
    setup_.push_back("INSERT INTO " + t + " (id, balance) SELECT g, " + b + " FROM generate_series(0, " + n +
                     " - 1) g");
  } else {
    setup_.push_back("INSERT INTO " + t + " (id, balance) WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 " +
                     "FROM seq WHERE n < " + n + " - 1) SELECT n, " + b + " FROM seq");
  }
}

void BankWorkload::RedisStatements(const std::string& t, const Params& params) {
  // One hash, its key's hash tag one slot: every script's keys together.
  const std::string key = t + ":{accounts}";
  statements_ = {
      {"EVAL \"local s=0 for _,v in ipairs(redis.call('HVALS',KEYS[1])) do s=s+tonumber(v) end return s\" 1 " + key,
       false, true},
      naive_ ? drivers::StatementSpec{"EVAL \"return tonumber(redis.call('HGET',KEYS[1],ARGV[1]))\" 1 " + key + " $1",
                                      false, true}
             : drivers::StatementSpec{"EVAL \"local f=tonumber(redis.call('HGET',KEYS[1],ARGV[1])) "
                                      "if f==nil or f<tonumber(ARGV[3]) then return 0 end "
                                      "redis.call('HINCRBY',KEYS[1],ARGV[1],-tonumber(ARGV[3])) "
                                      "redis.call('HINCRBY',KEYS[1],ARGV[2],ARGV[3]) return 1\" 1 " +
                                          key + " $1 $2 $3",
                                      true, true},
      {"HSET " + key + " $1 $2", true, false},
  };
  if (!params.Bool("reset")) return;
  setup_.push_back("DEL " + key);
  setup_.push_back("EVAL \"for i=0,tonumber(ARGV[1])-1 do redis.call('HSET',KEYS[1],i,ARGV[2]) end return 0\" 1 " +
                   key + " " + std::to_string(accounts_) + " " + std::to_string(balance_));
}

std::unique_ptr<WorkerOps> BankWorkload::MakeWorker(uint32_t global_worker) const {
  BankShape shape{accounts_, accounts_ * balance_,           max_transfer_, read_fraction_,
                  naive_,    ctx_.dialect == Dialect::kRedis};
  return std::make_unique<BankWorker>(shape, MixSeed(MixSeed(ctx_.seed, ctx_.phase_index), global_worker));
}

}  // namespace stampede::workloads

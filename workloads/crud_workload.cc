#include "workloads/crud_workload.h"

#include "common/rng.h"
#include "workloads/random_string.h"
#include "workloads/redis_scripts.h"

namespace stampede::workloads {
namespace {

using drivers::Dialect;
using drivers::Param;
using Type = ParamSpec::Type;

class CrudWorker : public WorkerOps {
 public:
  CrudWorker(const uint64_t* weights, uint64_t keys, int value_size, uint64_t insert_base, uint32_t worker,
             uint32_t total_workers, uint64_t seed, int txn, uint32_t batch)
      : ledger_(insert_base, worker, total_workers),
        txn_(txn),
        batch_(batch),
        base_(insert_base),
        keys_(keys),
        worker_(worker),
        stride_(total_workers),
        rng_(seed),
        values_(CrudWorkload::kMaxTxn, std::string(static_cast<size_t>(value_size), 'x')) {
    uint64_t acc = 0;
    for (int i = 0; i < CrudWorkload::kNumOps; ++i) cumulative_[i] = acc += weights[i];
    if (batch_ > 1) {
      rows_.assign(batch_, std::string(static_cast<size_t>(value_size), 'x'));
      row_params_.resize(2 * size_t(batch_));
    }
  }

  int Next(drivers::OpRequest* req) override {
    // A transaction's statements are drawn one Next() each: its first opens
    // the ledger's operation.
    if (drawn_++ % uint64_t(txn_) == 0) ledger_.Begin(inserted_);
    uint64_t pick = rng_.Uniform(cumulative_[CrudWorkload::kNumOps - 1]);
    int op = 0;
    while (pick >= cumulative_[op]) ++op;
    int64_t id;
    if (op == CrudWorkload::kInsert && batch_ > 1) return NextBatch(req);
    if (op == CrudWorkload::kInsert) {
      id = static_cast<int64_t>(base_ + worker_ + inserted_++ * stride_);
    } else if (keys_ > 0) {
      id = static_cast<int64_t>(rng_.Uniform(keys_));
    } else if (inserted_ > 0) {
      id = static_cast<int64_t>(base_ + worker_ + rng_.Uniform(inserted_) * stride_);
    } else {
      id = static_cast<int64_t>(worker_ + walked_++ * stride_);
    }
    req->stmt = op;
    req->nparams = 0;
    req->Set(0, Param::Int(id));
    if (op == CrudWorkload::kInsert || op == CrudWorkload::kUpdate) {
      // Up to kMaxTxn requests of one transaction are alive at once.
      std::string& value = values_[next_value_++ % CrudWorkload::kMaxTxn];
      FillRandomString(rng_, value.data(), value.size());
      req->Set(1, Param::Str(value));
    }
    return op;
  }

  // One statement inserting batch_ rows: ($1, $2), ($3, $4), ... with the
  // ids of as many consecutive inserts (so the ledger tracks each row).
  int NextBatch(drivers::OpRequest* req) {
    req->stmt = CrudWorkload::kInsert;
    for (uint32_t r = 0; r < batch_; ++r) {
      const int64_t id = static_cast<int64_t>(base_ + worker_ + inserted_++ * stride_);
      FillRandomString(rng_, rows_[r].data(), rows_[r].size());
      row_params_[2 * r] = Param::Int(id);
      row_params_[2 * r + 1] = Param::Str(rows_[r]);
    }
    const int n = 2 * int(batch_);
    if (n > drivers::kMaxParams) {
      req->SetWide(row_params_.data(), n);
    } else {
      req->nparams = 0;
      for (int i = 0; i < n; ++i) req->Set(i, row_params_[size_t(i)]);
    }
    return CrudWorkload::kInsert;
  }

  void Observe(int, const drivers::OpResult& result) override { ledger_.Settle(inserted_, result.outcome); }
  const WriteLedger* writes() const override { return &ledger_; }
  void Pipelined(uint32_t depth) {
    if (depth > 1) ledger_.set_depth(depth);
  }

 private:
  WriteLedger ledger_;
  const int txn_;
  const uint32_t batch_;
  uint64_t drawn_ = 0;
  uint64_t cumulative_[CrudWorkload::kNumOps];
  uint64_t base_;
  uint64_t keys_;
  uint64_t worker_;
  uint64_t stride_;
  uint64_t inserted_ = 0;
  uint64_t walked_ = 0;
  Rng rng_;
  std::vector<std::string> values_;
  size_t next_value_ = 0;
  std::vector<std::string> rows_;           // batch_ > 1: one value per row
  std::vector<drivers::Param> row_params_;  // id, value per row
};

// The insert statement of `rows` rows.
std::string InsertStatement(Dialect dialect, const std::string& table, uint32_t rows) {
  std::string text =
      dialect == Dialect::kRedis ? (rows > 1 ? "MSET" : "SET") : "INSERT INTO " + table + " (id, foo) VALUES";
  for (uint32_t r = 0; r < rows; ++r) {
    const std::string id = "$" + std::to_string(2 * r + 1), value = "$" + std::to_string(2 * r + 2);
    if (dialect == Dialect::kRedis) {
      text += " " + table + ":" + id + " " + value;
    } else {
      text += std::string(r ? ", " : " ") + "(" + id + ", " + value + ")";
    }
  }
  return text;
}

}  // namespace

const std::vector<ParamSpec>& CrudWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {
      {"table", Type::kString, "stampede_crud", "table (Redis: key prefix)", {}, 0, 0},
      {"insert", Type::kInt, "1", "weight of inserts", {}, 0, 1e9},
      {"select", Type::kInt, "0", "weight of selects by id", {}, 0, 1e9},
      {"update", Type::kInt, "0", "weight of updates by id", {}, 0, 1e9},
      {"delete", Type::kInt, "0", "weight of deletes by id", {}, 0, 1e9},
      {"keys", Type::kInt, "0", "draw select/update/delete ids from [0, keys); 0: own inserts", {}, 0, 1e15},
      {"value_size", Type::kInt, "10", "length of the foo column", {}, 1, 65535},
      {"reset", Type::kBool, "false", "empty the table before the phase", {}, 0, 0},
      {"txn", Type::kInt, "1", "statements per transaction (1: autocommit)", {}, 1, CrudWorkload::kMaxTxn},
      {"iter",
       Type::kInt,
       "0",
       "operations per worker, as dbbench's -iter (the phase sets no ops or duration)",
       {},
       0,
       1e12},
  };
  return kSpecs;
}

std::vector<StepSpec> CrudWorkload::Steps(const Params& params, uint32_t workers) {
  const uint64_t iter = static_cast<uint64_t>(params.Int("iter"));
  if (iter == 0) return {};
  return {{"", workers, iter * workers, false}};
}

StatusOr<std::unique_ptr<Workload>> CrudWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  std::unique_ptr<CrudWorkload> w(new CrudWorkload());
  w->ctx_ = ctx;
  w->ops_ = {"insert", "select", "update", "delete", "txn"};
  w->txn_ = static_cast<int>(params.Int("txn"));
  if (w->txn_ > 1 && ctx.dialect == Dialect::kRedis) {
    return Status::Error("crud: txn > 1 needs a SQL target (redis runs one command per operation)");
  }
  const char* names[] = {"insert", "select", "update", "delete"};
  uint64_t total = 0;
  for (int i = 0; i < kNumOps; ++i) total += w->weights_[i] = params.Int(names[i]);
  if (total == 0) {
    return Status::Error("crud: at least one of insert, select, update, delete must be > 0");
  }
  w->keys_ = params.Int("keys");
  w->value_size_ = static_cast<int>(params.Int("value_size"));
  const std::string& t = params.Str("table");
  if (ctx.dialect == Dialect::kRedis) {
    w->statements_ = {{InsertStatement(ctx.dialect, t, ctx.batch), true},
                      {"GET " + t + ":$1", false},
                      {"SET " + t + ":$1 $2 XX", true},
                      {"DEL " + t + ":$1", true}};
    if (params.Bool("reset")) {
      w->setup_.push_back(RedisDeletePrefix(t));
    }
  } else {
    w->statements_ = {{InsertStatement(ctx.dialect, t, ctx.batch), true},
                      {"SELECT foo FROM " + t + " WHERE id = $1", false},
                      {"UPDATE " + t + " SET foo = $2 WHERE id = $1", true},
                      {"DELETE FROM " + t + " WHERE id = $1", true}};
    w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + t + " (id BIGINT PRIMARY KEY, foo VARCHAR(" +
                        std::to_string(w->value_size_) + "))");
    if (params.Bool("reset")) w->setup_.push_back("TRUNCATE TABLE " + t);
  }
  return std::unique_ptr<Workload>(std::move(w));
}

std::unique_ptr<WorkerOps> CrudWorkload::MakeWorker(uint32_t global_worker) const {
  uint64_t seed = MixSeed(MixSeed(ctx_.seed, ctx_.phase_index), global_worker);
  // Each phase inserts above its own base, so a later phase never inserts
  // an id an earlier phase of the plan did.
  const uint64_t insert_base = uint64_t{ctx_.phase_index} * kPhaseIdSpan;
  auto worker = std::make_unique<CrudWorker>(weights_, keys_, value_size_, insert_base, global_worker,
                                             ctx_.total_workers, seed, txn_, std::max<uint32_t>(1, ctx_.batch));
  worker->Pipelined(ctx_.pipeline);
  return worker;
}

std::string CrudWorkload::BatchBlocker() const {
  if (txn_ > 1) return "crud with txn > 1 runs transactions of single-row statements";
  if (weights_[kInsert] == 0) return "the phase inserts nothing";
  if (ctx_.flavor == "redis-cluster") return "one MSET's keys would span hash slots (redis-cluster answers CROSSSLOT)";
  return "";
}

std::string CrudWorkload::ReadBack(int64_t id, drivers::OpRequest* req) const {
  if (weights_[kDelete] > 0) return "crud: its deletes remove acknowledged inserts";
  if (weights_[kInsert] == 0) return "crud: the phase inserts nothing";
  req->stmt = kSelect;
  req->nparams = 0;
  req->Set(0, Param::Int(id));
  return "";
}

}  // namespace stampede::workloads

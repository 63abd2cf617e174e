#include "workloads/rebalance_workload.h"

#include "common/rng.h"
#include "workloads/random_string.h"
#include "workloads/redis_scripts.h"

namespace stampede::workloads {
namespace {

using drivers::Dialect;
using drivers::Param;
using Type = ParamSpec::Type;

constexpr const char* kRebalanceSteps[] = {"InsertOne", "Count", "UpdateOne", "SelectOne"};

void WriteId(uint64_t id, char* out) {
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (int i = RebalanceWorkload::kIdDigits - 1; i >= 0; --i, id /= 62) out[i] = kDigits[id % 62];
}

class RebalanceWorker : public WorkerOps {
 public:
  RebalanceWorker(RebalanceWorkload::Op op, uint64_t first_id, int value_size, uint64_t expected, uint64_t seed)
      : op_(op),
        first_id_(first_id),
        next_id_(first_id),
        expected_(expected),
        rng_(seed),
        foo_(static_cast<size_t>(value_size), 'x'),
        ledger_(first_id, 0, 1) {}

  int Next(drivers::OpRequest* req) override {
    req->stmt = op_;
    req->nparams = 0;
    if (op_ == RebalanceWorkload::kCount) return op_;
    if (op_ == RebalanceWorkload::kInsertOne) ledger_.Begin(next_id_ - first_id_);
    const uint64_t id = next_id_++;
    req->Set(0, Param::Int(static_cast<int64_t>(id)));
    if (op_ == RebalanceWorkload::kInsertOne || op_ == RebalanceWorkload::kUpdateOne) {
      const size_t random = foo_.size() - RebalanceWorkload::kIdDigits;
      FillRandomString(rng_, foo_.data(), random);
      WriteId(id, foo_.data() + random);
      req->Set(1, Param::Str(foo_));
    }
    return op_;
  }

  void Observe(int op, const drivers::OpResult& result) override {
    // Only InsertOne keeps the ledger (one Begin per op drawn, one Settle
    // per op observed: in draw order, pipelined or not).
    if (op_ == RebalanceWorkload::kInsertOne) ledger_.Settle(next_id_ - first_id_, result.outcome);
    if (op != RebalanceWorkload::kCount || result.outcome != Outcome::kOk) return;
    counted_ = true;
    count_ = result.value;
  }

  const WriteLedger* writes() const override { return op_ == RebalanceWorkload::kInsertOne ? &ledger_ : nullptr; }
  void Pipelined(uint32_t depth) {
    if (depth > 1) ledger_.set_depth(depth);
  }

  std::string Finish() override {
    if (op_ != RebalanceWorkload::kCount) return {};
    if (!counted_) return "Count did not return (expected " + std::to_string(expected_) + ")";
    std::string line = "Count = " + std::to_string(count_) + " (expected " + std::to_string(expected_);
    if (count_ < int64_t(expected_)) line += ", " + std::to_string(int64_t(expected_) - count_) + " short";
    if (count_ > int64_t(expected_)) line += ", " + std::to_string(count_ - int64_t(expected_)) + " extra";
    return line + ")";
  }

 private:
  RebalanceWorkload::Op op_;
  uint64_t first_id_;
  uint64_t next_id_;
  uint64_t expected_;
  Rng rng_;
  std::string foo_;
  bool counted_ = false;
  int64_t count_ = 0;
  WriteLedger ledger_;
};

}  // namespace

const std::vector<ParamSpec>& RebalanceWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {
      {"records_per_worker", Type::kInt, "100", "rows each worker inserts, updates and selects", {}, 1, 1e9},
      {"table", Type::kString, "bar1", "table (Redis: key prefix)", {}, 0, 0},
      {"value_size", Type::kInt, "10", "length of foo (the last 6 characters encode the id)", {}, kIdDigits + 1, 255},
      {"reset", Type::kBool, "true", "empty the table first (it is always created if missing)", {}, 0, 0},
  };
  return kSpecs;
}

std::vector<StepSpec> RebalanceWorkload::Steps(const Params& params, uint32_t workers) {
  const uint64_t n = uint64_t{workers} * static_cast<uint64_t>(params.Int("records_per_worker"));
  return {{"InsertOne", workers, n, true},
          {"Count", 1, 1, false},
          {"UpdateOne", workers, n, false},
          {"Count", 1, 1, false},
          {"SelectOne", workers, n, false}};
}

StatusOr<std::unique_ptr<Workload>> RebalanceWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  std::unique_ptr<RebalanceWorkload> w(new RebalanceWorkload());
  w->ctx_ = ctx;
  w->ops_.assign(std::begin(kRebalanceSteps), std::end(kRebalanceSteps));
  w->records_ = static_cast<uint64_t>(params.Int("records_per_worker"));
  w->value_size_ = static_cast<int>(params.Int("value_size"));
  const uint32_t group_workers = ctx.group_workers ? ctx.group_workers : ctx.total_workers;
  w->expected_rows_ = w->records_ * group_workers;
  auto step = StepIndex("rebalance2021", w->ops_, ctx.step);
  if (!step.ok()) return step.status();
  w->op_ = static_cast<Op>(*step);
  const std::string& t = params.Str("table");
  if (ctx.dialect == Dialect::kRedis) {
    w->statements_ = {{"SET " + t + ":$1 $2", true, false},
                      {RedisCountPrefix(t), false, true},
                      {"SET " + t + ":$1 $2 XX", true, false},
                      {"GET " + t + ":$1", false, false}};
    if (params.Bool("reset")) w->setup_.push_back(RedisDeletePrefix(t));
  } else {
    w->statements_ = {{"INSERT INTO " + t + " (id, foo) VALUES ($1, $2)", true, false},
                      {"SELECT COUNT(1) FROM " + t, false, true},
                      {"UPDATE " + t + " SET foo = $2 WHERE id = $1", true, false},
                      {"SELECT foo FROM " + t + " WHERE id = $1", false, false}};
    w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + t + " (id BIGINT PRIMARY KEY, foo VARCHAR(" +
                        std::to_string(w->value_size_) + ") UNIQUE)");
    if (params.Bool("reset")) w->setup_.push_back("TRUNCATE TABLE " + t);
  }
  // Only the first step prepares the table.
  if (w->op_ != kInsertOne) w->setup_.clear();
  return std::unique_ptr<Workload>(std::move(w));
}

std::string RebalanceWorkload::ReadBack(int64_t id, drivers::OpRequest* req) const {
  if (op_ != kInsertOne) return "rebalance2021: step " + ctx_.step + " inserts nothing";
  req->stmt = kSelectOne;
  req->nparams = 0;
  req->Set(0, Param::Int(id));
  return "";
}

std::unique_ptr<WorkerOps> RebalanceWorkload::MakeWorker(uint32_t global_worker) const {
  // The step is in the seed: UpdateOne writes fresh strings, not InsertOne's.
  const uint64_t seed = MixSeed(MixSeed(MixSeed(ctx_.seed, ctx_.phase_index), op_), global_worker);
  auto worker =
      std::make_unique<RebalanceWorker>(op_, uint64_t{global_worker} * records_, value_size_, expected_rows_, seed);
  worker->Pipelined(ctx_.pipeline);
  return worker;
}

}  // namespace stampede::workloads

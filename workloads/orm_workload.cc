#include "workloads/orm_workload.h"

#include <array>
#include <cmath>

namespace stampede::workloads {
namespace {

using drivers::Dialect;
using drivers::Param;
using Type = ParamSpec::Type;
using O = OrmWorkload;

constexpr const char* kOrmSteps[] = {"Insert", "MultiInsert", "Update", "Read", "MultiRead"};
// The origin's counts at scale 1.
constexpr uint64_t kCounts[] = {10'000, 2'500, 10'000, 20'000, 10'000};

// A model's columns after id, as the parameters $2..$8 of a row.
void SetModel(Param* row) {
  row[1] = Param::Str("Orm Benchmark");
  row[2] = Param::Str("Just a Benchmark for fun");
  row[3] = Param::Str("99909990");
  row[4] = Param::Str("http://blog.milkpod29.me");
  row[5] = Param::Int(100);
  row[6] = Param::Int(1);  // right: true
  row[7] = Param::Int(1000);
}

class OrmWorker : public WorkerOps {
 public:
  OrmWorker(O::Op op, const O::Counts& counts, uint32_t worker, uint32_t total_workers)
      : op_(op),
        inserts_(std::max<uint64_t>(1, counts.steps[O::kInsert])),
        worker_(worker),
        stride_(total_workers),
        ledger_(0, worker, total_workers) {
    if (op_ == O::kMultiInsert) {
      rows_.resize(size_t{O::kColumns} * O::kMultiRows);
      for (int r = 0; r < O::kMultiRows; ++r) SetModel(&rows_[size_t(r) * O::kColumns]);
    }
  }

  int Next(drivers::OpRequest* req) override {
    const uint64_t n = worker_ + k_ * stride_;
    if (op_ == O::kInsert) ledger_.Begin(k_);
    ++k_;
    req->stmt = op_;
    req->nparams = 0;
    switch (op_) {
      case O::kMultiInsert: {
        const uint64_t first = inserts_ + n * O::kMultiRows;
        for (int r = 0; r < O::kMultiRows; ++r) rows_[size_t(r) * O::kColumns] = Param::Int(int64_t(first + r));
        req->SetWide(rows_.data(), int(rows_.size()));
        break;
      }
      case O::kInsert:
      case O::kUpdate: {
        std::array<Param, O::kColumns> row;
        row[0] = Param::Int(int64_t(op_ == O::kInsert ? n : n % inserts_));
        SetModel(row.data());
        for (int i = 0; i < O::kColumns; ++i) req->Set(i, row[size_t(i)]);
        break;
      }
      case O::kRead:
        req->Set(0, Param::Int(int64_t(n % inserts_)));
        break;
      default:
        req->Set(0, Param::Int(0));  // MultiRead: WHERE id > 0 LIMIT 100, as the origin
        break;
    }
    return op_;
  }

  void Observe(int, const drivers::OpResult& result) override {
    if (op_ == O::kInsert) ledger_.Settle(k_, result.outcome);
  }
  const WriteLedger* writes() const override { return op_ == O::kInsert ? &ledger_ : nullptr; }

 private:
  const O::Op op_;
  const uint64_t inserts_;
  const uint64_t worker_;
  const uint64_t stride_;
  uint64_t k_ = 0;
  WriteLedger ledger_;
  std::vector<Param> rows_;  // MultiInsert: 100 rows of 8 parameters
};

std::string Columns(Dialect d) {
  return std::string("id, name, title, fax, web, age, ") + (d == Dialect::kMysql ? "`right`" : "\"right\"") +
         ", counter";
}

std::string Values(int rows) {
  std::string v;
  for (int r = 0; r < rows; ++r) {
    v += r ? ", (" : "(";
    for (int c = 0; c < O::kColumns; ++c) v += (c ? ", $" : "$") + std::to_string(r * O::kColumns + c + 1);
    v += ")";
  }
  return v;
}

}  // namespace

const std::vector<ParamSpec>& OrmWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {
      {"scale",
       Type::kDouble,
       "1",
       "multiplies every step's count (1: the benchmark's 10000, 2500 x 100 rows, 10000, 20000, 10000)",
       {},
       0.0001,
       10000},
      {"table", Type::kString, "models", "table", {}, 0, 0},
      {"reset", Type::kBool, "true", "empty the table first (it is always created if missing)", {}, 0, 0},
  };
  return kSpecs;
}

OrmWorkload::Counts OrmWorkload::CountsOf(const Params& params) {
  Counts c;
  const double scale = params.Double("scale");
  for (int i = 0; i < kNumOps; ++i) c.steps[i] = std::max<uint64_t>(1, std::llround(double(kCounts[i]) * scale));
  return c;
}

std::vector<StepSpec> OrmWorkload::Steps(const Params& params, uint32_t workers) {
  const Counts c = CountsOf(params);
  std::vector<StepSpec> steps;
  for (int i = 0; i < kNumOps; ++i) {
    steps.push_back({kOrmSteps[i], uint32_t(std::min<uint64_t>(workers, c.steps[i])), c.steps[i], i == kInsert});
  }
  return steps;
}

StatusOr<std::unique_ptr<Workload>> OrmWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  if (ctx.dialect == Dialect::kRedis) return Status::Error("orm2019: needs a SQL target (postgres or mysql driver)");
  std::unique_ptr<OrmWorkload> w(new OrmWorkload());
  w->ctx_ = ctx;
  w->counts_ = CountsOf(params);
  w->ops_.assign(std::begin(kOrmSteps), std::end(kOrmSteps));
  auto step = StepIndex("orm2019", w->ops_, ctx.step);
  if (!step.ok()) return step.status();
  w->op_ = static_cast<Op>(*step);
  const std::string& t = params.Str("table");
  const std::string cols = Columns(ctx.dialect);
  const std::string right = ctx.dialect == Dialect::kMysql ? "`right`" : "\"right\"";
  w->statements_ = {
      {"INSERT INTO " + t + " (" + cols + ") VALUES " + Values(1), true, false},
      {"INSERT INTO " + t + " (" + cols + ") VALUES " + Values(kMultiRows), true, false},
      {"UPDATE " + t + " SET name = $2, title = $3, fax = $4, web = $5, age = $6, " + right +
           " = $7, counter = $8 WHERE id = $1",
       true, false},
      {"SELECT " + cols + " FROM " + t + " WHERE id = $1", false, false},
      {"SELECT " + cols + " FROM " + t + " WHERE id > $1 LIMIT 100", false, false},
  };
  if (w->op_ == kInsert) {
    w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + t +
                        " (id BIGINT PRIMARY KEY, name VARCHAR(255) NOT NULL, title VARCHAR(255) NOT NULL, "
                        "fax VARCHAR(255) NOT NULL, web VARCHAR(255) NOT NULL, age INT NOT NULL, " +
                        right + " BOOLEAN NOT NULL, counter BIGINT NOT NULL)");
    if (params.Bool("reset")) w->setup_.push_back("TRUNCATE TABLE " + t);
  }
  return std::unique_ptr<Workload>(std::move(w));
}

std::string OrmWorkload::ReadBack(int64_t id, drivers::OpRequest* req) const {
  if (op_ != kInsert) return "orm2019: only the Insert step's rows are read back";
  req->stmt = kRead;
  req->nparams = 0;
  req->Set(0, Param::Int(id));
  return "";
}

std::unique_ptr<WorkerOps> OrmWorkload::MakeWorker(uint32_t global_worker) const {
  return std::make_unique<OrmWorker>(op_, counts_, global_worker, ctx_.total_workers);
}

}  // namespace stampede::workloads

#include "workloads/tpcc_workload.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "common/clock.h"
#include "common/rng.h"
#include "workloads/tpcc_terminal.h"

namespace stampede::workloads {
namespace {

using drivers::Param;
using Type = ParamSpec::Type;

constexpr const char* kTpccSteps[] = {"load", "check", "run"};
constexpr int kPartsPerWarehouse = tpcc::kDistricts * tpcc::kLoadParts;

// Worker g of T loads the parts g, g + T, g + 2T, ... of all warehouses'
// districts; each part is one transaction of its statements.
class LoadWorker : public WorkerOps {
 public:
  LoadWorker(uint32_t first, uint32_t stride, std::shared_ptr<TpccLoadTally> tally)
      : next_(first), stride_(stride), tally_(std::move(tally)) {
    tally_->workers.fetch_add(1);
  }

  int Next(drivers::OpRequest* req) override {
    int64_t none = 0;
    tally_->first_ns.compare_exchange_strong(none, MonoNowNs());
    const int w = int(next_ / kPartsPerWarehouse) + 1;
    const int d = int(next_ % kPartsPerWarehouse / tpcc::kLoadParts) + 1;
    steps_ = tpcc::LoadPart(w, d, int(next_ % tpcc::kLoadParts));
    w_ = w;
    d_ = d;
    at_ = 0;
    next_ += stride_;
    Fill(req);
    return TpccWorkload::kLoad;
  }
  bool More(drivers::OpRequest* req) override {
    if (++at_ >= steps_.size()) return false;
    Fill(req);
    return true;
  }
  int TransactionSize() const override { return int(steps_.size()); }

  // A part's rows: what its statements affected, less the update of the
  // customers' last names (rows the part inserted once already).
  void Observe(int, const drivers::OpResult& r) override {
    if (r.outcome != Outcome::kOk) return;
    const bool names = std::find(steps_.begin(), steps_.end(), tpcc::kCustomerNames) != steps_.end();
    const int64_t rows = r.rows - (names ? tpcc::kCustomersPerDistrict : 0);
    tally_->rows.fetch_add(rows);
    AddRows(uint64_t(std::max<int64_t>(0, rows)));
  }

  // The last of this agent's loaders says how fast the rows went in.
  std::string Finish() override {
    if (tally_->finished.fetch_add(1) + 1 != tally_->workers.load()) return "";
    const double s = double(MonoNowNs() - tally_->first_ns.load()) / 1e9;
    const int64_t rows = tally_->rows.load();
    char line[160];
    std::snprintf(line, sizeof(line), "TPC-C load: %" PRId64 " rows in %.1f s (%.0f rows/s)", rows, s,
                  s > 0 ? double(rows) / s : 0.0);
    return line;
  }

 private:
  void Fill(drivers::OpRequest* req) const {
    req->stmt = steps_[at_];
    req->nparams = 0;
    if (steps_[at_] == tpcc::kItemChunk) {
      req->Set(0, Param::Int(d_));
      return;
    }
    req->Set(0, Param::Int(w_));
    if (steps_[at_] != tpcc::kWarehouse) req->Set(1, Param::Int(d_));
  }
  uint64_t next_;
  uint32_t stride_;
  std::vector<tpcc::Load> steps_;
  std::shared_ptr<TpccLoadTally> tally_;
  int w_ = 1, d_ = 1;
  size_t at_ = 0;
};

// Each check's anomaly kind and how its failure reads: whether its key is
// a warehouse (else a district, warehouse x 100 + district) and its values
// money (in cents).
struct Condition {
  Anomaly kind;
  bool warehouse, money;
  const char* says;
};

constexpr Condition kConditions[tpcc::kNumChecks] = {
    {Anomaly::kTpccYtd, true, true, "condition 1 (W_YTD = sum(D_YTD))"},
    {Anomaly::kTpccOrderIds, false, false, "condition 2 (D_NEXT_O_ID - 1 = max(O_ID))"},
    {Anomaly::kTpccOrderIds, false, false, "condition 2 (D_NEXT_O_ID - 1 = max(NO_O_ID))"},
    {Anomaly::kTpccNewOrders, false, false, "condition 3 (rows of NEW_ORDER = max(NO_O_ID) - min(NO_O_ID) + 1)"},
    {Anomaly::kTpccOrderLines, false, false, "condition 4 (sum(O_OL_CNT) = rows of ORDER_LINE)"},
    {Anomaly::kTpccUndelivered, false, false, "condition 5 (orders without O_CARRIER_ID = rows of NEW_ORDER)"},
    {Anomaly::kTpccHistory, true, true, "condition 8 (W_YTD = sum(H_AMOUNT))"},
    {Anomaly::kTpccHistory, false, true, "condition 9 (D_YTD = sum(H_AMOUNT))"},
};

// "condition 2 (...) fails in warehouse 1 district 4: 3001 and 3002 (1
// districts)"
std::string Describe(const Condition& c, const tpcc::Violation& v) {
  auto value = [&](long long x) {
    char b[32];
    if (c.money) {
      std::snprintf(b, sizeof(b), "%.2f", double(x) / 100);
    } else {
      std::snprintf(b, sizeof(b), "%lld", x);
    }
    return std::string(b);
  };
  const std::string where =
      c.warehouse ? "warehouse " + std::to_string(v.key)
                  : "warehouse " + std::to_string(v.key / 100) + " district " + std::to_string(v.key % 100);
  return std::string(c.says) + " fails in " + where + ": " + value(v.expected) + " and " + value(v.got) + " (" +
         std::to_string(v.count) + (c.warehouse ? " warehouses)" : " districts)");
}

constexpr const char* kChecked = "TPC-C conditions 1 to 5, 8 and 9";

// Runs each condition once; a row back is a violation, flagged as an
// anomaly and described in the run's notes.
class CheckWorker : public WorkerOps {
 public:
  int Next(drivers::OpRequest* req) override {
    req->stmt = TpccWorkload::kFirstCheck + next_ % tpcc::kNumChecks;
    req->nparams = 0;
    req->text = &text_;
    current_ = next_++ % tpcc::kNumChecks;
    return TpccWorkload::kCheck;
  }

  void Observe(int, const drivers::OpResult& r) override {
    if (r.outcome != Outcome::kOk) return;
    ++checked_;
    tpcc::Violation v;
    if (r.rows <= 0 || !tpcc::ParseViolation(text_, &v)) return;
    const Condition& c = kConditions[current_];
    Flag({c.kind, v.key, v.expected, v.got, 0});
    notes_ += (notes_.empty() ? "" : "; ") + Describe(c, v);
  }

  std::string Finish() override {
    if (!notes_.empty()) return notes_;
    if (checked_ == 0) return std::string(kChecked) + ": not checked (no check answered)";
    return std::string(kChecked) + " hold in every district (" + std::to_string(checked_) + " checks)";
  }

 private:
  int next_ = 0, current_ = 0, checked_ = 0;
  std::string text_, notes_;
};

// With keying and think times the terminals pace themselves, 10 to a
// warehouse (clause 4.2.2), as the maximum tpmC of 12.86 per warehouse
// assumes.
Status CheckWait(const WorkloadContext& ctx, int warehouses, double wait) {
  if (wait <= 0) return Status::Ok();
  if (ctx.open_loop) return Status::Error("tpcc: wait paces the terminals itself; a phase with wait has no rate");
  const bool runs = ctx.step.empty() || ctx.step == "run";
  if (runs && int64_t(ctx.total_workers) != 10 * int64_t(warehouses)) {
    return Status::Error("tpcc: wait needs 10 terminals per warehouse: workers: " + std::to_string(10 * warehouses) +
                         " for warehouses: " + std::to_string(warehouses) + ", not " +
                         std::to_string(ctx.total_workers));
  }
  return Status::Ok();
}

}  // namespace

const std::vector<ParamSpec>& TpccWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {
      {"warehouses", Type::kInt, "1", "W: 10 districts, 30,000 customers and 100,000 stock rows each", {}, 1, 10000},
      {"load", Type::kBool, "true", "create the tables if missing, empty them and load W warehouses first", {}, 0, 0},
      {"loaders",
       Type::kInt,
       "32",
       "at most this many of the phase's workers load (1,000 terminals loading at once only wait on each other)",
       {},
       1,
       10000},
      {"run",
       Type::kBool,
       "true",
       "run the transactions (for the phase's duration or ops), then check again",
       {},
       0,
       0},
      {"wait",
       Type::kDouble,
       "0",
       "keying and think times (clause 5.2.5.7), scaled: 1 the specification's, 0.1 a tenth, 0 none; needs 10 "
       "workers per warehouse",
       {},
       0,
       10},
      {"new_order", Type::kInt, "45", "weight of New-Order in the mix", {}, 0, 1000},
      {"payment", Type::kInt, "43", "weight of Payment", {}, 0, 1000},
      {"order_status", Type::kInt, "4", "weight of Order-Status", {}, 0, 1000},
      {"delivery", Type::kInt, "4", "weight of Delivery", {}, 0, 1000},
      {"stock_level", Type::kInt, "4", "weight of Stock-Level", {}, 0, 1000},
  };
  return kSpecs;
}

std::vector<StepSpec> TpccWorkload::Steps(const Params& params, uint32_t workers) {
  const uint64_t parts = uint64_t(params.Int("warehouses")) * kPartsPerWarehouse;
  std::vector<StepSpec> steps;
  const uint64_t loaders = std::min<uint64_t>({workers, parts, uint64_t(params.Int("loaders"))});
  if (params.Bool("load")) steps.push_back({"load", uint32_t(loaders), parts, false});
  steps.push_back({"check", 1, tpcc::kNumChecks, false});
  if (params.Bool("run")) {
    steps.push_back({"run", workers, 0, false});
    steps.push_back({"check", 1, tpcc::kNumChecks, false});
  }
  return steps;
}

uint64_t TpccWorkload::LoadRows(const Params& params, const std::string& step) {
  if (step != "load") return 0;
  // ITEM once; per warehouse: itself, its districts, and per district its
  // customers, as many history rows and orders, the new orders from
  // kFirstNewOrder on, ten order lines an order on average; and a stock
  // row per item.
  constexpr uint64_t kCustomers = uint64_t(tpcc::kDistricts) * tpcc::kCustomersPerDistrict;
  constexpr uint64_t kNewOrders = uint64_t(tpcc::kDistricts) * (tpcc::kCustomersPerDistrict - tpcc::kFirstNewOrder + 1);
  constexpr uint64_t kPerWarehouse =
      1 + tpcc::kDistricts + 3 * kCustomers + kNewOrders + 10 * kCustomers + tpcc::kItems;
  return tpcc::kItems + uint64_t(params.Int("warehouses")) * kPerWarehouse;
}

StatusOr<std::unique_ptr<Workload>> TpccWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  if (ctx.dialect == drivers::Dialect::kRedis) return Status::Error("tpcc: needs a SQL driver (postgres or mysql)");
  std::unique_ptr<TpccWorkload> w(new TpccWorkload());
  w->ctx_ = ctx;
  w->warehouses_ = int(params.Int("warehouses"));
  auto step = StepIndex("tpcc", {std::begin(kTpccSteps), std::end(kTpccSteps)}, ctx.step);
  if (!step.ok()) return step.status();
  w->op_ = static_cast<Op>(*step);
  w->ops_ = {"load", "check"};
  w->ops_.insert(w->ops_.end(), std::begin(tpcc::kTxnNames), std::end(tpcc::kTxnNames));
  int total = 0;
  for (int t = 0; t < tpcc::kNumTxns; ++t) {
    w->mix_[size_t(t)] = int(params.Int(tpcc::kTxnNames[t]));
    total += w->mix_[size_t(t)];
  }
  if (total == 0) return Status::Error("tpcc: the mix's weights (new_order, payment, ...) add up to 0");
  w->wait_ = params.Double("wait");
  if (Status s = CheckWait(ctx, w->warehouses_, w->wait_); !s.ok()) return s;
  // C for C_LAST at load (clause 2.1.6), from the run's seed.
  w->c_load_ = int(SplitMix64(ctx.seed) % 256);
  tpcc::Statements s = tpcc::MakeStatements(ctx.dialect, w->c_load_);
  // Galera applies the other nodes' writes after they were acknowledged
  // (wsrep_sync_wait = 0 by default): a check through a node still applying
  // the load would find districts missing. The checks read causally
  // (MariaDB's SET STATEMENT ... FOR).
  if (ctx.flavor == "galera") {
    for (auto& c : s.checks) c.text = "SET STATEMENT wsrep_sync_wait = 1 FOR " + c.text;
  }
  w->statements_ = std::move(s.load);
  w->statements_.insert(w->statements_.end(), s.checks.begin(), s.checks.end());
  for (auto& t : tpcc::TxnStatements(ctx.dialect)) w->statements_.push_back(std::move(t));
  if (w->op_ == kLoad && params.Bool("load")) {
    w->setup_ = std::move(s.schema);
    w->setup_.insert(w->setup_.end(), s.reset.begin(), s.reset.end());
  }
  return std::unique_ptr<Workload>(std::move(w));
}

std::unique_ptr<WorkerOps> TpccWorkload::MakeWorker(uint32_t global_worker) const {
  if (op_ == kCheck) return std::make_unique<CheckWorker>();
  if (op_ == kRun) {
    tpcc::TerminalConfig c;
    c.warehouses = warehouses_;
    c.home = int(global_worker % uint32_t(warehouses_)) + 1;
    c.district = int(global_worker / uint32_t(warehouses_) % tpcc::kDistricts) + 1;
    if (wait_ > 0) {
      c.home = int(global_worker / tpcc::kDistricts % uint32_t(warehouses_)) + 1;
      c.district = int(global_worker % tpcc::kDistricts) + 1;
      c.wait = wait_;
    }
    c.first_op = kNewOrderOp;
    c.first_stmt = kFirstTxnStatement;
    c.mysql = ctx_.dialect != drivers::Dialect::kPostgres;
    c.mix = mix_;
    c.c = tpcc::MakeRunConstants(ctx_.seed, c_load_);
    c.seed = MixSeed(MixSeed(ctx_.seed, ctx_.phase_index), global_worker);
    return std::make_unique<tpcc::Terminal>(c);
  }
  return std::make_unique<LoadWorker>(global_worker, std::max<uint32_t>(1, ctx_.total_workers), tally_);
}

}  // namespace stampede::workloads

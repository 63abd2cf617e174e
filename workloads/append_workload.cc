#include "workloads/append_workload.h"

#include <algorithm>

#include "common/clock.h"
#include "common/rng.h"
#include "workloads/redis_scripts.h"

namespace stampede::workloads {
namespace {

using drivers::Dialect;
using drivers::Param;
using Type = ParamSpec::Type;

class AppendWorker : public WorkerOps {
 public:
  AppendWorker(const AppendWorkload::Shape& shape, uint32_t global, uint64_t seed, bool redis)
      : shape_(shape), global_(global), rng_(seed), redis_(redis) {}

  void SetHistory(HistoryLog* log, const int* endpoint) override {
    log_ = log;
    endpoint_ = endpoint;
  }

  int Next(drivers::OpRequest* req) override {
    const int64_t now = MonoNowNs();
    started_ = true;
    generation_ = appended_ / shape_.worker_appends;
    const int64_t first = shape_.key_base + generation_ * shape_.keys;
    txn_.n = 1 + int(rng_.Uniform(uint64_t(shape_.max_mops)));
    for (int i = 0; i < txn_.n; ++i) {
      HistoryMop& m = txn_.mops[i];
      m.read = rng_.NextDouble() < shape_.read_fraction;
      m.key = first + int64_t(rng_.Uniform(uint64_t(shape_.keys)));
      m.value = m.read ? 0 : ++appended_ * int64_t(shape_.workers) + int64_t(global_) + 1;
      m.text = {};
    }
    // In key order: two transactions lock the rows they append to in the
    // same order and do not deadlock each other.
    std::stable_sort(txn_.mops, txn_.mops + txn_.n,
                     [](const HistoryMop& a, const HistoryMop& b) { return a.key < b.key; });
    txn_.final = false;
    Record(HistoryType::kInvoke, now, false);
    Fill(0, req);
    return AppendWorkload::kTxnOp;
  }

  // One micro-operation runs as one autocommit statement: the same
  // transaction without BEGIN's and COMMIT's round trips. On Redis the
  // whole transaction is one script.
  int TransactionSize() const override { return redis_ || txn_.n == 1 ? 1 : kInteractive; }

  Then Continue(int step, const drivers::OpResult& last, drivers::OpRequest* req) override {
    (void)last;
    if (step >= txn_.n) return Then::kCommit;
    Fill(step, req);
    return Then::kNext;
  }

  void Observe(int op, const drivers::OpResult& r) override {
    (void)op;
    HistoryType type = HistoryType::kFail;  // rolled back: it did not take effect
    if (r.outcome == Outcome::kOk) type = HistoryType::kOk;
    if (r.outcome == Outcome::kAmbiguous) type = HistoryType::kInfo;
    if (redis_ && type == HistoryType::kOk) SplitReads();
    if (final_pending_) {
      final_pending_ = false;
      ++final_reads_;
      if (r.outcome == Outcome::kOk && !texts_[0].empty()) final_generation_held_ = true;
    }
    // A read's list as it came (an append's text is not recorded).
    for (int i = 0; i < txn_.n; ++i) {
      HistoryMop& m = txn_.mops[i];
      m.text = m.read && type == HistoryType::kOk ? std::string_view(texts_[size_t(i)]) : std::string_view();
    }
    Record(type, MonoNowNs(), txn_.final);
  }

  // Every key of every generation this worker reached, each on its own;
  // and past it, while the generation before held anything (other workers
  // may have got further).
  int FinalRead(drivers::OpRequest* req) override {
    if (!started_ || final_next_ >= kMaxFinalKeys) return -1;
    if (final_next_ % shape_.keys == 0) {  // a generation begins
      if (final_next_ / shape_.keys > generation_ + 1 && !final_generation_held_) return -1;
      final_generation_held_ = false;
    }
    const int64_t key = shape_.key_base + final_next_;
    ++final_next_;
    txn_.n = 1;
    txn_.mops[0] = {true, key, 0, {}};
    txn_.final = true;
    final_pending_ = true;
    Record(HistoryType::kInvoke, MonoNowNs(), true);
    Fill(0, req);
    return AppendWorkload::kTxnOp;
  }

  std::string Finish() override {
    if (!final_next_) return "";
    return "append: final reads: " + std::to_string(final_reads_) + " of " + std::to_string(final_next_) + " keys";
  }

 private:
  struct Txn {
    int n = 0;
    HistoryMop mops[kMaxHistoryMops];
    bool final = false;
  };

  // Redis: every micro-operation in the script's pairs (key, value; value
  // 0: a read), the unused pairs' keys -1.
  void FillScript(drivers::OpRequest* req) {
    req->nparams = 0;
    req->stmt = AppendWorkload::kScript;
    for (int i = 0; i < kMaxHistoryMops; ++i) {
      const bool used = i < txn_.n;
      req->Set(2 * i, Param::Int(used ? txn_.mops[i].key : -1));
      req->Set(2 * i + 1, Param::Int(used && !txn_.mops[i].read ? txn_.mops[i].value : 0));
    }
    req->text = &script_reply_;
  }

  // The script's reply, each read's list in order, ';' between them.
  void SplitReads() {
    std::string_view rest = script_reply_;
    for (int i = 0; i < txn_.n; ++i) {
      if (!txn_.mops[i].read) continue;
      const size_t end = std::min(rest.find(';'), rest.size());
      texts_[size_t(i)].assign(rest.substr(0, end));
      rest.remove_prefix(std::min(rest.size(), end + 1));
    }
  }

  void Fill(int i, drivers::OpRequest* req) {
    if (redis_) return FillScript(req);
    const HistoryMop& m = txn_.mops[i];
    req->nparams = 0;
    req->Set(0, Param::Int(m.key));
    if (m.read) {
      req->stmt = AppendWorkload::kRead;
      req->text = &texts_[size_t(i)];
    } else {
      req->stmt = AppendWorkload::kAppend;
      req->text = nullptr;
      req->Set(1, Param::Int(m.value));
    }
  }

  void Record(HistoryType type, int64_t now, bool final) {
    if (!log_) return;
    HistoryEvent e;
    e.type = type;
    e.final = final;
    e.endpoint = endpoint_ ? uint32_t(*endpoint_) : 0;
    e.mono_ns = now;
    e.n = txn_.n;
    for (int i = 0; i < txn_.n; ++i) e.mops[i] = txn_.mops[i];
    log_->Record(e);
  }

  AppendWorkload::Shape shape_;
  uint32_t global_;
  Rng rng_;
  HistoryLog* log_ = nullptr;
  const int* endpoint_ = nullptr;
  Txn txn_;
  std::array<std::string, kMaxHistoryMops> texts_;
  bool redis_;
  std::string script_reply_;
  bool started_ = false;
  int64_t generation_ = 0, appended_ = 0;
  int64_t final_next_ = 0, final_reads_ = 0;
  bool final_pending_ = false, final_generation_held_ = false;
  static constexpr int64_t kMaxFinalKeys = 1000000;
};

}  // namespace

const std::vector<ParamSpec>& AppendWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {
      {"table", Type::kString, "stampede_append", "table", {}, 0, 0},
      {"keys", Type::kInt, "10", "keys written at a time", {}, 1, 10000},
      {"key_appends", Type::kInt, "32", "appends to each key before the next keys are written", {}, 1, 1000000},
      {"ops", Type::kInt, "4", "micro-operations per transaction, at most (1..8)", {}, 1, kMaxHistoryMops},
      {"read", Type::kDouble, "0.5", "fraction of micro-operations that read a list (0..1)", {}, 0, 1},
      {"reset", Type::kBool, "true", "delete the table's rows before the phase", {}, 0, 0},
  };
  return kSpecs;
}

StatusOr<std::unique_ptr<Workload>> AppendWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  if (ctx.dialect == Dialect::kRedis && ctx.flavor == "redis-cluster") {
    return Status::Error("append: not on redis-cluster (a transaction's keys would have to share one hash slot)");
  }
  std::unique_ptr<AppendWorkload> w(new AppendWorkload());
  w->ctx_ = ctx;
  w->ops_ = {"txn"};
  const uint32_t workers = std::max<uint32_t>(1, ctx.total_workers);
  // Each worker's share of a generation's appends.
  const int64_t worker_appends = std::max<int64_t>(1, params.Int("key_appends") * params.Int("keys") / workers);
  w->shape_ = {params.Int("keys"),    worker_appends, int(params.Int("ops")),
               params.Double("read"), workers,        KeyBase(ctx.phase_index)};
  const std::string& t = params.Str("table");
  if (ctx.dialect == Dialect::kRedis) {
    // One script a transaction, atomic as every Redis script: RPUSH to
    // append, LRANGE to read; the reads' lists come back joined by ';'.
    std::string script = "EVAL \"local out={} for i=1,16,2 do if ARGV[i]~='-1' then local k='" + t +
                         ":'..ARGV[i] if ARGV[i+1]=='0' then out[#out+1]=table.concat(redis.call('LRANGE',k,0,-1),',') "
                         "else redis.call('RPUSH',k,ARGV[i+1]) end end end return table.concat(out,';')\" 0";
    for (int i = 1; i <= 2 * kMaxHistoryMops; ++i) script += " $" + std::to_string(i);
    w->statements_ = {{script, true, true}};
    if (params.Bool("reset")) w->setup_.push_back(RedisDeletePrefix(t));
    return std::unique_ptr<Workload>(std::move(w));
  }
  if (ctx.dialect == Dialect::kPostgres) {
    w->statements_ = {{"INSERT INTO " + t + " AS a (k, v) VALUES ($1, CAST($2 AS TEXT)) ON CONFLICT (k) DO UPDATE " +
                           "SET v = a.v || ',' || excluded.v",
                       true, false},
                      {"SELECT v FROM " + t + " WHERE k = $1", false, true}};
    w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + t + " (k BIGINT PRIMARY KEY, v TEXT NOT NULL)");
  } else {
    w->statements_ = {{"INSERT INTO " + t + " (k, v) VALUES ($1, CAST($2 AS CHAR)) ON DUPLICATE KEY UPDATE " +
                           "v = CONCAT(v, ',', VALUES(v))",
                       true, false},
                      {"SELECT v FROM " + t + " WHERE k = $1", false, true}};
    w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + t + " (k BIGINT PRIMARY KEY, v LONGTEXT NOT NULL)");
  }
  if (params.Bool("reset")) w->setup_.push_back("DELETE FROM " + t);
  return std::unique_ptr<Workload>(std::move(w));
}

std::unique_ptr<WorkerOps> AppendWorkload::MakeWorker(uint32_t global_worker) const {
  return std::make_unique<AppendWorker>(shape_, global_worker,
                                        MixSeed(MixSeed(ctx_.seed, ctx_.phase_index), global_worker),
                                        ctx_.dialect == drivers::Dialect::kRedis);
}

}  // namespace stampede::workloads

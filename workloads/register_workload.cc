#include "workloads/register_workload.h"

#include "common/clock.h"

namespace stampede::workloads {
namespace {

using drivers::Dialect;
using drivers::Param;
using Type = ParamSpec::Type;

class RegisterWorker : public WorkerOps {
 public:
  RegisterWorker(std::shared_ptr<Registers> registers, uint32_t global)
      : registers_(std::move(registers)),
        slot_(registers_->slots[global / 2]),
        key_(int64_t(global / 2)),
        writer_(global % 2 == 0) {}

  int Next(drivers::OpRequest* req) override {
    req->nparams = 0;
    req->Set(0, Param::Int(key_));
    if (writer_) {
      req->stmt = RegisterWorkload::kWriteStmt;
      req->Set(1, Param::Int(++written_));
      return RegisterWorkload::kWriteOp;
    }
    // What was acknowledged before this read begins: the value first,
    // then its time (a newer one's, if it moved on meanwhile: the lag is
    // then smaller, never larger, than the truth).
    expected_ = slot_.value.load(std::memory_order_acquire);
    acked_ns_ = slot_.acked_ns.load(std::memory_order_acquire);
    began_ns_ = MonoNowNs();
    req->stmt = RegisterWorkload::kReadStmt;
    return RegisterWorkload::kReadOp;
  }

  void Observe(int op, const drivers::OpResult& r) override {
    if (r.outcome != Outcome::kOk) return;
    if (op == RegisterWorkload::kWriteOp) {
      slot_.acked_ns.store(MonoNowNs(), std::memory_order_release);
      slot_.value.store(written_, std::memory_order_release);
      return;
    }
    if (r.value < expected_) {
      Flag({Anomaly::kStaleRead, key_, expected_, r.value, std::max<int64_t>(0, began_ns_ - acked_ns_)});
    }
  }

 private:
  std::shared_ptr<Registers> registers_;
  Registers::Slot& slot_;
  int64_t key_;
  bool writer_;
  int64_t written_ = 0;
  int64_t expected_ = 0, acked_ns_ = 0, began_ns_ = 0;
};

}  // namespace

const std::vector<ParamSpec>& RegisterWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {
      {"table", Type::kString, "stampede_register", "table (Redis: key prefix)", {}, 0, 0},
  };
  return kSpecs;
}

StatusOr<std::unique_ptr<Workload>> RegisterWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  std::unique_ptr<RegisterWorkload> w(new RegisterWorkload());
  w->ops_ = {"write", "read"};
  const size_t keys = (size_t(std::max<uint32_t>(1, ctx.total_workers)) + 1) / 2;
  w->registers_ = std::make_shared<Registers>(keys);
  const std::string& t = params.Str("table");
  const std::string last = std::to_string(keys - 1);
  if (ctx.dialect == Dialect::kRedis) {
    w->statements_ = {{"EVAL \"return tonumber(redis.call('GET',KEYS[1]) or '0')\" 1 " + t + ":$1", false, true},
                      {"SET " + t + ":$1 $2", true, false}};
    w->setup_.push_back("EVAL \"for i=0,tonumber(ARGV[2]) do redis.call('SET',ARGV[1]..i,'0') end return 0\" 0 " + t +
                        ": " + last);
    if (ctx.flavor == "redis-cluster")
      return Status::Error("register: not on redis-cluster yet (its setup is one script)");
    return std::unique_ptr<Workload>(std::move(w));
  }
  w->statements_ = {{"SELECT v FROM " + t + " WHERE k = $1", false, true},
                    {"UPDATE " + t + " SET v = $2 WHERE k = $1", true, false}};
  w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + t + " (k BIGINT PRIMARY KEY, v BIGINT NOT NULL)");
  w->setup_.push_back("DELETE FROM " + t);
  if (ctx.dialect == Dialect::kPostgres) {
    w->setup_.push_back("INSERT INTO " + t + " (k, v) SELECT g, 0 FROM generate_series(0, " + last + ") g");
  } else {
    w->setup_.push_back("INSERT INTO " + t + " (k, v) WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 " +
                        "FROM seq WHERE n < " + last + ") SELECT n, 0 FROM seq");
  }
  return std::unique_ptr<Workload>(std::move(w));
}

std::unique_ptr<WorkerOps> RegisterWorkload::MakeWorker(uint32_t global_worker) const {
  return std::make_unique<RegisterWorker>(registers_, global_worker);
}

}  // namespace stampede::workloads

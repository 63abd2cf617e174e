#include "workloads/kv_workload.h"

#include "common/rng.h"
#include "workloads/random_string.h"
#include "workloads/redis_scripts.h"

namespace stampede::workloads {
namespace {

using drivers::Dialect;
using drivers::Param;
using Type = ParamSpec::Type;

class KvWorker : public WorkerOps {
 public:
  KvWorker(uint64_t keys, double read_fraction, int value_size, std::shared_ptr<const ZipfianGenerator> zipf,
           std::shared_ptr<const RandomText> text, uint64_t seed)
      : keys_(keys),
        read_threshold_(static_cast<uint64_t>(read_fraction * double(uint64_t{1} << 53))),
        zipf_(std::move(zipf)),
        rng_(seed),
        value_size_(static_cast<size_t>(value_size)),
        text_(std::move(text)) {}

  int Next(drivers::OpRequest* req) override {
    bool read = (rng_.Next() >> 11) < read_threshold_;
    uint64_t key = zipf_ ? zipf_->Next(rng_) : rng_.Uniform(keys_);
    req->nparams = 0;
    req->Set(0, Param::Int(static_cast<int64_t>(key)));
    if (read) {
      req->stmt = 0;
      return 0;
    }
    req->Set(1, Param::Str(text_->Take(rng_, value_size_)));
    req->stmt = 1;
    return 1;
  }

 private:
  uint64_t keys_;
  uint64_t read_threshold_;
  std::shared_ptr<const ZipfianGenerator> zipf_;
  Rng rng_;
  size_t value_size_;
  std::shared_ptr<const RandomText> text_;
};

}  // namespace

const std::vector<ParamSpec>& KvWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {
      {"table", Type::kString, "stampede_kv", "table (Redis: key prefix)", {}, 0, 0},
      {"keys", Type::kInt, "100000", "size of the key space", {}, 1, 1e15},
      {"read", Type::kDouble, "0.5", "fraction of reads (0..1)", {}, 0, 1},
      {"distribution", Type::kChoice, "uniform", "key distribution", {"uniform", "zipfian"}, 0, 0},
      {"value_size", Type::kInt, "100", "length of values", {}, 1, 65535},
      {"preload", Type::kBool, "false", "write every key before the phase", {}, 0, 0},
      {"reset", Type::kBool, "false", "empty the table before the phase", {}, 0, 0},
  };
  return kSpecs;
}

StatusOr<std::unique_ptr<Workload>> KvWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  std::unique_ptr<KvWorkload> w(new KvWorkload());
  w->ctx_ = ctx;
  w->ops_ = {"read", "write"};
  w->keys_ = params.Int("keys");
  w->read_fraction_ = params.Double("read");
  w->value_size_ = static_cast<int>(params.Int("value_size"));
  w->text_ = std::make_shared<RandomText>(MixSeed(ctx.seed, ctx.phase_index), size_t(w->value_size_));
  if (params.Str("distribution") == "zipfian") {
    w->zipf_ = std::make_shared<ZipfianGenerator>(w->keys_, ZipfianGenerator::kYcsbTheta, true);
  }
  if (ctx.flavor == "redis-cluster" && params.Bool("preload")) {
    return Status::Error(
        "kv: preload is not supported on redis-cluster (one script cannot write "
        "every slot); fill the keys with a write-only phase (read: 0) instead");
  }
  const std::string& t = params.Str("table");
  const std::string size = std::to_string(w->value_size_);
  switch (ctx.dialect) {
    case Dialect::kRedis:
      w->statements_ = {{"GET " + t + ":$1", false}, {"SET " + t + ":$1 $2", true}};
      if (params.Bool("reset")) {
        w->setup_.push_back(RedisDeletePrefix(t));
      }
      if (params.Bool("preload")) {
        w->Preload([&](uint64_t first, uint64_t last) {
          return "EVAL \"local v=string.rep('x',tonumber(ARGV[4])) for i=tonumber(ARGV[2]),tonumber(ARGV[3]) do "
                 "redis.call('SET',ARGV[1]..i,v) end return 0\" 0 " +
                 t + ": " + std::to_string(first) + " " + std::to_string(last) + " " + size;
        });
      }
      break;
    case Dialect::kPostgres:
      w->statements_ = {{"SELECT v FROM " + t + " WHERE k = $1", false},
                        {"INSERT INTO " + t +
                             " (k, v) VALUES ($1, $2) ON CONFLICT (k) DO "
                             "UPDATE SET v = EXCLUDED.v",
                         true}};
      w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + t + " (k BIGINT PRIMARY KEY, v VARCHAR(" + size + "))");
      if (params.Bool("reset")) w->setup_.push_back("TRUNCATE TABLE " + t);
      if (params.Bool("preload")) {
        w->Preload([&](uint64_t first, uint64_t last) {
          return "INSERT INTO " + t + " (k, v) SELECT g, repeat('x', " + size + ") FROM generate_series(" +
                 std::to_string(first) + ", " + std::to_string(last) + ") g ON CONFLICT DO NOTHING";
        });
      }
      break;
    case Dialect::kMysql:
      w->statements_ = {{"SELECT v FROM " + t + " WHERE k = $1", false},
                        {"INSERT INTO " + t +
                             " (k, v) VALUES ($1, $2) ON DUPLICATE KEY "
                             "UPDATE v = VALUES(v)",
                         true}};
      w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + t + " (k BIGINT PRIMARY KEY, v VARCHAR(" + size + "))");
      if (params.Bool("reset")) w->setup_.push_back("TRUNCATE TABLE " + t);
      if (params.Bool("preload")) {
        w->Preload([&](uint64_t first, uint64_t last) {
          return "INSERT IGNORE INTO " + t + " (k, v) WITH RECURSIVE seq(n) AS (SELECT " + std::to_string(first) +
                 " UNION ALL SELECT n + 1 FROM seq WHERE n < " + std::to_string(last) + ") SELECT n, REPEAT('x', " +
                 size + ") FROM seq";
        });
      }
      break;
  }
  return std::unique_ptr<Workload>(std::move(w));
}

std::unique_ptr<WorkerOps> KvWorkload::MakeWorker(uint32_t global_worker) const {
  uint64_t seed = MixSeed(MixSeed(ctx_.seed, ctx_.phase_index), global_worker);
  return std::make_unique<KvWorker>(keys_, read_fraction_, value_size_, zipf_, text_, seed);
}

}  // namespace stampede::workloads

#include "workloads/ycsb_workload.h"

#include <charconv>
#include <cstring>

#include "common/rng.h"
#include "workloads/random_string.h"
#include "workloads/redis_scripts.h"

namespace stampede::workloads {
namespace {

using drivers::Dialect;
using drivers::Param;
using Type = ParamSpec::Type;
using Distribution = YcsbWorkload::Distribution;

struct Mix {
  char name;
  double weights[YcsbWorkload::kNumOps];  // read, update, insert, scan, rmw
  Distribution distribution;
};

constexpr Mix kMixes[] = {
    {'a', {0.50, 0.50, 0, 0, 0}, Distribution::kZipfian}, {'b', {0.95, 0.05, 0, 0, 0}, Distribution::kZipfian},
    {'c', {1.00, 0, 0, 0, 0}, Distribution::kZipfian},    {'d', {0.95, 0, 0.05, 0, 0}, Distribution::kLatest},
    {'e', {0, 0, 0.05, 0.95, 0}, Distribution::kZipfian}, {'f', {0.50, 0, 0, 0, 0.50}, Distribution::kZipfian},
};

class YcsbWorker : public WorkerOps {
 public:
  YcsbWorker(const YcsbWorkload::Config& config, const ZipfianGenerator* zipf, const RandomText* text, uint32_t worker,
             uint32_t total_workers, uint64_t insert_base, uint64_t seed)
      : c_(config),
        zipf_(zipf),
        worker_(worker),
        stride_(total_workers),
        insert_base_(insert_base),
        rng_(seed),
        text_(*text) {
    uint64_t acc = 0;
    for (int i = 0; i < YcsbWorkload::kNumOps; ++i) {
      cumulative_[i] = acc += static_cast<uint64_t>(config.weights[i] * 1e6 + 0.5);
    }
    std::memcpy(key_, c_.key_prefix.data(), c_.key_prefix.size());
    std::memcpy(key_ + c_.key_prefix.size(), "user", 4);
    key_head_ = c_.key_prefix.size() + 4;
  }

  int Next(drivers::OpRequest* req) override {
    pending_index_ = pending_update_ = false;
    req->nparams = 0;
    if (c_.load) return Insert(worker_ + loaded_++ * stride_, req);
    uint64_t pick = rng_.Uniform(cumulative_[YcsbWorkload::kNumOps - 1]);
    int op = 0;
    while (pick >= cumulative_[op]) ++op;
    switch (op) {
      case YcsbWorkload::kInsert:
        return Insert(insert_base_ + worker_ + inserted_++ * stride_, req);
      case YcsbWorkload::kUpdate:
        SetKey(ChooseKey(), req);
        Update(req);
        return op;
      case YcsbWorkload::kScan:
        SetKey(ChooseKey(), req);
        req->stmt = YcsbWorkload::kStmtScan;
        req->Set(1, Param::Int(1 + static_cast<int64_t>(rng_.Uniform(uint64_t(c_.max_scan_length)))));
        return op;
      case YcsbWorkload::kReadModifyWrite:
        pending_update_ = true;
        [[fallthrough]];
      default:
        SetKey(ChooseKey(), req);
        req->stmt = YcsbWorkload::kStmtRead;
        return op;
    }
  }

  bool More(drivers::OpRequest* req) override {
    if (pending_index_) {  // Redis: the insert's key goes into the scan index
      pending_index_ = false;
      req->nparams = 1;
      req->stmt = YcsbWorkload::kStmtIndex;
      return true;
    }
    if (pending_update_) {  // read-modify-write: the update, same key
      pending_update_ = false;
      req->nparams = 1;
      Update(req);
      return true;
    }
    return false;
  }

 private:
  int Insert(uint64_t keynum, drivers::OpRequest* req) {
    SetKey(keynum, req);
    req->stmt = YcsbWorkload::kStmtInsert;
    for (int f = 0; f < c_.fields; ++f) {
      req->Set(1 + f, Param::Str(text_.Take(rng_, size_t(c_.field_length))));
    }
    pending_index_ = c_.redis;
    return YcsbWorkload::kInsert;
  }

  void Update(drivers::OpRequest* req) {
    const int f = static_cast<int>(rng_.Uniform(uint64_t(c_.fields)));
    req->stmt = YcsbWorkload::kStmtUpdate0 + f;
    req->Set(1, Param::Str(text_.Take(rng_, size_t(c_.field_length))));
  }

  uint64_t ChooseKey() {
    switch (c_.distribution) {
      case Distribution::kUniform:
        return rng_.Uniform(c_.records);
      case Distribution::kZipfian:
        return zipf_->Next(rng_);
      case Distribution::kLatest: {
        // Newest first: this run's inserts (all workers assumed at this
        // worker's pace), then the loaded keys from the top down.
        const uint64_t rank = zipf_->NextRank(rng_);
        const uint64_t inserted = inserted_ * stride_;
        if (rank < inserted) return insert_base_ + (inserted - 1 - rank);
        return c_.records - 1 - (rank - inserted) % c_.records;
      }
    }
    return 0;
  }

  void SetKey(uint64_t keynum, drivers::OpRequest* req) {
    const uint64_t h = Fnv1a64(keynum) & 0x7fffffffffffffffULL;
    auto [end, ec] = std::to_chars(key_ + key_head_, key_ + sizeof(key_), h);
    (void)ec;  // 19 digits always fit
    req->Set(0, Param::Str(std::string_view(key_, static_cast<size_t>(end - key_))));
  }

  const YcsbWorkload::Config& c_;
  const ZipfianGenerator* zipf_;
  uint64_t cumulative_[YcsbWorkload::kNumOps];
  uint64_t worker_;
  uint64_t stride_;
  uint64_t insert_base_;
  uint64_t loaded_ = 0;
  uint64_t inserted_ = 0;
  Rng rng_;
  const RandomText& text_;  // the workload's
  char key_[96];
  size_t key_head_ = 0;
  bool pending_index_ = false;
  bool pending_update_ = false;
};

}  // namespace

const std::vector<ParamSpec>& YcsbWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {
      {"mix", Type::kChoice, "a", "core workload", {"a", "b", "c", "d", "e", "f"}, 0, 0},
      {"records", Type::kInt, "1000", "record count (keys loaded)", {}, 1, 1e11},
      {"fields", Type::kInt, "10", "fields per record", {}, 1, kMaxFields},
      {"field_length", Type::kInt, "100", "characters per field", {}, 1, 10000},
      {"distribution",
       Type::kChoice,
       "default",
       "request distribution (default: the mix's)",
       {"default", "uniform", "zipfian", "latest"},
       0,
       0},
      {"max_scan_length", Type::kInt, "100", "scans read 1..max_scan_length records", {}, 1, 10000},
      {"load", Type::kBool, "true", "run a load step (insert every record) before the mix", {}, 0, 0},
      {"reset", Type::kBool, "true", "empty the table before loading", {}, 0, 0},
      {"table", Type::kString, "usertable", "table (Redis: key prefix)", {}, 0, 0},
  };
  return kSpecs;
}

std::vector<StepSpec> YcsbWorkload::Steps(const Params& params, uint32_t workers) {
  if (!params.Bool("load")) return {};
  return {{"load", workers, static_cast<uint64_t>(params.Int("records")), false}, {"run", workers, 0, false}};
}

StatusOr<std::unique_ptr<Workload>> YcsbWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  std::unique_ptr<YcsbWorkload> w(new YcsbWorkload());
  w->ctx_ = ctx;
  w->ops_ = {"read", "update", "insert", "scan", "readmodifywrite"};
  Config& c = w->config_;
  c.records = static_cast<uint64_t>(params.Int("records"));
  c.fields = static_cast<int>(params.Int("fields"));
  c.field_length = static_cast<int>(params.Int("field_length"));
  c.max_scan_length = static_cast<int>(params.Int("max_scan_length"));
  c.load = ctx.step == "load";
  c.redis = ctx.dialect == Dialect::kRedis;
  const char mix = params.Str("mix")[0];
  for (const Mix& m : kMixes) {
    if (m.name != mix) continue;
    std::copy(std::begin(m.weights), std::end(m.weights), c.weights);
    c.distribution = m.distribution;
  }
  const std::string& dist = params.Str("distribution");
  if (dist == "uniform") c.distribution = Distribution::kUniform;
  if (dist == "zipfian") c.distribution = Distribution::kZipfian;
  if (dist == "latest") c.distribution = Distribution::kLatest;
  if (c.distribution != Distribution::kUniform) {
    w->zipf_ = std::make_shared<ZipfianGenerator>(c.records, ZipfianGenerator::kYcsbTheta,
                                                  c.distribution == Distribution::kZipfian);
  }
  const std::string& t = params.Str("table");
  const bool first_step = ctx.step.empty() || c.load;
  if (c.redis) {
    c.key_prefix = t + ":";
    std::string insert = "HSET $1";
    for (int f = 0; f < c.fields; ++f) {
      insert += " field" + std::to_string(f) + " $" + std::to_string(f + 2);
    }
    w->statements_ = {{"HGETALL $1", false, false},
                      {"ZRANGEBYLEX " + t + ":index [$1 + LIMIT 0 $2", false, false},
                      {insert, true, false},
                      {"ZADD " + t + ":index 0 $1", true, false}};
    for (int f = 0; f < c.fields; ++f) {
      w->statements_.push_back({"HSET $1 field" + std::to_string(f) + " $2", true, false});
    }
    if (c.load && params.Bool("reset")) w->setup_.push_back(RedisDeletePrefix(t));
  } else {
    std::string columns = "ycsb_key", placeholders = "$1", ddl;
    // MySQL rows are limited to 64 KB of VARCHAR: long fields become TEXT.
    const bool text = c.fields * c.field_length > 8000;
    const std::string type = text ? "TEXT" : "VARCHAR(" + std::to_string(c.field_length) + ")";
    for (int f = 0; f < c.fields; ++f) {
      columns += ", field" + std::to_string(f);
      placeholders += ", $" + std::to_string(f + 2);
      ddl += ", field" + std::to_string(f) + " " + type;
    }
    w->statements_ = {{"SELECT * FROM " + t + " WHERE ycsb_key = $1", false, false},
                      {"SELECT * FROM " + t + " WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2", false, false},
                      {"INSERT INTO " + t + " (" + columns + ") VALUES (" + placeholders + ")", true, false},
                      {"SELECT 1", false, false}};  // the index statement is Redis-only
    for (int f = 0; f < c.fields; ++f) {
      w->statements_.push_back(
          {"UPDATE " + t + " SET field" + std::to_string(f) + " = $2 WHERE ycsb_key = $1", true, false});
    }
    if (first_step) {
      w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + t + " (ycsb_key VARCHAR(64) PRIMARY KEY" + ddl + ")");
      if (c.load && params.Bool("reset")) w->setup_.push_back("TRUNCATE TABLE " + t);
    }
  }
  w->text_ = std::make_unique<RandomText>(MixSeed(ctx.seed, ctx.phase_index), size_t(c.field_length));
  return std::unique_ptr<Workload>(std::move(w));
}

std::unique_ptr<WorkerOps> YcsbWorkload::MakeWorker(uint32_t global_worker) const {
  const uint64_t seed = MixSeed(MixSeed(ctx_.seed, ctx_.phase_index), global_worker);
  const uint64_t insert_base = config_.records + uint64_t{ctx_.phase_index} * kPhaseKeySpan;
  return std::make_unique<YcsbWorker>(config_, zipf_.get(), text_.get(), global_worker, ctx_.total_workers, insert_base,
                                      seed);
}

}  // namespace stampede::workloads

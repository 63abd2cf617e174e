#include "workloads/hugedb_workload.h"

#include <cstring>
#include <numeric>

#include "common/rng.h"
#include "workloads/zipfian_generator.h"

namespace stampede::workloads {
namespace {

using drivers::Dialect;
using drivers::Param;
using Type = ParamSpec::Type;
using H = HugedbWorkload;

// The user's unique string, computable from its id: "u", 11 base-62 digits
// of a hash, then the id in base 62 (so it is unique).
size_t WriteUniq(uint64_t id, char* out) {
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  size_t n = 0;
  out[n++] = 'u';
  uint64_t h = Fnv1a64(id);
  for (int i = 0; i < 11; ++i, h /= 62) out[n++] = kDigits[h % 62];
  char tmp[16];
  int t = 0;
  do {
    tmp[t++] = kDigits[id % 62];
    id /= 62;
  } while (id);
  while (t) out[n++] = tmp[--t];
  return n;
}

class HugedbWorker : public WorkerOps {
 public:
  HugedbWorker(const H::Counts& c, bool warm, uint32_t worker, uint32_t total_workers, uint64_t seed)
      : c_(c), warm_(warm), worker_(worker), stride_(total_workers), rng_(seed) {
    const uint64_t inserts = c_.users - c_.warm;
    total_ = warm_ ? c_.warm : inserts + 4 * c_.searches;
    budget_ = total_ / stride_ + (worker_ < total_ % stride_ ? 1 : 0);
    // An affine permutation of [0, total): a multiplier coprime with total.
    mult_ = total_ > 1 ? (0x9E3779B97F4A7C15ULL % total_) | 1 : 1;
    while (total_ > 1 && std::gcd(mult_, total_) != 1) mult_ += 2;
  }

  int Next(drivers::OpRequest* req) override {
    stage_ = 0;
    req->nparams = 0;
    const uint64_t n = worker_ + k_++ * stride_;
    if (warm_) return Insert(n, req);
    const uint64_t inserts = c_.users - c_.warm;
    uint64_t p = static_cast<uint64_t>((static_cast<unsigned __int128>(mult_) * n + 12345) % total_);
    if (p < inserts) return Insert(c_.warm + p, req);
    p -= inserts;
    op_ = static_cast<int>(1 + p / c_.searches);
    user_ = ExistingUser();
    switch (op_) {
      case H::kSearchUsers:
        req->stmt = H::kSelectUser;
        req->Set(0, Param::Str(std::string_view(uniq_, WriteUniq(user_, uniq_))));
        break;
      case H::kUpdateItemsAmounts: {
        // Three of the user's four item types.
        const int skip = static_cast<int>(rng_.Uniform(H::kItemsPerUser));
        req->stmt = H::kSelectItemsTyp;
        req->Set(0, Param::Int(int64_t(user_)));
        for (int t = 0, i = 1; t < H::kItemsPerUser; ++t) {
          if (t != skip) req->Set(i++, Param::Int(t));
        }
        break;
      }
      case H::kRandomSearchItems:
        req->stmt = H::kSelectItems;
        req->Set(0, Param::Int(int64_t(user_)));
        break;
      default:
        req->stmt = H::kSelectRels;
        req->Set(0, Param::Int(int64_t(user_)));
        break;
    }
    return op_;
  }

  bool More(drivers::OpRequest* req) override {
    ++stage_;
    req->nparams = 0;
    switch (op_) {
      case H::kInsertUsersItems:
        if (stage_ <= H::kItemsPerUser) {
          const int j = stage_ - 1;
          req->stmt = H::kInsertItem;
          req->Set(0, Param::Int(int64_t(user_ * H::kItemsPerUser + uint64_t(j))));
          req->Set(1, Param::Int(int64_t(user_)));
          req->Set(2, Param::Int(j));
          req->Set(3, Param::Int(int64_t(rng_.Uniform(1000))));
          return true;
        }
        if (stage_ == H::kItemsPerUser + 1 && user_ > 0) {
          // Link to an earlier user; fk_high is this user, so the pair is new.
          req->stmt = H::kInsertRel;
          req->Set(0, Param::Int(int64_t(rng_.Uniform(user_))));
          req->Set(1, Param::Int(int64_t(user_)));
          return true;
        }
        return false;
      case H::kUpdateItemsAmounts:
        if (stage_ > 3) return false;
        req->stmt = H::kUpdateAmount;
        req->Set(0, Param::Int(int64_t(user_ * H::kItemsPerUser + rng_.Uniform(H::kItemsPerUser))));
        req->Set(1, Param::Int(int64_t(1 + rng_.Uniform(100))));
        return true;
      case H::kSearchRelsAddBonds:
        if (stage_ > 1 || rng_.Uniform(2) == 0) return false;
        req->stmt = H::kUpdateBond;
        req->Set(0, Param::Int(int64_t(user_)));
        return true;
      default:
        return false;
    }
  }

 private:
  int Insert(uint64_t user, drivers::OpRequest* req) {
    op_ = H::kInsertUsersItems;
    user_ = user;
    req->stmt = H::kInsertUser;
    req->Set(0, Param::Int(int64_t(user)));
    req->Set(1, Param::Str(std::string_view(uniq_, WriteUniq(user, uniq_))));
    return op_;
  }

  // A user that probably exists: the warm ones, plus the share of the mixed
  // step's inserts done by now if every worker progresses like this one.
  uint64_t ExistingUser() {
    const double progress = budget_ ? double(k_) / double(budget_) : 1.0;
    const uint64_t upto = c_.warm + static_cast<uint64_t>(progress * double(c_.users - c_.warm));
    return rng_.Uniform(std::max<uint64_t>(1, upto));
  }

  const H::Counts c_;
  const bool warm_;
  const uint64_t worker_;
  const uint64_t stride_;
  uint64_t total_ = 0;
  uint64_t budget_ = 0;
  uint64_t mult_ = 1;
  uint64_t k_ = 0;
  Rng rng_;
  int op_ = 0;
  int stage_ = 0;
  uint64_t user_ = 0;
  char uniq_[32];
};

}  // namespace

const std::vector<ParamSpec>& HugedbWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {
      {"users", Type::kInt, "1000000", "users to insert (each with 4 items and 1 rel)", {}, 1, 1e12},
      {"searches", Type::kInt, "1000000", "operations of each search kind", {}, 0, 1e12},
      {"slow_factor", Type::kInt, "1", "divides users and searches (the 2019 benchmark's knob)", {}, 1, 1e9},
      {"table", Type::kString, "hugedb_", "prefix of the users, items and rels tables", {}, 0, 0},
      {"reset", Type::kBool, "true", "empty the tables first", {}, 0, 0},
  };
  return kSpecs;
}

HugedbWorkload::Counts HugedbWorkload::CountsOf(const Params& params) {
  Counts c;
  const uint64_t slow = std::max<uint64_t>(1, static_cast<uint64_t>(params.Int("slow_factor")));
  c.users = std::max<uint64_t>(1, static_cast<uint64_t>(params.Int("users")) / slow);
  c.warm = std::max<uint64_t>(1, c.users * 5 / 100);
  c.searches = static_cast<uint64_t>(params.Int("searches")) / slow;
  return c;
}

std::vector<StepSpec> HugedbWorkload::Steps(const Params& params, uint32_t workers) {
  const Counts c = CountsOf(params);
  std::vector<StepSpec> steps = {{"warm", workers, c.warm, false}};
  const uint64_t mixed = (c.users - c.warm) + 4 * c.searches;
  if (mixed > 0) steps.push_back({"mixed", workers, mixed, false});
  return steps;
}

StatusOr<std::unique_ptr<Workload>> HugedbWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  if (ctx.dialect == Dialect::kRedis) {
    return Status::Error("hugedb2019: needs a SQL target (postgres or mysql driver)");
  }
  std::unique_ptr<HugedbWorkload> w(new HugedbWorkload());
  w->ctx_ = ctx;
  w->counts_ = CountsOf(params);
  w->warm_ = ctx.step != "mixed";
  w->ops_ = {"InsertUsersItems", "SearchUsers", "UpdateItemsAmounts", "RandomSearchItems", "SearchRelsAddBonds"};
  const std::string& t = params.Str("table");
  const std::string users = t + "users", items = t + "items", rels = t + "rels";
  w->statements_ = {
      {"INSERT INTO " + users + " (id, uniq) VALUES ($1, $2)", true, false},
      {"INSERT INTO " + items + " (id, fk_id, typ, amount) VALUES ($1, $2, $3, $4)", true, false},
      {"INSERT INTO " + rels + " (fk_low, fk_high, bond) VALUES ($1, $2, 0)", true, false},
      {"SELECT id, uniq FROM " + users + " WHERE uniq = $1", false, false},
      {"SELECT id, amount FROM " + items + " WHERE fk_id = $1 AND typ IN ($2, $3, $4)", false, false},
      {"UPDATE " + items + " SET amount = amount + $2 WHERE id = $1", true, false},
      {"SELECT id, typ, amount FROM " + items + " WHERE fk_id = $1", false, false},
      {"SELECT fk_low, fk_high, bond FROM " + rels + " WHERE fk_low = $1 OR fk_high = $1", false, false},
      {"UPDATE " + rels + " SET bond = bond + 1 WHERE fk_high = $1", true, false},
  };
  if (w->warm_) {
    const bool mysql = ctx.dialect == Dialect::kMysql;
    w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + users +
                        " (id BIGINT PRIMARY KEY, uniq VARCHAR(32) NOT NULL UNIQUE)");
    w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + items +
                        " (id BIGINT PRIMARY KEY, fk_id BIGINT NOT NULL, typ INT NOT NULL, amount BIGINT NOT NULL" +
                        (mysql ? ", INDEX " + items + "_fk_typ (fk_id, typ))" : ")"));
    w->setup_.push_back("CREATE TABLE IF NOT EXISTS " + rels +
                        " (fk_low BIGINT NOT NULL, fk_high BIGINT NOT NULL, bond INT NOT NULL, "
                        "PRIMARY KEY (fk_low, fk_high)" +
                        (mysql ? ", INDEX " + rels + "_high (fk_high))" : ")"));
    if (!mysql) {
      w->setup_.push_back("CREATE INDEX IF NOT EXISTS " + items + "_fk_typ ON " + items + " (fk_id, typ)");
      w->setup_.push_back("CREATE INDEX IF NOT EXISTS " + rels + "_high ON " + rels + " (fk_high)");
    }
    if (params.Bool("reset")) {
      for (const std::string& table : {users, items, rels}) w->setup_.push_back("TRUNCATE TABLE " + table);
    }
  }
  return std::unique_ptr<Workload>(std::move(w));
}

std::unique_ptr<WorkerOps> HugedbWorkload::MakeWorker(uint32_t global_worker) const {
  const uint64_t seed = MixSeed(MixSeed(ctx_.seed, ctx_.phase_index), global_worker);
  return std::make_unique<HugedbWorker>(counts_, warm_, global_worker, ctx_.total_workers, seed);
}

}  // namespace stampede::workloads

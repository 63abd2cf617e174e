#include "workloads/custom_workload.h"

#include <ctime>

#include "common/rng.h"
#include "workloads/random_string.h"

namespace stampede::workloads {

using drivers::Param;

namespace {

enum Kind : uint8_t { kSequence, kUniform, kZipfian, kString, kUuid, kNow, kChoice, kValue, kFrom };

Kind KindOf(const std::string& k) {
  static const std::pair<const char*, Kind> kKinds[] = {
      {"sequence", kSequence}, {"uniform", kUniform}, {"zipfian", kZipfian}, {"string", kString}, {"uuid", kUuid},
      {"now", kNow},           {"choice", kChoice},   {"value", kValue},     {"from", kFrom}};
  for (const auto& [name, kind] : kKinds) {
    if (k == name) return kind;
  }
  return kValue;
}

struct Value {
  bool is_int = true;
  int64_t i = 0;
  std::string s;
};

// The last kFromRing values of one parameter of one op.
struct Ring {
  std::vector<Value> values;
  size_t next = 0;
  // The value this op execution uses: every `from` of one op execution that
  // names the same op and parameter gets the same value.
  uint64_t picked_epoch = 0;
  size_t picked = 0;
};

void WriteUuid(Rng& rng, char* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t hi = rng.Next(), lo = rng.Next();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;        // version 4
  lo = (lo & ~(3ULL << 62)) | (2ULL << 62);  // variant 10
  int n = 0;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out[n++] = '-';
    const uint64_t word = i < 16 ? hi : lo;
    out[n++] = kHex[(word >> (60 - 4 * (i % 16))) & 0xF];
  }
}

// "YYYY-MM-DD HH:MM:SS.ffffff", UTC: 26 characters.
void WriteNow(char* out) {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  std::tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  auto put = [&](int v, int digits, int at) {
    for (int i = digits - 1; i >= 0; --i, v /= 10) out[at + i] = char('0' + v % 10);
  };
  put(tm.tm_year + 1900, 4, 0);
  out[4] = '-';
  put(tm.tm_mon + 1, 2, 5);
  out[7] = '-';
  put(tm.tm_mday, 2, 8);
  out[10] = ' ';
  put(tm.tm_hour, 2, 11);
  out[13] = ':';
  put(tm.tm_min, 2, 14);
  out[16] = ':';
  put(tm.tm_sec, 2, 17);
  out[19] = '.';
  put(int(ts.tv_nsec / 1000), 6, 20);
}

bool IsRead(const std::string& text) {
  static const char* kReads[] = {"SELECT",        "SHOW",        "WITH",    "VALUES", "EXPLAIN",   "GET",
                                 "MGET",          "HGET",        "HGETALL", "HMGET",  "EXISTS",    "ZRANGE",
                                 "ZRANGEBYSCORE", "ZRANGEBYLEX", "ZSCORE",  "ZCARD",  "SMEMBERS",  "SISMEMBER",
                                 "SCARD",         "LRANGE",      "LLEN",    "SCAN",   "GEOSEARCH", "GEOPOS",
                                 "GEODIST",       "TTL",         "STRLEN",  "XRANGE"};
  size_t b = text.find_first_not_of(" \t\n(");
  size_t e = text.find_first_of(" \t\n(", b);
  if (b == std::string::npos) return false;
  std::string word = text.substr(b, e == std::string::npos ? std::string::npos : e - b);
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* r : kReads) {
    if (word == r) return true;
  }
  return false;
}

// The longest string parameter: the random text's block covers it.
size_t MaxStringLength(const v1::CustomWorkload& spec) {
  size_t n = 1;
  for (const auto& op : spec.ops()) {
    for (const auto& st : op.statements()) {
      for (const auto& g : st.params()) {
        if (g.kind() == "string") n = std::max(n, size_t(g.a()));
      }
    }
  }
  return n;
}

}  // namespace

class CustomWorker : public WorkerOps {
 public:
  CustomWorker(const CustomWorkload& w, uint32_t worker, uint32_t total_workers, uint64_t seed)
      : w_(w), worker_(worker), stride_(total_workers), rng_(seed) {
    const auto& stmts = w_.statements_;
    slots_.resize(stmts.size());
    for (size_t s = 0; s < stmts.size(); ++s) {
      const size_t n = w_.params_[s].size();
      slots_[s].counters.assign(n, 0);
      slots_[s].buffers.assign(n, std::string(36, ' '));
    }
    rings_.resize(w_.op_info_.size());
    pending_.resize(w_.op_info_.size());
    for (size_t o = 0; o < w_.op_info_.size(); ++o) {
      if (!w_.op_info_[o].referenced) continue;
      const int n = SpecOf(w_.op_info_[o].first).params_size();
      rings_[o].resize(size_t(n));
      pending_[o].resize(size_t(n));
      for (Ring& r : rings_[o]) r.values.reserve(CustomWorkload::kFromRing);
    }
  }

  int Next(drivers::OpRequest* req) override {
    const uint64_t pick = rng_.Uniform(w_.cumulative_.back());
    int op = 0;
    while (pick >= w_.cumulative_[size_t(op)]) ++op;
    op_ = op;
    stage_ = 0;
    ++epoch_;
    Fill(w_.op_info_[size_t(op)].first, req);
    return op;
  }

  bool More(drivers::OpRequest* req) override {
    const CustomWorkload::Op& info = w_.op_info_[size_t(op_)];
    if (++stage_ >= info.count) return false;
    Fill(info.first + stage_, req);
    return true;
  }

  int TransactionSize() const override {
    const CustomWorkload::Op& info = w_.op_info_[size_t(op_)];
    return info.txn ? info.count : 1;
  }

  void Observe(int op, const drivers::OpResult& result) override {
    if (!w_.op_info_[size_t(op)].referenced || result.outcome != Outcome::kOk) return;
    auto& rings = rings_[size_t(op)];
    for (size_t p = 0; p < rings.size(); ++p) {
      Ring& r = rings[p];
      if (r.values.size() < CustomWorkload::kFromRing) {
        r.values.push_back(pending_[size_t(op)][p]);
      } else {
        Value& v = r.values[r.next];
        v.is_int = pending_[size_t(op)][p].is_int;
        v.i = pending_[size_t(op)][p].i;
        v.s.assign(pending_[size_t(op)][p].s);  // capacity reused
        r.next = (r.next + 1) % CustomWorkload::kFromRing;
      }
    }
  }

 private:
  // A statement's per-worker generator state, touched only by the kinds
  // that keep some.
  struct Slot {
    std::vector<uint64_t> counters;    // sequence generators
    std::vector<std::string> buffers;  // uuid / now text
  };

  const v1::CustomStatement& SpecOf(int statement) const {
    const int op = w_.statement_op_[size_t(statement)];
    return w_.spec_.ops(op).statements(statement - w_.op_info_[size_t(op)].first);
  }

  void Fill(int statement, drivers::OpRequest* req) {
    const v1::CustomStatement& spec = SpecOf(statement);
    Slot& slot = slots_[size_t(statement)];
    const auto& plans = w_.params_[size_t(statement)];
    req->stmt = statement;
    req->nparams = 0;
    const bool record = statement == w_.op_info_[size_t(op_)].first && w_.op_info_[size_t(op_)].referenced;
    for (int p = 0; p < spec.params_size(); ++p) {
      const v1::ParamGen& g = spec.params(p);
      Param v;
      switch (Kind(plans[size_t(p)].kind)) {
        case kSequence:
          v = Param::Int(g.a() + int64_t(worker_ + slot.counters[size_t(p)]++ * stride_));
          break;
        case kUniform:
          v = Param::Int(g.a() + int64_t(rng_.Uniform(uint64_t(g.b() - g.a()) + 1)));
          break;
        case kZipfian:
          v = Param::Int(int64_t(w_.zipf_[size_t(statement)][size_t(p)]->Next(rng_)));
          break;
        case kString:
          v = Param::Str(w_.text_->Take(rng_, size_t(g.a())));
          break;
        case kUuid: {
          std::string& b = slot.buffers[size_t(p)];
          WriteUuid(rng_, b.data());
          v = Param::Str(std::string_view(b.data(), 36));
          break;
        }
        case kNow: {
          std::string& b = slot.buffers[size_t(p)];
          WriteNow(b.data());
          v = Param::Str(std::string_view(b.data(), 26));
          break;
        }
        case kChoice:
          v = Param::Str(g.choices(int(rng_.Uniform(uint64_t(g.choices_size())))));
          break;
        case kValue:
          v = Param::Str(g.choices(0));
          break;
        case kFrom:
          v = From(plans[size_t(p)].from_op, g.from_param());
          break;
      }
      req->Set(p, v);
      if (record) {
        Value& out = pending_[size_t(op_)][size_t(p)];
        out.is_int = v.is_int;
        out.i = v.i;
        if (!v.is_int) out.s.assign(v.s.data(), v.s.size());
      }
    }
  }

  Param From(int op, uint32_t param) {
    Ring& r = rings_[size_t(op)][param];
    if (r.values.empty()) return Param::Int(0);
    if (r.picked_epoch != epoch_) {
      r.picked_epoch = epoch_;
      r.picked = rng_.Uniform(r.values.size());
    }
    const Value& v = r.values[r.picked];
    return v.is_int ? Param::Int(v.i) : Param::Str(v.s);
  }

  const CustomWorkload& w_;
  uint64_t worker_;
  uint64_t stride_;
  Rng rng_;
  std::vector<Slot> slots_;
  std::vector<std::vector<Ring>> rings_;     // [op][param of its first statement]
  std::vector<std::vector<Value>> pending_;  // this op's values, kept until Observe
  int op_ = 0;
  int stage_ = 0;
  uint64_t epoch_ = 0;  // op executions so far
};

const std::vector<ParamSpec>& CustomWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {};
  return kSpecs;
}

std::string CustomWorkload::PipelineBlocker() const {
  for (const Op& op : op_info_) {
    if (op.count > 1) return "op " + op.name + " runs " + std::to_string(op.count) + " statements";
    if (op.referenced) return "a from parameter reads op " + op.name + "'s values";
  }
  return "";
}

int CustomWorkload::FindOp(const std::string& name) const {
  for (size_t i = 0; i < op_info_.size(); ++i) {
    if (op_info_[i].name == name) return int(i);
  }
  return -1;
}

StatusOr<std::unique_ptr<Workload>> CustomWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  (void)params;
  if (!ctx.custom || ctx.custom->ops_size() == 0) {
    return Status::Error("custom: the phase needs a custom: block with ops");
  }
  std::unique_ptr<CustomWorkload> w(new CustomWorkload());
  w->ctx_ = ctx;
  w->spec_ = *ctx.custom;
  for (int o = 0; o < w->spec_.ops_size(); ++o) {
    const v1::CustomOp& op = w->spec_.ops(o);
    if (op.txn() && ctx.dialect == drivers::Dialect::kRedis) {
      return Status::Error("custom: op " + op.name() + ": txn needs a SQL target");
    }
    Op info;
    info.name = op.name();
    info.weight = op.weight() ? op.weight() : 1;
    info.txn = op.txn();
    info.first = int(w->statements_.size());
    info.count = op.statements_size();
    w->op_info_.push_back(info);
    w->ops_.push_back(op.name());
    for (const v1::CustomStatement& st : op.statements()) {
      w->statements_.push_back({st.text(), st.write(), false});
      w->statement_op_.push_back(o);
      std::vector<std::shared_ptr<const ZipfianGenerator>> zipf;
      for (const v1::ParamGen& g : st.params()) {
        zipf.push_back(g.kind() == "zipfian"
                           ? std::make_shared<ZipfianGenerator>(uint64_t(g.a()), ZipfianGenerator::kYcsbTheta, true)
                           : nullptr);
      }
      w->zipf_.push_back(std::move(zipf));
    }
  }
  for (const v1::CustomOp& op : w->spec_.ops()) {
    for (const v1::CustomStatement& st : op.statements()) {
      for (const v1::ParamGen& g : st.params()) {
        if (g.kind() != "from") continue;
        const int target = w->FindOp(g.from_op());
        if (target < 0) return Status::Error("custom: from: no op named '" + g.from_op() + "'");
        const auto& first = w->spec_.ops(target).statements(0);
        if (int(g.from_param()) >= first.params_size()) {
          return Status::Error("custom: from: op " + g.from_op() + " has " + std::to_string(first.params_size()) +
                               " parameter(s) in its first statement");
        }
        w->op_info_[size_t(target)].referenced = true;
      }
    }
  }
  uint64_t acc = 0;
  for (const Op& op : w->op_info_) w->cumulative_.push_back(acc += op.weight);
  for (const v1::CustomOp& op : w->spec_.ops()) {
    for (const v1::CustomStatement& st : op.statements()) {
      auto& plans = w->params_.emplace_back();
      for (const v1::ParamGen& g : st.params()) {
        plans.push_back({uint8_t(KindOf(g.kind())), g.kind() == "from" ? w->FindOp(g.from_op()) : -1});
      }
    }
  }
  w->text_ = std::make_unique<RandomText>(MixSeed(ctx.seed, ctx.phase_index), MaxStringLength(w->spec_));
  return std::unique_ptr<Workload>(std::move(w));
}

std::unique_ptr<WorkerOps> CustomWorkload::MakeWorker(uint32_t global_worker) const {
  const uint64_t seed = MixSeed(MixSeed(ctx_.seed, ctx_.phase_index), global_worker);
  return std::make_unique<CustomWorker>(*this, global_worker, ctx_.total_workers, seed);
}

bool CustomStatementIsRead(const std::string& text) { return IsRead(text); }

}  // namespace stampede::workloads

#include "record/record_codec.h"

#include <cmath>

namespace stampede::record {
namespace {

uint64_t AsU64(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) return v.get<int64_t>() < 0 ? 0 : uint64_t(v.get<int64_t>());
  if (v.is_number_float()) {
    const double d = v.get<double>();
    return std::isfinite(d) && d >= 0 && d < 1.8e19 ? uint64_t(d) : 0;
  }
  return 0;
}

const Json* Field(const Json& line, const char* key) {
  if (!line.is_object()) return nullptr;
  auto it = line.find(key);
  return it == line.end() ? nullptr : &*it;
}

Json EncodeOp(const OpSecond& op) {
  Json j = {{"outcomes", op.outcomes}, {"retries", op.retries}, {"latency", HistogramToJson(op.latency)}};
  if (op.missed) j["missed"] = op.missed;
  return j;
}

void DecodeOp(const Json& j, OpSecond* op) {
  if (const Json* o = Field(j, "outcomes"); o && o->is_array()) {
    for (size_t i = 0; i < o->size() && i < size_t(kNumOutcomes); ++i) op->outcomes[i] = AsU64((*o)[i]);
  }
  op->retries = GetU64(j, "retries");
  op->missed = GetU64(j, "missed");
  if (const Json* l = Field(j, "latency")) MergeHistogramJson(*l, &op->latency);
}

template <typename T, typename Fn>
void DecodeMap(const Json& line, const char* key, std::map<std::string, T>* out, Fn&& read) {
  const Json* m = Field(line, key);
  if (!m || !m->is_object()) return;
  for (auto it = m->begin(); it != m->end(); ++it) read(it.value(), &(*out)[it.key()]);
}

}  // namespace

uint64_t GetU64(const Json& line, const char* key, uint64_t fallback) {
  const Json* v = Field(line, key);
  return v && v->is_number() ? AsU64(*v) : fallback;
}

double GetDouble(const Json& line, const char* key, double fallback) {
  const Json* v = Field(line, key);
  return v && v->is_number() ? v->get<double>() : fallback;
}

std::string GetString(const Json& line, const char* key, const std::string& fallback) {
  const Json* v = Field(line, key);
  return v && v->is_string() ? v->get<std::string>() : fallback;
}

bool GetBool(const Json& line, const char* key, bool fallback) {
  const Json* v = Field(line, key);
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

Json HistogramToJson(const Histogram& h) {
  Json buckets = Json::array();
  h.ForEachBucket([&](int i, uint64_t c) { buckets.push_back({i, c}); });
  return Json{{"sum_ns", h.sum_ns()}, {"max_ns", h.max_ns()}, {"b", std::move(buckets)}};
}

void MergeHistogramJson(const Json& j, Histogram* h) {
  if (!j.is_object()) return;
  if (const Json* b = Field(j, "b"); b && b->is_array()) {
    for (const Json& pair : *b) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer()) continue;
      const int64_t index = pair[0].get<int64_t>();
      if (index < 0 || index >= HistogramLayout::kNumBuckets) continue;
      h->AddBucket(int(index), AsU64(pair[1]));
    }
  }
  h->AddSummary(GetU64(j, "sum_ns"), GetU64(j, "max_ns"));
}

Json EncodeSecond(const Second& s) {
  Json ops = Json::object();
  for (const auto& [name, op] : s.ops) ops[name] = EncodeOp(op);
  Json line = {
      {"type", "second"},
      {"phase", s.phase},
      {"index", s.index},
      {"seq", s.seq},
      {"t", s.t},
      {"phase_t", s.phase_t},
      {"interval_s", s.interval_s},
      {"agents", s.agents},
      {"active_workers", s.active_workers},
      {"ops", std::move(ops)},
      {"agent_ops", s.agent_ops},
      {"from", s.from},
      {"agent_cpu_s", s.agent_cpu_s},
  };
  if (s.late) line["late"] = true;
  if (!s.endpoints.empty()) {
    Json eps = Json::object();
    for (const auto& [name, e] : s.endpoints) {
      eps[name] = {{"lost", e.lost}, {"reconnects", e.reconnects}, {"connect_failures", e.connect_failures}};
    }
    line["endpoints"] = std::move(eps);
  }
  return line;
}

bool IsSecond(const Json& line) { return GetString(line, "type") == "second"; }

Second DecodeSecond(const Json& line) {
  Second s;
  s.phase = GetString(line, "phase");
  s.index = uint32_t(std::min<uint64_t>(GetU64(line, "index"), UINT32_MAX));
  s.seq = uint32_t(std::min<uint64_t>(GetU64(line, "seq"), UINT32_MAX));
  s.t = GetDouble(line, "t");
  s.phase_t = GetDouble(line, "phase_t");
  s.interval_s = GetDouble(line, "interval_s", 1.0);
  s.agents = uint32_t(std::min<uint64_t>(GetU64(line, "agents"), UINT32_MAX));
  s.active_workers = uint32_t(std::min<uint64_t>(GetU64(line, "active_workers"), UINT32_MAX));
  s.late = GetBool(line, "late");
  DecodeMap(line, "ops", &s.ops, [](const Json& j, OpSecond* op) { DecodeOp(j, op); });
  DecodeMap(line, "agent_ops", &s.agent_ops, [](const Json& j, uint64_t* v) { *v = AsU64(j); });
  DecodeMap(line, "agent_cpu_s", &s.agent_cpu_s, [](const Json& j, double* v) {
    if (j.is_number()) *v = j.get<double>();
  });
  DecodeMap(line, "endpoints", &s.endpoints, [](const Json& j, EndpointSecond* e) {
    e->lost = GetU64(j, "lost");
    e->reconnects = GetU64(j, "reconnects");
    e->connect_failures = GetU64(j, "connect_failures");
  });
  if (const Json* f = Field(line, "from"); f && f->is_array()) {
    for (const Json& a : *f) {
      if (a.is_string()) s.from.push_back(a.get<std::string>());
    }
  }
  return s;
}

}  // namespace stampede::record

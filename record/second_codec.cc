// The journal's "second" line (record/record_codec.h): a second of a
// phase, its ops, agents, endpoints and anomalies.
#include <algorithm>

#include "record/json_fields.h"
#include "record/record_codec.h"

namespace stampede::record {
namespace {

Json EncodeOp(const OpSecond& op) {
  Json j = {{"outcomes", op.outcomes}, {"retries", op.retries}, {"latency", HistogramToJson(op.latency)}};
  if (op.missed) j["missed"] = op.missed;
  if (op.rollbacks) j["rollbacks"] = op.rollbacks;
  if (op.disk_full) j["disk_full"] = op.disk_full;
  if (op.rows) j["rows"] = op.rows;
  return j;
}

void DecodeOp(const Json& j, OpSecond* op) {
  if (const Json* o = Field(j, "outcomes"); o && o->is_array()) {
    for (size_t i = 0; i < o->size() && i < size_t(kNumOutcomes); ++i) op->outcomes[i] = AsU64((*o)[i]);
  }
  op->retries = GetU64(j, "retries");
  op->missed = GetU64(j, "missed");
  op->rollbacks = GetU64(j, "rollbacks");
  op->disk_full = GetU64(j, "disk_full");
  op->rows = GetU64(j, "rows");
  if (const Json* l = Field(j, "latency")) MergeHistogramJson(*l, &op->latency);
}

}  // namespace

Json EncodeAnomaly(const AnomalyExample& e) {
  Json j = {{"kind", e.kind}, {"t", e.t},     {"agent", e.agent},       {"endpoint", e.endpoint},
            {"op", e.op},     {"key", e.key}, {"expected", e.expected}, {"got", e.got}};
  if (e.lag_s > 0) j["lag_s"] = e.lag_s;
  if (e.final) j["final"] = true;
  if (!e.detail.empty()) j["detail"] = e.detail;
  return j;
}

AnomalyExample DecodeAnomaly(const Json& j) {
  AnomalyExample e;
  e.kind = GetString(j, "kind");
  e.t = GetDouble(j, "t");
  e.agent = GetString(j, "agent");
  e.endpoint = GetString(j, "endpoint");
  e.op = GetString(j, "op");
  e.key = GetI64(j, "key", -1);
  e.expected = GetI64(j, "expected", 0);
  e.got = GetI64(j, "got", 0);
  e.lag_s = GetDouble(j, "lag_s", 0);
  e.final = GetBool(j, "final");
  e.detail = GetString(j, "detail");
  return e;
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
  if (!s.from_spool.empty()) line["from_spool"] = s.from_spool;
  // Sub-second times: only when there were any.
  const std::pair<const char*, double> times[] = {{"first_ok_t", s.first_ok_t},
                                                  {"last_ok_t", s.last_ok_t},
                                                  {"first_err_t", s.first_err_t},
                                                  {"last_err_t", s.last_err_t}};
  for (const auto& [key, v] : times) {
    if (v >= 0) line[key] = v;
  }
  if (s.clock_uncertainty_s > 0) line["clock_uncertainty_s"] = s.clock_uncertainty_s;
  if (s.other_cpu_s > 0) line["other_cpu_s"] = s.other_cpu_s;
  if (s.progress >= 0) {
    line["progress"] = s.progress;
    if (s.progress_total) line["progress_of"] = {s.progress_done, s.progress_total, s.progress_unit};
    if (s.left_s >= 0) line["left_s"] = s.left_s;
  }
  if (s.scheduled >= 0) line["scheduled"] = s.scheduled;
  if (!s.agent_load.empty()) {
    Json load = Json::object();
    for (const auto& [agent, l] : s.agent_load) {
      Json a = Json::object();
      if (l.cpu >= 0) a["cpu"] = l.cpu;
      if (l.lag_p99_ms >= 0) a["lag_p99_ms"] = l.lag_p99_ms;
      load[agent] = std::move(a);
    }
    line["agent_load"] = std::move(load);
  }
  if (!s.endpoints.empty()) {
    Json eps = Json::object();
    for (const auto& [name, e] : s.endpoints) {
      Json ep = {{"lost", e.lost}, {"reconnects", e.reconnects}, {"connect_failures", e.connect_failures}};
      if (e.ok) ep["ok"] = e.ok;
      if (e.first_ok_t >= 0) ep["first_ok_t"] = e.first_ok_t;
      if (e.last_ok_t >= 0) ep["last_ok_t"] = e.last_ok_t;
      eps[name] = std::move(ep);
    }
    line["endpoints"] = std::move(eps);
  }
  if (!s.anomalies.empty()) line["anomalies"] = s.anomalies;
  if (!s.anomaly_examples.empty()) {
    Json examples = Json::array();
    for (const AnomalyExample& e : s.anomaly_examples) examples.push_back(EncodeAnomaly(e));
    line["anomaly_examples"] = std::move(examples);
  }
  return line;
}

bool IsSecond(const Json& line) { return GetString(line, "type") == "second"; }

Second DecodeSecond(const Json& line) {
  Second s;
  s.phase = GetString(line, "phase");
  s.index = GetU32(line, "index");
  s.seq = GetU32(line, "seq");
  s.t = GetDouble(line, "t");
  s.phase_t = GetDouble(line, "phase_t");
  s.interval_s = GetDouble(line, "interval_s", 1.0);
  s.agents = GetU32(line, "agents");
  s.active_workers = GetU32(line, "active_workers");
  s.late = GetBool(line, "late");
  s.from_spool = GetString(line, "from_spool");
  s.first_ok_t = GetDouble(line, "first_ok_t", -1);
  s.last_ok_t = GetDouble(line, "last_ok_t", -1);
  s.first_err_t = GetDouble(line, "first_err_t", -1);
  s.last_err_t = GetDouble(line, "last_err_t", -1);
  s.clock_uncertainty_s = std::max(0.0, GetDouble(line, "clock_uncertainty_s", 0));
  s.other_cpu_s = std::max(0.0, GetDouble(line, "other_cpu_s", 0));
  s.progress = std::min(1.0, GetDouble(line, "progress", -1));
  s.left_s = GetDouble(line, "left_s", -1);
  if (const auto it = line.find("progress_of");
      it != line.end() && it->is_array() && it->size() == 3 && (*it)[2].is_string()) {
    s.progress_done = AsU64((*it)[0]);
    s.progress_total = AsU64((*it)[1]);
    s.progress_unit = (*it)[2].get<std::string>().substr(0, 8);
  }
  s.scheduled = GetDouble(line, "scheduled", -1);
  if (!(s.scheduled >= 0)) s.scheduled = -1;
  DecodeMap(line, "ops", &s.ops, [](const Json& j, OpSecond* op) { DecodeOp(j, op); });
  DecodeMap(line, "agent_ops", &s.agent_ops, [](const Json& j, uint64_t* v) { *v = AsU64(j); });
  DecodeMap(line, "agent_cpu_s", &s.agent_cpu_s, [](const Json& j, double* v) {
    if (j.is_number()) *v = j.get<double>();
  });
  DecodeMap(line, "agent_load", &s.agent_load, [](const Json& j, AgentLoad* l) {
    l->cpu = GetDouble(j, "cpu", -1);
    l->lag_p99_ms = GetDouble(j, "lag_p99_ms", -1);
  });
  DecodeMap(line, "endpoints", &s.endpoints, [](const Json& j, EndpointSecond* e) {
    e->lost = GetU64(j, "lost");
    e->reconnects = GetU64(j, "reconnects");
    e->connect_failures = GetU64(j, "connect_failures");
    e->ok = GetU64(j, "ok");
    e->first_ok_t = GetDouble(j, "first_ok_t", -1);
    e->last_ok_t = GetDouble(j, "last_ok_t", -1);
    if (!(e->first_ok_t >= 0)) e->first_ok_t = -1;
    if (!(e->last_ok_t >= 0)) e->last_ok_t = -1;
  });
  s.from = Strings(line, "from");
  DecodeMap(line, "anomalies", &s.anomalies, [](const Json& j, uint64_t* v) { *v = AsU64(j); });
  if (const Json* list = Field(line, "anomaly_examples"); list && list->is_array()) {
    for (const Json& j : *list) {
      if (s.anomaly_examples.size() >= kMaxAnomalyExamples) break;
      s.anomaly_examples.push_back(DecodeAnomaly(j));
    }
  }
  return s;
}

}  // namespace stampede::record

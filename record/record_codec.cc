#include "record/record_codec.h"

#include <algorithm>
#include <cmath>

#include "common/anomaly.h"
#include "record/json_fields.h"

namespace stampede::record {

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

namespace {

Json EncodeExpect(const std::vector<Expectation>& expect) {
  Json out = Json::array();
  for (const Expectation& e : expect) out.push_back({{"scope", e.scope}, {"subject", e.subject}, {"text", e.text}});
  return out;
}

// Parsed again from the text (one grammar); a condition that does not
// parse is dropped.
std::vector<Expectation> DecodeExpect(const Json& line) {
  std::vector<Expectation> out;
  const Json* list = Field(line, "expect");
  if (!list || !list->is_array()) return out;
  for (const Json& j : *list) {
    if (out.size() >= kMaxExpectations) break;
    auto e = ParseExpectation(GetString(j, "scope"), GetString(j, "subject"), GetString(j, "text"));
    if (e.ok()) out.push_back(std::move(*e));
  }
  return out;
}

Json EncodeBaseline(const RunStart& r) {
  Json baseline = Json::object();
  for (const auto& [key, b] : r.baseline) baseline[key] = {{"median", b.median}, {"runs", b.runs}};
  return {{"file", r.history}, {"window", r.history_window}, {"baseline", baseline}};
}

void DecodeBaseline(const Json& line, RunStart* r) {
  const Json* h = Field(line, "history");
  if (!h || !h->is_object()) return;
  r->history = GetString(*h, "file");
  r->history_window = uint32_t(std::min<uint64_t>(GetU64(*h, "window", 0), 1'000'000));
  DecodeMap(*h, "baseline", &r->baseline, [](const Json& j, Baseline* b) {
    if (!j.is_object()) return;
    b->median = GetDouble(j, "median", 0);
    b->runs = uint32_t(std::min<uint64_t>(GetU64(j, "runs", 0), 1'000'000));
  });
}

Json EncodeRun(const RunStart& r) {
  Json plan = Json::parse(r.plan_json, nullptr, /*allow_exceptions=*/false);
  Json j = {{"type", "run"},
            {"version", r.version},
            {"run_id", r.run_id},
            {"plan_name", r.plan_name},
            {"results_dir", r.results_dir},
            {"started_at", r.started_at},
            {"target", r.target},
            {"recovery",
             {{"baseline_s", r.recovery.baseline_s},
              {"recovered_fraction", r.recovery.recovered_fraction},
              {"hold_s", r.recovery.hold_s},
              {"healthy_polls", r.recovery.healthy_polls},
              {"balance_tolerance", r.recovery.balance_tolerance}}},
            {"agents", r.agents},
            {"roles", r.roles},
            {"report", {{"ns_per_op", r.ns_per_op}, {"hdr_log", r.hdr_log}}},
            {"resumable", r.resumable},
            {"mono_start_ns", r.mono_start_ns},
            {"expect", EncodeExpect(r.expect)},
            {"plan", plan.is_object() ? plan : Json::object()}};
  if (!r.history.empty() || r.history_window) j["history"] = EncodeBaseline(r);
  return j;
}

RunStart DecodeRun(const Json& line) {
  RunStart r;
  r.version = int(std::min<uint64_t>(GetU64(line, "version", 1), 1'000'000));
  r.run_id = GetString(line, "run_id");
  r.plan_name = GetString(line, "plan_name");
  r.results_dir = GetString(line, "results_dir");
  r.started_at = GetString(line, "started_at");
  r.target = GetString(line, "target");
  if (const Json* rec = Field(line, "recovery"); rec && rec->is_object()) {
    r.recovery.baseline_s = GetDouble(*rec, "baseline_s", r.recovery.baseline_s);
    r.recovery.recovered_fraction = GetDouble(*rec, "recovered_fraction", r.recovery.recovered_fraction);
    r.recovery.hold_s = GetDouble(*rec, "hold_s", r.recovery.hold_s);
    r.recovery.balance_tolerance =
        std::clamp(GetDouble(*rec, "balance_tolerance", r.recovery.balance_tolerance), 0.0, 1.0);
    r.recovery.healthy_polls = int(std::min<uint64_t>(GetU64(*rec, "healthy_polls", 3), 1'000'000));
  }
  r.agents = Strings(line, "agents");
  DecodeMap(line, "roles", &r.roles, [](const Json& j, std::string* v) {
    if (j.is_string()) *v = j.get<std::string>();
  });
  if (const Json* rep = Field(line, "report")) {
    r.ns_per_op = GetBool(*rep, "ns_per_op");
    r.hdr_log = GetBool(*rep, "hdr_log");
  }
  r.resumable = GetBool(line, "resumable");
  r.mono_start_ns = GetI64(line, "mono_start_ns", 0);
  if (const Json* plan = Field(line, "plan"); plan && plan->is_object()) r.plan_json = plan->dump();
  r.expect = DecodeExpect(line);
  DecodeBaseline(line, &r);
  return r;
}

Json EncodePhaseStart(const PhaseStart& p) {
  Json j = {{"type", "phase_start"}, {"phase", p.phase}, {"index", p.index},       {"workload", p.workload},
            {"workers", p.workers},  {"t", p.t},         {"start_ns", p.start_ns}, {"agents", p.agents}};
  if (!p.group.empty()) {
    j["group"] = p.group;
    j["step"] = p.step;
  }
  if (p.owed >= 0) j["owed"] = p.owed;
  if (p.pipeline > 1) j["pipeline"] = p.pipeline;
  if (p.batch > 1) j["batch"] = p.batch;
  if (!p.params.empty()) j["params"] = p.params;
  return j;
}

PhaseStart DecodePhaseStart(const Json& line) {
  PhaseStart p;
  p.phase = GetString(line, "phase");
  p.index = GetU32(line, "index");
  p.workload = GetString(line, "workload");
  p.workers = GetU32(line, "workers");
  p.t = GetDouble(line, "t");
  p.start_ns = GetI64(line, "start_ns", 0);
  p.agents = Strings(line, "agents");
  p.owed = std::max<int64_t>(-1, GetI64(line, "owed", -1));
  p.group = GetString(line, "group");
  p.step = GetString(line, "step");
  p.pipeline = std::max<uint32_t>(1, GetU32(line, "pipeline"));
  p.batch = std::max<uint32_t>(1, GetU32(line, "batch"));
  DecodeMap(line, "params", &p.params, [](const Json& j, std::string* v) {
    if (j.is_string()) *v = j.get<std::string>();
  });
  return p;
}

Json EncodePhaseEnd(const PhaseEnd& p) {
  Json j = {{"type", "phase_end"},
            {"phase", p.phase},
            {"index", p.index},
            {"duration_s", p.duration_s},
            {"completed", p.completed}};
  if (p.owed >= 0) {
    j["owed"] = p.owed;
    j["unaccounted"] = p.unaccounted;
  }
  if (p.timed_out) j["timed_out"] = true;
  return j;
}

PhaseEnd DecodePhaseEnd(const Json& line) {
  PhaseEnd p;
  p.phase = GetString(line, "phase");
  p.index = GetU32(line, "index");
  p.duration_s = GetDouble(line, "duration_s");
  p.completed = GetBool(line, "completed");
  p.owed = std::max<int64_t>(-1, GetI64(line, "owed", -1));
  p.unaccounted = GetU64(line, "unaccounted");
  p.timed_out = GetBool(line, "timed_out");
  return p;
}

Json EncodeHistoryChecked(const HistoryChecked& h) {
  Json seconds = Json::array(), examples = Json::array();
  for (const auto& [t, n] : h.seconds) seconds.push_back({t, n});
  for (const AnomalyExample& e : h.examples) examples.push_back(EncodeAnomaly(e));
  Json j = {
      {"type", "history_check"},    {"phase", h.phase},      {"index", h.index},   {"transactions", h.transactions},
      {"final_keys", h.final_keys}, {"anomalies", h.counts}, {"seconds", seconds}, {"examples", examples}};
  if (!h.note.empty()) j["note"] = h.note;
  if (h.missing) j["missing"] = h.missing;
  if (!h.unknown.empty()) j["unknown"] = h.unknown;
  if (!h.isolation.empty()) j["isolation"] = h.isolation;
  if (!h.allowed.empty()) j["allowed"] = h.allowed;
  return j;
}

HistoryChecked DecodeHistoryChecked(const Json& line) {
  HistoryChecked h;
  h.phase = GetString(line, "phase");
  h.index = GetU32(line, "index");
  h.transactions = GetU64(line, "transactions");
  h.final_keys = GetU64(line, "final_keys");
  if (const Json* a = Field(line, "anomalies"); a && a->is_object()) {
    for (const auto& [kind, n] : a->items()) {
      if (IsAnomalyKind(kind)) h.counts[kind] = AsU64(n);
    }
  }
  if (const Json* a = Field(line, "allowed"); a && a->is_object()) {
    for (const auto& [kind, n] : a->items()) {
      if (IsAnomalyKind(kind)) h.allowed[kind] = AsU64(n);
    }
  }
  h.isolation = GetString(line, "isolation");
  if (const Json* s = Field(line, "seconds"); s && s->is_array()) {
    for (const Json& p : *s) {
      if (h.seconds.size() >= kMaxAnomalyExamples * 100) break;
      if (p.is_array() && p.size() == 2 && p[0].is_number()) h.seconds.push_back({p[0].get<double>(), AsU64(p[1])});
    }
  }
  if (const Json* list = Field(line, "examples"); list && list->is_array()) {
    for (const Json& e : *list) {
      if (h.examples.size() >= kMaxAnomalyExamples) break;
      if (e.is_object()) h.examples.push_back(DecodeAnomaly(e));
    }
  }
  h.note = GetString(line, "note");
  h.missing = GetU64(line, "missing");
  h.unknown = GetString(line, "unknown");
  return h;
}

Json EncodeWrites(const WritesChecked& w) {
  Json j = {{"type", "writes"},         {"phase", w.phase},
            {"index", w.index},         {"supported", w.supported},
            {"acked", w.acked},         {"lost", w.lost},
            {"ambiguous", w.ambiguous}, {"ambiguous_found", w.ambiguous_found},
            {"unchecked", w.unchecked}, {"lost_ids", w.lost_ids}};
  if (w.failed > 0) {
    j["failed"] = w.failed;
    j["failed_found"] = w.failed_found;
    j["failed_found_ids"] = w.failed_found_ids;
  }
  if (!w.note.empty()) j["note"] = w.note;
  if (!w.agents_missing.empty()) j["agents_missing"] = w.agents_missing;
  return j;
}

WritesChecked DecodeWrites(const Json& line) {
  WritesChecked w;
  w.phase = GetString(line, "phase");
  w.index = GetU32(line, "index");
  w.supported = Field(line, "supported") ? GetBool(line, "supported") : true;
  w.acked = GetU64(line, "acked");
  w.lost = GetU64(line, "lost");
  w.ambiguous = GetU64(line, "ambiguous");
  w.ambiguous_found = GetU64(line, "ambiguous_found");
  w.unchecked = GetU64(line, "unchecked");
  w.failed = GetU64(line, "failed");
  w.failed_found = GetU64(line, "failed_found");
  w.lost_ids = Ids(line, "lost_ids");
  w.failed_found_ids = Ids(line, "failed_found_ids");
  w.note = GetString(line, "note");
  w.agents_missing = Strings(line, "agents_missing");
  return w;
}

void DecodeRoll(const Json& line, FaultSent* f) {
  const Json* r = Field(line, "roll");
  if (!r || !r->is_object()) return;
  f->roll = int(std::min<uint64_t>(GetU64(*r, "id"), 1'000'000));
  f->roll_step = GetU32(*r, "step");
  f->roll_steps = GetU32(*r, "steps");
  f->roll_floor = std::clamp(GetDouble(*r, "floor", 0), 0.0, 1.0);
}

Json EncodeFault(const FaultSent& f) {
  Json j = {{"type", "fault"}, {"index", f.index}, {"action", f.action},
            {"node", f.node},  {"agent", f.agent}, {"requested_t", f.requested_t}};
  if (f.undo) {
    j["undo"] = true;
  } else {
    j["phase"] = f.phase;
  }
  if (!f.detail.empty()) j["detail"] = f.detail;
  if (f.roll >= 0)
    j["roll"] = {{"id", f.roll}, {"step", f.roll_step}, {"steps", f.roll_steps}, {"floor", f.roll_floor}};
  return j;
}

FaultSent DecodeFault(const Json& line) {
  FaultSent f;
  f.index = GetU32(line, "index");
  f.phase = GetString(line, "phase");
  f.action = GetString(line, "action");
  f.node = GetString(line, "node");
  f.agent = GetString(line, "agent");
  f.requested_t = GetDouble(line, "requested_t");
  f.undo = GetBool(line, "undo");
  f.detail = GetString(line, "detail");
  DecodeRoll(line, &f);
  return f;
}

Json EncodeFaultDone(const FaultDone& f) {
  Json j = {{"type", "fault_result"}, {"index", f.index}, {"agent", f.agent}, {"ok", f.ok}, {"t", f.t},
            {"message", f.message}};
  if (!f.from_spool.empty()) j["from_spool"] = f.from_spool;
  return j;
}

FaultDone DecodeFaultDone(const Json& line) {
  FaultDone f;
  f.index = GetU32(line, "index");
  f.agent = GetString(line, "agent");
  f.ok = GetBool(line, "ok");
  f.t = GetDouble(line, "t", -1);
  f.message = GetString(line, "message");
  f.from_spool = GetString(line, "from_spool");
  return f;
}

Json EncodeHealth(const HealthPoll& h) {
  Json j = {{"type", "health"}, {"t", h.t}, {"poll_s", h.poll_s}, {"healthy", h.healthy}};
  if (h.answered) {
    j["underreplicated"] = h.underreplicated;
    j["unavailable"] = h.unavailable;
    j["live_nodes"] = h.live_nodes;
    j["detail"] = h.detail;
  } else {
    j["error"] = h.error;
  }
  if (!h.shares.empty()) {
    j["share_unit"] = h.share_unit;
    Json nodes = Json::array();
    for (const NodeShare& s : h.shares) {
      Json n = {{"node", s.node}};
      if (s.share >= 0) n["share"] = s.share;
      if (s.leaders >= 0) n["leaders"] = s.leaders;
      if (s.keys >= 0) n["keys"] = s.keys;
      if (s.bytes >= 0) n["bytes"] = s.bytes;
      if (!s.state.empty()) n["state"] = s.state;
      if (s.migrating) n["migrating"] = true;
      if (s.lag_bytes >= 0) n["lag_bytes"] = s.lag_bytes;
      nodes.push_back(std::move(n));
    }
    j["shares"] = std::move(nodes);
  }
  return j;
}

HealthPoll DecodeHealth(const Json& line) {
  HealthPoll h;
  h.t = GetDouble(line, "t");
  h.poll_s = GetDouble(line, "poll_s");
  h.healthy = GetBool(line, "healthy");
  h.answered = Field(line, "detail") || Field(line, "underreplicated");
  h.underreplicated = GetU64(line, "underreplicated");
  h.unavailable = GetU64(line, "unavailable");
  h.live_nodes = GetU64(line, "live_nodes");
  h.detail = GetString(line, "detail");
  h.error = GetString(line, "error");
  h.share_unit = GetString(line, "share_unit");
  if (const Json* nodes = Field(line, "shares"); nodes && nodes->is_array()) {
    for (const Json& n : *nodes) {
      if (!n.is_object() || h.shares.size() >= kMaxShareNodes) break;
      NodeShare s;
      s.node = GetString(n, "node");
      s.share = GetDouble(n, "share", -1);
      s.leaders = GetDouble(n, "leaders", -1);
      s.keys = GetI64(n, "keys", -1);
      s.bytes = GetI64(n, "bytes", -1);
      s.state = GetString(n, "state");
      s.migrating = GetBool(n, "migrating");
      s.lag_bytes = GetI64(n, "lag_bytes", -1);
      h.shares.push_back(std::move(s));
    }
  }
  return h;
}

Json EncodeNode(const NodeSample& n) {
  Json j = {{"type", "node"}, {"node", n.node}, {"agent", n.agent}, {"t", n.t}, {"running", n.running}};
  if (n.disk_bytes >= 0) j["disk_bytes"] = n.disk_bytes;
  if (n.rss_bytes >= 0) j["rss_bytes"] = n.rss_bytes;
  if (n.cpu_s >= 0) j["cpu_s"] = n.cpu_s;
  return j;
}

NodeSample DecodeNode(const Json& line) {
  NodeSample n;
  n.node = GetString(line, "node");
  n.agent = GetString(line, "agent");
  n.t = GetDouble(line, "t");
  n.running = GetBool(line, "running");
  n.disk_bytes = GetI64(line, "disk_bytes", -1);
  n.rss_bytes = GetI64(line, "rss_bytes", -1);
  n.cpu_s = GetDouble(line, "cpu_s", -1);
  return n;
}

Json EncodeAgentEvent(const AgentEvent& a) {
  Json j = {{"type", "agent"}, {"event", a.event}, {"agent", a.agent}, {"t", a.t}};
  if (!a.reason.empty()) j["reason"] = a.reason;
  if (!a.how.empty()) j["how"] = a.how;
  if (!a.source.empty()) j["source"] = a.source;
  if (a.last_heard_t) j["last_heard_t"] = *a.last_heard_t;
  return j;
}

AgentEvent DecodeAgentEvent(const Json& line) {
  AgentEvent a;
  a.event = GetString(line, "event");
  a.agent = GetString(line, "agent");
  a.t = GetDouble(line, "t");
  a.reason = GetString(line, "reason");
  a.how = GetString(line, "how");
  a.source = GetString(line, "source");
  if (const Json* h = Field(line, "last_heard_t"); h && h->is_number()) a.last_heard_t = h->get<double>();
  return a;
}

Json EncodeEnd(const RunEnd& e) {
  Json j = {{"type", "end"}, {"ok", e.ok}};
  if (!e.error.empty()) j["error"] = e.error;
  if (e.degraded) j["degraded"] = *e.degraded;
  return j;
}

RunEnd DecodeEnd(const Json& line) {
  RunEnd e;
  e.ok = GetBool(line, "ok");
  e.error = GetString(line, "error");
  if (Field(line, "degraded")) e.degraded = GetString(line, "degraded");
  return e;
}

}  // namespace

Json Encode(const Record& r) {
  return std::visit(Overloaded{
                        [](const RunStart& x) { return EncodeRun(x); },
                        [](const PhaseStart& x) { return EncodePhaseStart(x); },
                        [](const Second& x) { return EncodeSecond(x); },
                        [](const PhaseEnd& x) { return EncodePhaseEnd(x); },
                        [](const WritesChecked& x) { return EncodeWrites(x); },
                        [](const HistoryChecked& x) { return EncodeHistoryChecked(x); },
                        [](const FaultSent& x) { return EncodeFault(x); },
                        [](const FaultDone& x) { return EncodeFaultDone(x); },
                        [](const HealthPoll& x) { return EncodeHealth(x); },
                        [](const NodeSample& x) { return EncodeNode(x); },
                        [](const AgentEvent& x) { return EncodeAgentEvent(x); },
                        [](const CoordinatorEvent& x) {
                          return Json{{"type", "coordinator"}, {"event", x.event}, {"t", x.t}, {"detail", x.detail}};
                        },
                        [](const LogLine& x) {
                          Json j = {{"type", "log"}, {"agent", x.agent}, {"message", x.message}};
                          if (!x.from_spool.empty()) j["from_spool"] = x.from_spool;
                          return j;
                        },
                        [](const RunEnd& x) { return EncodeEnd(x); },
                    },
                    r);
}

std::optional<Record> DecodeText(const std::string& line) {
  return Decode(Json::parse(line, nullptr, /*allow_exceptions=*/false));
}

std::optional<Record> Decode(const Json& line) {
  const std::string type = GetString(line, "type");
  if (type == "second") return DecodeSecond(line);
  if (type == "run") return DecodeRun(line);
  if (type == "phase_start") return DecodePhaseStart(line);
  if (type == "phase_end") return DecodePhaseEnd(line);
  if (type == "writes") return DecodeWrites(line);
  if (type == "history_check") return DecodeHistoryChecked(line);
  if (type == "fault") return DecodeFault(line);
  if (type == "fault_result") return DecodeFaultDone(line);
  if (type == "health") return DecodeHealth(line);
  if (type == "node") return DecodeNode(line);
  if (type == "agent") return DecodeAgentEvent(line);
  if (type == "coordinator") {
    return CoordinatorEvent{GetString(line, "event"), GetDouble(line, "t"), GetString(line, "detail")};
  }
  if (type == "log")
    return LogLine{GetString(line, "agent"), GetString(line, "message"), GetString(line, "from_spool")};
  if (type == "end") return DecodeEnd(line);
  return std::nullopt;
}

}  // namespace stampede::record

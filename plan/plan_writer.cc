#include "plan/plan_writer.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "common/byte_size.h"
#include "common/duration.h"

namespace stampede::plan {
namespace {
void EmitStatements(YAML::Emitter& out, const char* key,
                    const google::protobuf::RepeatedPtrField<std::string>& statements) {
  if (statements.empty()) return;
  out << YAML::Key << key << YAML::Value << YAML::BeginSeq;
  for (const std::string& st : statements) out << YAML::DoubleQuoted << st;
  out << YAML::EndSeq;
}
void EmitParamGen(YAML::Emitter& out, const v1::ParamGen& g) {
  const std::string& k = g.kind();
  if (k == "uuid" || k == "now") {
    out << k;
    return;
  }
  out << YAML::Flow << YAML::BeginMap << YAML::Key << k << YAML::Value;
  if (k == "uniform") {
    out << YAML::Flow << YAML::BeginSeq << g.a() << g.b() << YAML::EndSeq;
  } else if (k == "choice") {
    out << YAML::Flow << YAML::BeginSeq;
    for (const auto& c : g.choices()) out << YAML::DoubleQuoted << c;
    out << YAML::EndSeq;
  } else if (k == "value") {
    out << YAML::DoubleQuoted << (g.choices_size() ? g.choices(0) : "");
  } else if (k == "from") {
    out << g.from_op() + "." + std::to_string(g.from_param() + 1);
  } else {
    out << g.a();
  }
  out << YAML::EndMap;
}

void EmitCustom(YAML::Emitter& out, const v1::CustomWorkload& c) {
  out << YAML::Key << "custom" << YAML::Value << YAML::BeginSeq;
  for (const auto& op : c.ops()) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << op.name();
    out << YAML::Key << "weight" << YAML::Value << op.weight();
    if (op.txn()) out << YAML::Key << "txn" << YAML::Value << true;
    out << YAML::Key << "statements" << YAML::Value << YAML::BeginSeq;
    for (const auto& st : op.statements()) {
      out << YAML::BeginMap << YAML::Key << "sql" << YAML::Value << YAML::DoubleQuoted << st.text();
      out << YAML::Key << "write" << YAML::Value << st.write();
      out << YAML::Key << "params" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const auto& g : st.params()) EmitParamGen(out, g);
      out << YAML::EndSeq << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void EmitTarget(YAML::Emitter& out, const v1::Target& t) {
  out << YAML::Key << "target" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "driver" << YAML::Value << t.driver();
  out << YAML::Key << "flavor" << YAML::Value << t.flavor();
  out << YAML::Key << "endpoints" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& e : t.endpoints()) out << e;
  out << YAML::EndSeq;
  if (!t.user().empty()) out << YAML::Key << "user" << YAML::Value << t.user();
  if (!t.password_env().empty()) out << YAML::Key << "password_env" << YAML::Value << t.password_env();
  if (!t.database().empty()) out << YAML::Key << "database" << YAML::Value << t.database();
  out << YAML::Key << "connect_timeout" << YAML::Value << FormatDurationMs(t.connect_timeout_ms());
  out << YAML::Key << "op_timeout" << YAML::Value << FormatDurationMs(t.op_timeout_ms());
  out << YAML::Key << "balance" << YAML::Value << t.balance();
  if (t.joining_size() > 0) {
    out << YAML::Key << "joining" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& e : t.joining()) out << e;
    out << YAML::EndSeq;
  }
  if (!t.session().empty()) out << YAML::Key << "session" << YAML::Value << t.session();
  if (!t.isolation().empty()) out << YAML::Key << "isolation" << YAML::Value << t.isolation();
  if (t.has_sentinel()) {
    out << YAML::Key << "sentinel" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "master" << YAML::Value << t.sentinel().master();
    out << YAML::Key << "endpoints" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& e : t.sentinel().endpoints()) out << e;
    out << YAML::EndSeq;
    if (!t.sentinel().password_env().empty()) {
      out << YAML::Key << "password_env" << YAML::Value << t.sentinel().password_env();
    }
    out << YAML::EndMap;
  }
  if (!t.health().kind().empty()) {
    out << YAML::Key << "health" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "kind" << YAML::Value << t.health().kind();
    if (t.health().urls_size()) {
      out << YAML::Key << "urls" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const auto& u : t.health().urls()) out << u;
      out << YAML::EndSeq;
    }
    if (t.health().nodes()) out << YAML::Key << "nodes" << YAML::Value << t.health().nodes();
    out << YAML::Key << "consecutive" << YAML::Value << t.health().consecutive();
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

void EmitAgents(YAML::Emitter& out, const v1::AgentsSpec& a) {
  out << YAML::Key << "agents" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "min" << YAML::Value << a.min();
  out << YAML::Key << "wait" << YAML::Value << FormatDurationMs(a.wait_ms());
  out << YAML::Key << "on_loss" << YAML::Value << a.on_loss();
  if (!a.load_labels().empty()) {
    std::map<std::string, std::string> labels(a.load_labels().begin(), a.load_labels().end());
    out << YAML::Key << "load" << YAML::Value << YAML::BeginMap << YAML::Key << "labels" << YAML::Value
        << YAML::BeginMap;
    for (const auto& [k, v] : labels) out << YAML::Key << k << YAML::Value << v;
    out << YAML::EndMap << YAML::EndMap;
  } else if (a.load() == "all") {
    out << YAML::Key << "load" << YAML::Value << "all";
  }
  if (a.split() == "capacity") out << YAML::Key << "split" << YAML::Value << "capacity";
  out << YAML::EndMap;
}

void EmitPhase(YAML::Emitter& out, const v1::Phase& p) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << p.name();
  out << YAML::Key << "workload" << YAML::Value << p.workload();
  out << YAML::Key << "workers" << YAML::Value << p.workers();
  if (p.duration_ms() && p.stages_size() == 0) {
    out << YAML::Key << "duration" << YAML::Value << FormatDurationMs(p.duration_ms());
  }
  if (p.ops()) out << YAML::Key << "ops" << YAML::Value << p.ops();
  if (p.timeout_ms()) {
    out << YAML::Key << "timeout" << YAML::Value << FormatDurationMs(p.timeout_ms());
  }
  if (p.rate() > 0) out << YAML::Key << "rate" << YAML::Value << p.rate();
  if (p.stages_size() > 0) {
    out << YAML::Key << "stages" << YAML::Value << YAML::BeginSeq;
    for (const auto& st : p.stages()) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "duration" << YAML::Value
          << FormatDurationMs(st.duration_ms());
      if (st.rate() > 0 || st.workers() == 0) {
        out << YAML::Key << "rate" << YAML::Value << st.rate();
      } else {
        out << YAML::Key << "workers" << YAML::Value << st.workers();
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (p.think_time_ms()) {
    out << YAML::Key << "think_time" << YAML::Value << FormatDurationMs(p.think_time_ms());
  }
  if (!p.arrival().empty()) out << YAML::Key << "arrival" << YAML::Value << p.arrival();
  if (p.check_writes()) out << YAML::Key << "check_writes" << YAML::Value << true;
  if (!p.isolation().empty()) out << YAML::Key << "isolation" << YAML::Value << p.isolation();
  if (p.pipeline() > 1) out << YAML::Key << "pipeline" << YAML::Value << p.pipeline();
  if (p.batch() > 1) out << YAML::Key << "batch" << YAML::Value << p.batch();
  EmitStatements(out, "setup", p.setup());
  EmitStatements(out, "cleanup", p.cleanup());
  if (p.custom().ops_size() > 0) EmitCustom(out, p.custom());
  if (!p.params().empty()) {
    std::map<std::string, std::string> sorted(p.params().begin(), p.params().end());
    out << YAML::Key << "params" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [k, v] : sorted) out << YAML::Key << k << YAML::Value << v;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

// A network fault's numbers, whatever they are: the loader judges them.
void EmitNetFault(YAML::Emitter& out, const v1::Fault& f) {
  const v1::NetFault& n = f.net();
  if (!n.direction().empty()) out << YAML::Key << "direction" << YAML::Value << n.direction();
  if (!n.method().empty()) out << YAML::Key << "method" << YAML::Value << n.method();
  if (f.action() == "bandwidth") {
    out << YAML::Key << "bandwidth" << YAML::Value << FormatByteSize(n.bandwidth_bytes_per_s()) + "/s";
  }
  if (f.action() == "slow-close") out << YAML::Key << "delay" << YAML::Value << std::to_string(n.delay_ms()) + "ms";
  if (f.action() == "delay") {
    out << YAML::Key << "delay" << YAML::Value << std::to_string(n.delay_ms()) + "ms";
    if (n.jitter_ms()) out << YAML::Key << "jitter" << YAML::Value << std::to_string(n.jitter_ms()) + "ms";
  }
  if (f.action() == "loss") {
    char pct[32];
    std::snprintf(pct, sizeof(pct), "%.17g%%", n.loss_percent());
    out << YAML::Key << "loss" << YAML::Value << pct;
  }
  if (f.action() == "slow-disk") {
    const v1::DiskFault& d = f.disk();
    if (d.bytes_per_s()) out << YAML::Key << "bandwidth" << YAML::Value << FormatByteSize(d.bytes_per_s()) + "/s";
    if (d.iops()) out << YAML::Key << "iops" << YAML::Value << std::to_string(d.iops());
  } else if (f.has_disk()) {
    out << YAML::Key << "free" << YAML::Value << std::to_string(f.disk().free_bytes());
  }
}

// A rolling restart as it was written: its steps' nodes in one list.
void EmitRoll(YAML::Emitter& out, const v1::Plan& plan, int first) {
  const v1::Roll& r = plan.faults(first).roll();
  out << YAML::Key << "action" << YAML::Value << "rolling-restart";
  out << YAML::Key << "nodes" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (int k = first; k < plan.faults_size() && plan.faults(k).has_roll() && plan.faults(k).roll().id() == r.id();
       ++k) {
    out << plan.faults(k).node();
  }
  out << YAML::EndSeq;
  out << YAML::Key << "max_wait" << YAML::Value << FormatDurationMs(r.max_wait_ms());
  if (r.throughput_floor() > 0) out << YAML::Key << "throughput_floor" << YAML::Value << r.throughput_floor();
}

void EmitFaults(YAML::Emitter& out, const v1::Plan& plan) {
  if (plan.faults_size() == 0) return;
  out << YAML::Key << "faults" << YAML::Value << YAML::BeginSeq;
  for (int i = 0; i < plan.faults_size(); ++i) {
    const v1::Fault& f = plan.faults(i);
    if (f.has_roll() && f.roll().step() > 0) continue;  // written with its first step
    out << YAML::Flow << YAML::BeginMap;
    char pct[32];
    std::snprintf(pct, sizeof(pct), "@%g%%", f.at_percent());
    out << YAML::Key << "at" << YAML::Value
        << (f.at_percent() > 0 ? f.phase() + pct : f.phase() + "+" + FormatDurationMs(f.at_ms()));
    if (f.has_roll()) {
      EmitRoll(out, plan, i);
    } else {
      out << YAML::Key << "action" << YAML::Value << f.action();
      out << YAML::Key << "node" << YAML::Value << f.node();
      EmitNetFault(out, f);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

// expect: {phases: {SUBJECT: [TEXT...]}, faults: {...}}, subjects in the
// order first named.
void EmitExpect(YAML::Emitter& out, const v1::Plan& plan) {
  if (plan.expect_size() == 0) return;
  out << YAML::Key << "expect" << YAML::Value << YAML::BeginMap;
  for (const char* scope : {"phase", "fault"}) {
    std::vector<std::string> subjects;
    for (const auto& e : plan.expect()) {
      if (e.scope() == scope && std::find(subjects.begin(), subjects.end(), e.subject()) == subjects.end()) {
        subjects.push_back(e.subject());
      }
    }
    if (subjects.empty()) continue;
    out << YAML::Key << (std::string(scope) + "s") << YAML::Value << YAML::BeginMap;
    for (const std::string& subject : subjects) {
      out << YAML::Key << subject << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const auto& e : plan.expect()) {
        if (e.scope() == scope && e.subject() == subject) out << YAML::DoubleQuoted << e.text();
      }
      out << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

}  // namespace

std::string PlanToYaml(const v1::Plan& plan) {
  YAML::Emitter out;
  out.SetDoublePrecision(12);  // 0.9, not 0.90000000000000002
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << plan.name();
  out << YAML::Key << "seed" << YAML::Value << plan.seed();
  EmitTarget(out, plan.target());
  out << YAML::Key << "retry" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "max_attempts" << YAML::Value << plan.retry().max_attempts();
  out << YAML::Key << "backoff" << YAML::Value << FormatDurationMs(plan.retry().backoff_ms());
  out << YAML::EndMap;
  EmitAgents(out, plan.agents());
  const auto& rec = plan.recovery();
  out << YAML::Key << "recovery" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "baseline" << YAML::Value << FormatDurationMs(rec.baseline_ms());
  out << YAML::Key << "recovered_fraction" << YAML::Value << rec.recovered_fraction();
  out << YAML::Key << "hold" << YAML::Value << FormatDurationMs(rec.hold_ms());
  if (rec.balance_tolerance() > 0) out << YAML::Key << "balance_tolerance" << YAML::Value << rec.balance_tolerance();
  out << YAML::EndMap;
  if (plan.timeout_ms()) {
    out << YAML::Key << "timeout" << YAML::Value << FormatDurationMs(plan.timeout_ms());
  }
  EmitStatements(out, "setup", plan.setup());
  EmitStatements(out, "cleanup", plan.cleanup());
  if (plan.report().ns_per_op() || plan.report().hdr_log()) {
    out << YAML::Key << "report" << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (plan.report().ns_per_op()) out << YAML::Key << "ns_per_op" << YAML::Value << true;
    if (plan.report().hdr_log()) out << YAML::Key << "hdr_log" << YAML::Value << true;
    out << YAML::EndMap;
  }
  if (plan.history().window()) {
    out << YAML::Key << "history" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "window" << YAML::Value
        << plan.history().window() << YAML::EndMap;
  }
  out << YAML::Key << "phases" << YAML::Value << YAML::BeginSeq;
  for (const auto& p : plan.phases()) EmitPhase(out, p);
  out << YAML::EndSeq;
  EmitFaults(out, plan);
  EmitExpect(out, plan);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace stampede::plan

#include "plan/fault_loader.h"

#include <algorithm>
#include <map>

#include "common/duration.h"
#include "common/strings.h"
#include "health/health_probe.h"
#include "plan/plan_limits.h"
#include "proto/fault_action.h"
#include "workloads/workload_registry.h"

namespace stampede::plan {
namespace {

// A phase's operations: its ops, or the sum of a stepped workload's steps
// (0 if some step runs for the phase's duration instead).
uint64_t TotalOps(const v1::Phase& phase) {
  const workloads::WorkloadInfo* info = workloads::FindWorkload(phase.workload());
  if (!info || !info->steps) return phase.ops();
  std::map<std::string, std::string> values(phase.params().begin(), phase.params().end());
  uint64_t total = 0;
  for (const auto& st : info->steps(workloads::Params(info->param_specs(), values), phase.workers())) {
    if (st.ops == 0) return phase.ops() ? phase.ops() : 0;
    total += st.ops;
  }
  return total ? total : phase.ops();
}

}  // namespace

std::string NetFaultDetail(const v1::Fault& f) {
  const v1::NetFault& n = f.net();
  std::string d;
  if (f.action() == "loss") {
    char pct[32];
    std::snprintf(pct, sizeof(pct), "%g%%", n.loss_percent());
    d = pct;
  } else if (f.action() == "delay") {
    d = std::to_string(n.delay_ms()) + " ms";
    if (n.jitter_ms()) d += " \u00b1 " + std::to_string(n.jitter_ms()) + " ms";
  }
  if (n.direction() == "in" || n.direction() == "out") d += (d.empty() ? "" : ", ") + n.direction();
  return d;
}

void FaultLoader::LoadFaults(const YAML::Node& root) {
  YAML::Node faults = root["faults"];
  if (!faults) return;
  if (!faults.IsSequence()) {
    Error(faults, "faults", "expected a list like [{at: insert+2s, action: kill, node: db3}], found " + Found(faults));
    return;
  }
  for (size_t i = 0; i < faults.size(); ++i) {
    const YAML::Node f = faults[i];
    const std::string at = "faults[" + std::to_string(i) + "]";
    if (!f.IsMap()) {
      Error(f, at, "expected a mapping with at, action and node, found " + Found(f));
      continue;
    }
    LoadFault(f, at);
  }
}

void FaultLoader::LoadFault(const YAML::Node& f, const std::string& at) {
  CheckKeys(f, at, {"at", "action", "node", "repeat", "every", "direction", "delay", "jitter", "loss"});
  v1::Fault* fault = plan_->add_faults();
  LoadWhen(f, at, fault);
  fault->set_action(RequiredString(f, "action", at + ".action"));
  if (!fault->action().empty() && !IsFaultAction(fault->action())) {
    Error(f["action"], at + ".action",
          "expected one of " + Join(std::vector<std::string>(kFaultActions.begin(), kFaultActions.end()), ", ") +
              ", found '" + fault->action() + "'");
  }
  fault->set_node(RequiredString(f, "node", at + ".node"));
  LoadNet(f, at, fault);
  // Chaos-style cycles: `repeat: N, every: DURATION` adds N-1 copies.
  if (!f["repeat"] && !f["every"]) return;
  if (!f["repeat"] || !f["every"]) {
    Error(f, at, "repeat and every go together (repeat: 3, every: 20s)");
    return;
  }
  uint64_t repeat = UInt(f["repeat"], at + ".repeat", 1, 1000);
  int64_t every = DurationMs(f["every"], at + ".every");
  if (fault->at_percent() > 0) {
    Error(f["repeat"], at + ".repeat", "repeat works with PHASE+DURATION times only");
    return;
  }
  const v1::Fault first = *fault;
  for (uint64_t k = 1; k < repeat; ++k) {
    v1::Fault* copy = plan_->add_faults();
    *copy = first;
    copy->set_at_ms(first.at_ms() + k * uint64_t(every));
  }
}

void FaultLoader::LoadWhen(const YAML::Node& f, const std::string& at, v1::Fault* fault) {
  std::string when = RequiredString(f, "at", at + ".at");
  if (when.empty()) return;
  size_t sep = when.find_first_of("+@");
  std::string phase = when.substr(0, sep);
  const v1::Phase* target = nullptr;
  std::vector<std::string> names;
  for (const auto& p : plan_->phases()) {
    names.push_back(p.name());
    if (p.name() == phase) target = &p;
  }
  if (sep == std::string::npos) {
    Error(f["at"], at + ".at",
          "expected PHASE+DURATION (insert+2s) or PHASE@PERCENT (insert@50%), found " + Quoted(when));
  } else if (!target) {
    Error(f["at"], at + ".at", "expected a phase of this plan (" + Join(names, ", ") + "), found " + Quoted(phase));
  } else if (when[sep] == '+') {
    auto d = ParseDurationNs(when.substr(sep + 1));
    if (!d.ok()) {
      Error(f["at"], at + ".at", d.status().message());
    } else if (target->duration_ms() && uint64_t(*d / 1000000) >= target->duration_ms()) {
      Error(f["at"], at + ".at",
            "phase " + phase + " lasts " + FormatDurationNs(int64_t(target->duration_ms()) * 1000000) +
                ": a fault at " + when + " would never happen");
    } else {
      fault->set_phase(phase);
      fault->set_at_ms(static_cast<uint64_t>(*d / 1000000));
    }
  } else {
    std::string pct = when.substr(sep + 1);
    if (!pct.empty() && pct.back() == '%') pct.pop_back();
    char* end = nullptr;
    double v = std::strtod(pct.c_str(), &end);
    if (pct.empty() || *end != '\0' || v <= 0 || v >= 100) {
      Error(f["at"], at + ".at", "expected a percentage above 0 and below 100 like insert@50%, found '" + when + "'");
    } else if (TotalOps(*target) == 0) {
      Error(f["at"], at + ".at", "PHASE@PERCENT needs a phase with an operation count (ops:); " + phase + " has none");
    } else {
      fault->set_phase(phase);
      fault->set_at_percent(v);
    }
  }
}

// direction (partition, blackhole, loss), delay and jitter (delay), loss
// (loss): each only where its action uses it, each bounded.
void FaultLoader::LoadNet(const YAML::Node& f, const std::string& at, v1::Fault* fault) {
  const std::string& action = fault->action();
  const bool directed = action == "partition" || action == "blackhole" || action == "loss";
  const std::pair<const char*, bool> uses[] = {
      {"direction", directed}, {"delay", action == "delay"}, {"jitter", action == "delay"}, {"loss", action == "loss"}};
  for (const auto& [key, used] : uses) {
    if (f[key] && !used && !action.empty()) {
      Error(f[key], at + "." + key, std::string(key) + " does not apply to " + action);
    }
  }
  v1::NetFault* net = fault->mutable_net();
  if (f["direction"] && directed) {
    const std::string d = f["direction"].IsScalar() ? f["direction"].Scalar() : "";
    if (d != "in" && d != "out" && d != "both") {
      Error(f["direction"], at + ".direction", "expected in, out or both, found " + Found(f["direction"]));
    } else {
      net->set_direction(d);
    }
  }
  if (action == "delay") {
    if (!f["delay"]) {
      Error(f, at + ".delay", "a delay fault needs delay: (like 100ms)");
    } else {
      const size_t before = error_count();
      int64_t ms = DurationMs(f["delay"], at + ".delay");
      if (error_count() == before && (ms < 1 || ms > kMaxNetDelayMs)) {
        Error(f["delay"], at + ".delay", "expected 1ms .. 60s, found " + Found(f["delay"]));
      }
      net->set_delay_ms(uint32_t(std::clamp<int64_t>(ms, 0, kMaxNetDelayMs)));
    }
    if (f["jitter"]) {
      const size_t before = error_count();
      int64_t ms = DurationMs(f["jitter"], at + ".jitter");
      if (error_count() == before && ms > int64_t(net->delay_ms())) {
        Error(f["jitter"], at + ".jitter", "expected 0 .. the delay, found " + Found(f["jitter"]));
      }
      net->set_jitter_ms(uint32_t(std::clamp<int64_t>(ms, 0, kMaxNetDelayMs)));
    }
  }
  if (action == "loss") {
    if (!f["loss"]) {
      Error(f, at + ".loss", "a loss fault needs loss: (a percentage like 20%)");
    } else {
      std::string text = f["loss"].IsScalar() ? f["loss"].Scalar() : "";
      if (!text.empty() && text.back() == '%') text.pop_back();
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(v > 0 && v <= 100)) {
        Error(f["loss"], at + ".loss",
              "expected a percentage above 0 and at most 100 like 20%, found " + Found(f["loss"]));
      } else {
        net->set_loss_percent(v);
      }
    }
  }
  if (!IsNetworkFaultAction(action) || action == "heal") fault->clear_net();
}

void FaultLoader::LoadRecovery(const YAML::Node& root) {
  auto* r = plan_->mutable_recovery();
  r->set_baseline_ms(10000);
  r->set_recovered_fraction(0.9);
  r->set_hold_ms(5000);
  YAML::Node n = root["recovery"];
  if (!n) return;
  if (!n.IsMap()) {
    Error(n, "recovery", "expected a mapping like {baseline: 10s, recovered_fraction: 0.9, hold: 5s}");
    return;
  }
  CheckKeys(n, "recovery", {"baseline", "recovered_fraction", "hold"});
  if (n["baseline"]) r->set_baseline_ms(DurationMs(n["baseline"], "recovery.baseline"));
  if (n["hold"]) r->set_hold_ms(DurationMs(n["hold"], "recovery.hold"));
  if (n["recovered_fraction"]) {
    r->set_recovered_fraction(Double(n["recovered_fraction"], "recovery.recovered_fraction", 0, 1, true));
  }
}

void FaultLoader::LoadHealth(const YAML::Node& t) {
  YAML::Node h = t["health"];
  if (!h) return;
  auto* spec = plan_->mutable_target()->mutable_health();
  spec->set_consecutive(3);
  if (!h.IsMap()) {
    Error(h, "target.health", "expected a mapping like {kind: galera}, found " + Found(h));
    return;
  }
  CheckKeys(h, "target.health", {"kind", "urls", "nodes", "consecutive"});
  spec->set_kind(RequiredString(h, "kind", "target.health.kind"));
  const health::HealthKind* kind = health::FindHealthKind(spec->kind());
  if (!spec->kind().empty() && !kind) {
    Error(h["kind"], "target.health.kind",
          "expected one of " + Join(health::HealthKinds(), ", ") + ", found '" + spec->kind() + "'");
  }
  if (h["urls"]) {
    if (!h["urls"].IsSequence()) {
      Error(h["urls"], "target.health.urls", "expected a list of http:// urls");
    } else {
      for (const auto& u : h["urls"]) {
        if (!u.IsScalar() || u.Scalar().rfind("http://", 0) != 0) {
          Error(u, "target.health.urls", "expected an http:// url, found " + Found(u));
        } else {
          spec->add_urls(u.Scalar());
        }
      }
    }
  }
  if (kind && kind->source == health::HealthSource::kUrls && spec->urls_size() == 0) {
    Error(h, "target.health.urls", "health kind " + spec->kind() + " needs urls");
  }
  if (h["nodes"]) spec->set_nodes(static_cast<uint32_t>(UInt(h["nodes"], "target.health.nodes", 1, 1000)));
  if (h["consecutive"]) {
    spec->set_consecutive(static_cast<uint32_t>(UInt(h["consecutive"], "target.health.consecutive", 1, 100)));
  }
}

}  // namespace stampede::plan

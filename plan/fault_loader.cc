#include "plan/fault_loader.h"

#include <algorithm>

#include "common/byte_size.h"
#include "common/duration.h"
#include "plan/plan_limits.h"
#include "proto/fault_action.h"

namespace stampede::plan {

std::string NetFaultDetail(const v1::Fault& f) {
  const v1::NetFault& n = f.net();
  std::string d;
  if (f.action() == "loss") {
    char pct[32];
    std::snprintf(pct, sizeof(pct), "%g%%", n.loss_percent());
    d = pct;
  } else if (f.action() == "delay" || f.action() == "slow-close") {
    d = std::to_string(n.delay_ms()) + " ms";
    if (n.jitter_ms()) d += " \u00b1 " + std::to_string(n.jitter_ms()) + " ms";
  } else if (f.action() == "bandwidth") {
    d = FormatByteSize(n.bandwidth_bytes_per_s()) + "/s";
  } else if (f.action() == "slow-disk") {
    if (f.disk().bytes_per_s()) d = FormatByteSize(f.disk().bytes_per_s()) + "/s";
    if (f.disk().iops()) d += (d.empty() ? "" : ", ") + std::to_string(f.disk().iops()) + " iops";
  }
  if (!n.method().empty()) d += (d.empty() ? "" : ", ") + n.method();
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
    const int first = plan_->faults_size();
    LoadFault(f, at);
    // A repeat's copies stand where the fault was written.
    for (int k = first; k < plan_->faults_size(); ++k) Place("faults[" + std::to_string(k) + "]", at, f);
  }
}

void FaultLoader::LoadFault(const YAML::Node& f, const std::string& at) {
  if (f["action"] && f["action"].IsScalar() && f["action"].Scalar() == "rolling-restart") return LoadRoll(f, at);
  CheckKeys(f, at,
            {"at", "action", "node", "repeat", "every", "direction", "delay", "jitter", "loss", "bandwidth", "method",
             "free", "iops"});
  v1::Fault* fault = plan_->add_faults();
  LoadWhen(f, at, fault);
  fault->set_action(RequiredString(f, "action", at + ".action"));
  fault->set_node(RequiredString(f, "node", at + ".node"));
  LoadNet(f, at, fault);
  LoadDisk(f, at, fault);
  // Chaos-style cycles: `repeat: N, every: DURATION` adds N-1 copies.
  if (!f["repeat"] && !f["every"]) return;
  if (!f["repeat"] || !f["every"]) {
    Error(f, at, "repeat and every go together (repeat: 3, every: 20s)");
    return;
  }
  uint64_t repeat = UInt(f["repeat"], at + ".repeat", 1, kMaxFaultRepeat);
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

// {at: load+10s, action: rolling-restart, nodes: [n1, n2, n3], max_wait: 60s,
// throughput_floor: 0.5}: a restart fault per node, chained (Fault.roll).
void FaultLoader::LoadRoll(const YAML::Node& f, const std::string& at) {
  CheckKeys(f, at, {"at", "action", "nodes", "max_wait", "throughput_floor"});
  v1::Fault first;
  LoadWhen(f, at, &first);
  first.set_action("restart");
  v1::Roll* roll = first.mutable_roll();
  uint32_t id = 0;
  for (const v1::Fault& g : plan_->faults()) {
    if (g.has_roll()) id = std::max(id, g.roll().id() + 1);
  }
  roll->set_id(id);
  roll->set_max_wait_ms(f["max_wait"] ? uint64_t(DurationMs(f["max_wait"], at + ".max_wait")) : kDefaultRollWaitMs);
  if (f["throughput_floor"]) {
    roll->set_throughput_floor(Double(f["throughput_floor"], at + ".throughput_floor", 0, 1, true));
  }
  const YAML::Node nodes = f["nodes"];
  if (!nodes || !nodes.IsSequence() || nodes.size() == 0 || nodes.size() > kMaxRollNodes) {
    return Error(nodes ? nodes : f, at + ".nodes",
                 "a rolling restart needs nodes: a list of 1 to " + std::to_string(kMaxRollNodes) +
                     " nodes like [node1, node2, node3], found " + Found(nodes));
  }
  roll->set_steps(uint32_t(nodes.size()));
  for (size_t k = 0; k < nodes.size(); ++k) {
    v1::Fault* step = plan_->add_faults();
    *step = first;
    step->set_node(String(nodes[k], at + ".nodes[" + std::to_string(k) + "]"));
    step->mutable_roll()->set_step(uint32_t(k));
  }
}

// PHASE+DURATION or PHASE@PERCENT; plan_validator checks the phase and
// that the time falls within it.
void FaultLoader::LoadWhen(const YAML::Node& f, const std::string& at, v1::Fault* fault) {
  std::string when = RequiredString(f, "at", at + ".at");
  if (when.empty()) return;
  size_t sep = when.find_first_of("+@");
  if (sep == std::string::npos) {
    Error(f["at"], at + ".at",
          "expected PHASE+DURATION (insert+2s) or PHASE@PERCENT (insert@50%), found " + Quoted(when));
    return;
  }
  fault->set_phase(when.substr(0, sep));
  if (when[sep] == '+') {
    auto d = ParseDurationNs(when.substr(sep + 1));
    if (!d.ok()) return Error(f["at"], at + ".at", d.status().message());
    fault->set_at_ms(static_cast<uint64_t>(*d / 1000000));
    return;
  }
  std::string pct = when.substr(sep + 1);
  if (!pct.empty() && pct.back() == '%') pct.pop_back();
  char* end = nullptr;
  double v = std::strtod(pct.c_str(), &end);
  if (pct.empty() || *end != '\0' || v <= 0 || v >= 100) {
    Error(f["at"], at + ".at", "expected a percentage above 0 and below 100 like insert@50%, found '" + when + "'");
  } else {
    fault->set_at_percent(v);
  }
}

// direction (partition, blackhole, loss, delay, bandwidth), delay (delay,
// slow-close), jitter (delay), loss (loss), bandwidth (bandwidth), method
// (delay, bandwidth): each only where its action uses it, each bounded.
void FaultLoader::LoadNet(const YAML::Node& f, const std::string& at, v1::Fault* fault) {
  const std::string& action = fault->action();
  const bool directed = IsDirectedAction(action);
  const bool delays = action == "delay" || action == "slow-close";
  const std::pair<const char*, bool> uses[] = {{"direction", directed},
                                               {"delay", delays},
                                               {"jitter", action == "delay"},
                                               {"loss", action == "loss"},
                                               {"bandwidth", action == "bandwidth" || action == "slow-disk"},
                                               {"method", HasMethod(action)}};
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
  if (f["method"] && HasMethod(action)) {
    const std::string m = f["method"].IsScalar() ? f["method"].Scalar() : "";
    if (m != "proxy" && m != "kernel") {
      Error(f["method"], at + ".method", "expected proxy or kernel, found " + Found(f["method"]));
    } else {
      net->set_method(m);
    }
  }
  if (action == "bandwidth") {
    if (!f["bandwidth"]) {
      Error(f, at + ".bandwidth", "a bandwidth fault needs bandwidth: (like 100KB/s)");
    } else {
      net->set_bandwidth_bytes_per_s(Bandwidth(f["bandwidth"], at + ".bandwidth"));
    }
  }
  if (delays) {
    if (!f["delay"]) {
      Error(f, at + ".delay", "a " + action + " fault needs delay: (like 100ms)");
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

// Bytes per second like 100KB/s (the /s may be left out), 1KB/s ..
// 1024GB/s; 0 after an error.
uint64_t FaultLoader::Bandwidth(const YAML::Node& b, const std::string& at) {
  std::string text = b.IsScalar() ? b.Scalar() : "";
  if (text.size() > 2 && text.compare(text.size() - 2, 2, "/s") == 0) text.resize(text.size() - 2);
  auto bytes = ParseByteSize(text);
  if (!bytes.ok() || *bytes < kMinBandwidth || *bytes > kMaxBandwidth) {
    Error(b, at, "expected 1KB/s .. 1024GB/s like 100KB/s, found " + Found(b));
    return 0;
  }
  return *bytes;
}

// slow-disk: bandwidth and/or iops.
void FaultLoader::LoadSlowDisk(const YAML::Node& f, const std::string& at, v1::Fault* fault) {
  v1::DiskFault* d = fault->mutable_disk();
  if (f["bandwidth"]) d->set_bytes_per_s(Bandwidth(f["bandwidth"], at + ".bandwidth"));
  if (const YAML::Node iops = f["iops"]) {
    const std::string t = iops.IsScalar() ? iops.Scalar() : "";
    const long v =
        t.empty() || t.find_first_not_of("0123456789") != std::string::npos || t.size() > 7 ? -1 : std::stol(t);
    if (v < 1 || v > long(kMaxSlowDiskIops)) {
      Error(iops, at + ".iops", "expected 1 .. 1000000 operations per second, found " + Found(iops));
    } else {
      d->set_iops(uint32_t(v));
    }
  }
  if (!f["bandwidth"] && !f["iops"]) {
    Error(f, at, "a slow-disk fault needs bandwidth: (like 1MB/s), iops: (like 50) or both");
  }
}

// free (fill): a byte size, at most 1 PiB; 0 when not given. slow-disk's
// bandwidth and iops.
void FaultLoader::LoadDisk(const YAML::Node& f, const std::string& at, v1::Fault* fault) {
  if (fault->action() == "slow-disk") return LoadSlowDisk(f, at, fault);
  if (f["iops"] && !fault->action().empty())
    Error(f["iops"], at + ".iops", "iops does not apply to " + fault->action());
  const YAML::Node free = f["free"];
  if (!free) return;
  if (fault->action() != "fill") {
    if (!fault->action().empty()) Error(free, at + ".free", "free does not apply to " + fault->action());
    return;
  }
  auto bytes = ParseByteSize(free.IsScalar() ? free.Scalar() : "");
  if (!bytes.ok() || *bytes > kMaxFillFreeBytes) {
    Error(free, at + ".free", "expected a size from 0 to 1PiB like 0 or 64MB, found " + Found(free));
    return;
  }
  fault->mutable_disk()->set_free_bytes(*bytes);
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
  CheckKeys(n, "recovery", {"baseline", "recovered_fraction", "hold", "balance_tolerance"});
  if (n["balance_tolerance"]) {
    r->set_balance_tolerance(Double(n["balance_tolerance"], "recovery.balance_tolerance", 0, 1, true));
  }
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
  if (h["urls"]) {
    if (!h["urls"].IsSequence()) {
      Error(h["urls"], "target.health.urls", "expected a list of http:// urls");
    } else {
      for (const auto& u : h["urls"]) spec->add_urls(String(u, "target.health.urls"));
    }
  }
  if (h["nodes"]) spec->set_nodes(static_cast<uint32_t>(UInt(h["nodes"], "target.health.nodes", 1, kMaxHealthNodes)));
  if (h["consecutive"]) {
    spec->set_consecutive(
        static_cast<uint32_t>(UInt(h["consecutive"], "target.health.consecutive", 1, kMaxHealthConsecutive)));
  }
}

}  // namespace stampede::plan

#include "agent/agent_config.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "agent/config_yaml.h"
#include "common/byte_size.h"
#include "common/duration.h"
#include "plan/plan_limits.h"

namespace stampede::agent {
namespace {

// A duration field, in ms, between 1 s and a day.
Status Duration(const YAML::Node& n, const std::string& file, const std::string& field, int64_t* ms) {
  auto d = n.IsScalar() ? ParseDurationNs(n.Scalar()) : Status::Error("expected a duration like 30s");
  if (!d.ok()) return Status::Error(ConfigAt(file, n) + field + ": " + d.status().message());
  if (*d < 1000000000LL || *d > 86400LL * 1000000000LL) {
    return Status::Error(ConfigAt(file, n) + field + ": expected between 1s and 24h, found '" + n.Scalar() + "'");
  }
  *ms = *d / 1000000;
  return Status::Ok();
}

}  // namespace

StatusOr<AgentConfig> AgentConfig::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Error(path + ": " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return Parse(ss.str(), path);
}

StatusOr<AgentConfig> AgentConfig::Parse(const std::string& text, const std::string& file) {
  // The same limits as a plan's: size, nesting, aliases.
  if (auto e = plan::CheckPlanTextLimits(text)) {
    return Status::Error(file + ":" + std::to_string(e->line) + ":" + std::to_string(e->column) + ": " + e->message);
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::Error(file + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                         ": not valid YAML: " + e.msg);
  }
  AgentConfig c;
  if (root.IsNull()) return c;
  if (!root.IsMap()) return Status::Error(file + ": expected a mapping (nodes:, fault_timeout:, ...)");
  Status s = CheckConfigKeys(root, file, "", {"nodes", "fault_timeout", "coordinator_lost", "spool", "allow"});
  if (!s.ok()) return s;
  if (root["nodes"]) {
    auto faults = FaultActions::FromYaml(root["nodes"], file);
    if (!faults.ok()) return faults.status();
    c.faults = std::move(*faults);
  }
  if (root["fault_timeout"]) {
    int64_t ms = 0;
    if (!(s = Duration(root["fault_timeout"], file, "fault_timeout", &ms)).ok()) return s;
    c.faults.set_timeout_ms(ms);
  }
  if (const YAML::Node lost = root["coordinator_lost"]) {
    if (!lost.IsMap()) return Status::Error(ConfigAt(file, lost) + "coordinator_lost: expected a mapping");
    if (!(s = CheckConfigKeys(lost, file, "coordinator_lost.", {"resume_paused_after", "stop_run_after"})).ok())
      return s;
    if (lost["resume_paused_after"] &&
        !(s = Duration(lost["resume_paused_after"], file, "coordinator_lost.resume_paused_after",
                       &c.resume_paused_after_ms))
             .ok()) {
      return s;
    }
    if (lost["stop_run_after"] &&
        !(s = Duration(lost["stop_run_after"], file, "coordinator_lost.stop_run_after", &c.stop_run_after_ms)).ok()) {
      return s;
    }
  }
  if (const YAML::Node spool = root["spool"]) {
    if (!spool.IsMap())
      return Status::Error(ConfigAt(file, spool) + "spool: expected a mapping like {dir: ..., max_size: 256MB}");
    if (!(s = CheckConfigKeys(spool, file, "spool.", {"dir", "max_size"})).ok()) return s;
    if (spool["dir"]) c.spool_dir = spool["dir"].Scalar();
    if (spool["max_size"]) {
      auto size = ParseByteSize(spool["max_size"].Scalar());
      if (!size.ok())
        return Status::Error(ConfigAt(file, spool["max_size"]) + "spool.max_size: " + size.status().message());
      if (*size < (1u << 20))
        return Status::Error(ConfigAt(file, spool["max_size"]) + "spool.max_size: expected at least 1MB");
      c.spool_max_bytes = *size;
    }
  }
  if (const YAML::Node allow = root["allow"]) {
    auto a = AllowList::FromYaml(allow, file);
    if (!a.ok()) return a.status();
    c.allow = std::move(*a);
  }
  return c;
}

}  // namespace stampede::agent

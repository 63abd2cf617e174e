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
  auto d = n.IsScalar() ? ParseDurationNs(n.Scalar()) : Status::Invalid("expected a duration like 30s");
  if (!d.ok()) return Status::Invalid(ConfigAt(file, n) + field + ": " + d.status().message());
  if (*d < 1000000000LL || *d > 86400LL * 1000000000LL) {
    return Status::Invalid(ConfigAt(file, n) + field + ": expected between 1s and 24h, found '" + n.Scalar() + "'");
  }
  *ms = *d / 1000000;
  return Status::Ok();
}

}  // namespace

StatusOr<AgentConfig> AgentConfig::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno(path, errno);
  std::stringstream ss;
  ss << in.rdbuf();
  return Parse(ss.str(), path);
}

StatusOr<AgentConfig> AgentConfig::Parse(const std::string& text, const std::string& file) {
  // The same limits as a plan's: size, nesting, aliases.
  if (auto e = plan::CheckPlanTextLimits(text)) {
    return Status::Invalid(file + ":" + std::to_string(e->line) + ":" + std::to_string(e->column) + ": " + e->message);
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::Invalid(file + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                           ": not valid YAML: " + e.msg);
  }
  AgentConfig c;
  if (root.IsNull()) return c;
  if (!root.IsMap()) return Status::Invalid(file + ": expected a mapping (nodes:, fault_timeout:, ...)");
  if (root["phases"] && !root["nodes"]) {
    return Status::Invalid(file +
                           ":1:1: this is a plan (it has phases:, no nodes:), not an agent's config: "
                           "`stampede validate " +
                           file + "` checks it");
  }
  ConfigProblems problems(file);
  problems.CheckDuplicates(root);
  problems.CheckKeys(root, "", {"nodes", "fault_timeout", "coordinator_lost", "spool", "allow"});
  if (root["nodes"]) c.faults = FaultActions::FromYaml(root["nodes"], &problems);
  if (root["fault_timeout"]) {
    int64_t ms = 0;
    if (problems.Take(Duration(root["fault_timeout"], file, "fault_timeout", &ms))) c.faults.set_timeout_ms(ms);
  }
  if (const YAML::Node lost = root["coordinator_lost"]) c.ReadCoordinatorLost(lost, &problems);
  if (const YAML::Node spool = root["spool"]) c.ReadSpool(spool, &problems);
  if (const YAML::Node allow = root["allow"]) c.allow = AllowList::FromYaml(allow, &problems);
  if (!problems.empty()) return problems.ToStatus();
  return c;
}

void AgentConfig::ReadCoordinatorLost(const YAML::Node& lost, ConfigProblems* problems) {
  const std::string& file = problems->file();
  if (!lost.IsMap()) return problems->Add(lost, "coordinator_lost", "expected a mapping");
  problems->CheckKeys(lost, "coordinator_lost.", {"resume_paused_after", "stop_run_after"});
  if (lost["resume_paused_after"]) {
    problems->Take(
        Duration(lost["resume_paused_after"], file, "coordinator_lost.resume_paused_after", &resume_paused_after_ms));
  }
  if (lost["stop_run_after"]) {
    problems->Take(Duration(lost["stop_run_after"], file, "coordinator_lost.stop_run_after", &stop_run_after_ms));
  }
}

void AgentConfig::ReadSpool(const YAML::Node& spool, ConfigProblems* problems) {
  if (!spool.IsMap()) return problems->Add(spool, "spool", "expected a mapping like {dir: ..., max_size: 256MB}");
  problems->CheckKeys(spool, "spool.", {"dir", "max_size"});
  if (spool["dir"]) spool_dir = spool["dir"].Scalar();
  if (const YAML::Node max = spool["max_size"]) {
    auto size = ParseByteSize(max.IsScalar() ? max.Scalar() : "");
    if (!size.ok()) {
      problems->Add(max, "spool.max_size", size.status().message());
    } else if (*size < (1u << 20)) {
      problems->Add(max, "spool.max_size", "expected at least 1MB");
    } else {
      spool_max_bytes = *size;
    }
  }
}

}  // namespace stampede::agent

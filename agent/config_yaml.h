// Reading the agent's local config (agent_config, fault_actions,
// allow_list): where a value is, for FILE:LINE:COL: messages like a plan's,
// and unknown keys.
#ifndef STAMPEDE_AGENT_CONFIG_YAML_H_
#define STAMPEDE_AGENT_CONFIG_YAML_H_

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace stampede::agent {

// "FILE:LINE:COL: " of n.
std::string ConfigAt(const std::string& file, const YAML::Node& n);
// The first key of `map` not in `allowed`, as "FILE:LINE:COL: PREFIXKEY:
// unknown key (expected a, b)".
Status CheckConfigKeys(const YAML::Node& map, const std::string& file, const std::string& prefix,
                       const std::vector<std::string>& allowed);

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_CONFIG_YAML_H_

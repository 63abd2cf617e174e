#include "agent/config_yaml.h"

#include <algorithm>

#include "common/strings.h"

namespace stampede::agent {

std::string ConfigAt(const std::string& file, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}

Status CheckConfigKeys(const YAML::Node& map, const std::string& file, const std::string& prefix,
                       const std::vector<std::string>& allowed) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    return Status::Error(ConfigAt(file, it->first) + prefix + key + ": unknown key (expected " + Join(allowed, ", ") +
                         ")");
  }
  return Status::Ok();
}

}  // namespace stampede::agent

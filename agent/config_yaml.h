// Reading the agent's local config (agent_config, fault_actions,
// allow_list, network_faults): every problem found, each as
// FILE:LINE:COL: FIELD: message like a plan's, unknown keys with the
// nearest known one suggested.
#ifndef STAMPEDE_AGENT_CONFIG_YAML_H_
#define STAMPEDE_AGENT_CONFIG_YAML_H_

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace stampede::agent {

// "FILE:LINE:COL: " of n.
std::string ConfigAt(const std::string& file, const YAML::Node& n);

// The problems of one config file, collected so that a reader goes on past
// the first and the user sees them all at once. Not thread-safe.
class ConfigProblems {
 public:
  explicit ConfigProblems(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  // FILE:LINE:COL (of at): FIELD: msg.
  void Add(const YAML::Node& at, const std::string& field, const std::string& msg);
  // A helper's error, already placed; returns s.ok().
  bool Take(const Status& s);
  // Each key of `map` not in `allowed`: PREFIXKEY: unknown key, with the
  // nearest allowed one suggested. Returns whether every key was allowed.
  bool CheckKeys(const YAML::Node& map, const std::string& prefix, const std::vector<std::string>& allowed);
  // Keys written twice anywhere under root.
  void CheckDuplicates(const YAML::Node& root);

  bool empty() const { return list_.empty(); }
  size_t size() const { return list_.size(); }
  // Every problem, top to bottom, one per line; Ok when there are none.
  Status ToStatus() const;

 private:
  std::string file_;
  std::vector<std::string> list_;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_CONFIG_YAML_H_

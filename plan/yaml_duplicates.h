// Keys written twice in one YAML mapping. yaml-cpp keeps both and its
// lookup returns the first, so a plan with two `phases:` blocks would run
// only the first: plans and agent configs refuse them, naming both places.
#ifndef STAMPEDE_PLAN_YAML_DUPLICATES_H_
#define STAMPEDE_PLAN_YAML_DUPLICATES_H_

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace stampede::plan {

struct DuplicateKey {
  std::string field;  // "target.endpoints", "phases[1].rate"
  YAML::Mark first, again;
  // "FILE:LINE:COL: FIELD: written twice in one mapping (first at LINE:COL)"
  std::string Message(const std::string& file) const;
};

// Every repeat of a key, in any mapping of the document, in document order.
std::vector<DuplicateKey> FindDuplicateKeys(const YAML::Node& root);

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_YAML_DUPLICATES_H_

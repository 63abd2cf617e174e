// Where in the YAML text a protobuf field of the plan came from, so that a
// problem the validator finds on the protobuf plan is reported at the
// FILE:LINE:COL the user wrote. Most fields are found by walking the same
// path through the YAML tree (phases[1].params.rows); the reader registers
// the few whose protobuf path differs (a fault's repeat copies, expect:
// conditions flattened into one list, an op's single statement written at
// the op's level).
#ifndef STAMPEDE_PLAN_YAML_PLACES_H_
#define STAMPEDE_PLAN_YAML_PLACES_H_

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

namespace stampede::plan {

struct YamlPlace {
  std::string field;  // the path as the YAML spells it, for the message
  YAML::Node node;    // where it stands (its mark is the position)
};

class YamlPlaces {
 public:
  // `proto_field` (a prefix of protobuf paths) was read from `node`, whose
  // YAML path is `yaml_field`.
  void Add(const std::string& proto_field, const std::string& yaml_field, const YAML::Node& node);

  // The YAML path and node of a protobuf field: from the longest registered
  // prefix, else from `root`, walking as deep as the YAML goes (a field the
  // plan left to its default stands at its parent).
  YamlPlace Locate(const YAML::Node& root, const std::string& proto_field) const;

 private:
  std::map<std::string, YamlPlace> places_;
};

// True if one field is the other or contains it (phases[0] and
// phases[0].params.rows).
bool FieldsOverlap(const std::string& a, const std::string& b);

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_YAML_PLACES_H_

#include "plan/yaml_places.h"

#include <cstdlib>

namespace stampede::plan {
namespace {

bool IsBoundary(char c) { return c == '.' || c == '['; }

// Walks `path` (keys separated by '.', list indexes in [N]) down from
// `node` while the YAML has it.
YAML::Node Walk(const YAML::Node& from, const std::string& path) {
  YAML::Node node;
  node.reset(from);
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') ++i;
    if (i < path.size() && path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos) break;
      const size_t index = std::strtoul(path.c_str() + i + 1, nullptr, 10);
      if (!node.IsSequence() || index >= node.size()) break;
      const YAML::Node& parent = node;
      YAML::Node next = static_cast<const YAML::Node&>(parent)[index];
      node.reset(next);
      i = close + 1;
      continue;
    }
    size_t end = i;
    while (end < path.size() && !IsBoundary(path[end])) ++end;
    const std::string key = path.substr(i, end - i);
    if (!node.IsMap()) break;
    const YAML::Node& parent = node;
    YAML::Node next = static_cast<const YAML::Node&>(parent)[key];
    if (!next.IsDefined()) break;
    node.reset(next);
    i = end;
  }
  return node;
}

}  // namespace

void YamlPlaces::Add(const std::string& proto_field, const std::string& yaml_field, const YAML::Node& node) {
  YamlPlace& place = places_[proto_field];
  place.field = yaml_field;
  place.node.reset(node);
}

YamlPlace YamlPlaces::Locate(const YAML::Node& root, const std::string& proto_field) const {
  for (size_t len = proto_field.size(); len > 0; --len) {
    if (len < proto_field.size() && !IsBoundary(proto_field[len])) continue;
    auto it = places_.find(proto_field.substr(0, len));
    if (it == places_.end()) continue;
    const std::string rest = proto_field.substr(len);
    return {it->second.field + rest, Walk(it->second.node, rest)};
  }
  return {proto_field, Walk(root, proto_field)};
}

bool FieldsOverlap(const std::string& a, const std::string& b) {
  const std::string& shorter = a.size() <= b.size() ? a : b;
  const std::string& longer = a.size() <= b.size() ? b : a;
  if (longer.compare(0, shorter.size(), shorter) != 0) return false;
  return longer.size() == shorter.size() || IsBoundary(longer[shorter.size()]);
}

}  // namespace stampede::plan

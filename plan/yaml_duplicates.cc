#include "plan/yaml_duplicates.h"

#include <map>

namespace stampede::plan {
namespace {

std::string Join(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

void Walk(const YAML::Node& n, const std::string& path, int depth, std::vector<DuplicateKey>* out) {
  // The text limits (plan_limits) bound nesting; this is only a guard.
  if (depth > 64) return;
  if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) Walk(n[i], path + "[" + std::to_string(i) + "]", depth + 1, out);
    return;
  }
  if (!n.IsMap()) return;
  std::map<std::string, YAML::Mark> seen;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
    const std::string field = Join(path, key);
    auto [at, fresh] = seen.emplace(key, it->first.Mark());
    if (!fresh && it->first.IsScalar()) out->push_back({field, at->second, it->first.Mark()});
    Walk(it->second, field, depth + 1, out);
  }
}

}  // namespace

std::string DuplicateKey::Message(const std::string& file) const {
  return file + ":" + std::to_string(again.line + 1) + ":" + std::to_string(again.column + 1) + ": " + field +
         ": written twice in one mapping (first at " + std::to_string(first.line + 1) + ":" +
         std::to_string(first.column + 1) + "; only one may be given)";
}

std::vector<DuplicateKey> FindDuplicateKeys(const YAML::Node& root) {
  std::vector<DuplicateKey> out;
  Walk(root, "", 0, &out);
  return out;
}

}  // namespace stampede::plan

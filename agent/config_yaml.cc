#include "agent/config_yaml.h"

#include <algorithm>
#include <cstdlib>

#include "common/strings.h"
#include "plan/yaml_duplicates.h"

namespace stampede::agent {

std::string ConfigAt(const std::string& file, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}

void ConfigProblems::Add(const YAML::Node& at, const std::string& field, const std::string& msg) {
  list_.push_back(ConfigAt(file_, at) + field + ": " + msg);
}

bool ConfigProblems::Take(const Status& s) {
  if (!s.ok()) list_.push_back(s.message());
  return s.ok();
}

bool ConfigProblems::CheckKeys(const YAML::Node& map, const std::string& prefix,
                               const std::vector<std::string>& allowed) {
  bool all = true;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const std::string near = NearestWord(key, allowed);
    Add(it->first, prefix + key,
        "unknown key" + (near.empty() ? " (expected " + Join(allowed, ", ") + ")" : ", did you mean '" + near + "'?"));
    all = false;
  }
  return all;
}

void ConfigProblems::CheckDuplicates(const YAML::Node& root) {
  for (const plan::DuplicateKey& d : plan::FindDuplicateKeys(root)) list_.push_back(d.Message(file_));
}

Status ConfigProblems::ToStatus() const {
  if (list_.empty()) return Status::Ok();
  // "FILE:LINE:COL: ...": top to bottom, as the user reads the file.
  auto position = [this](const std::string& p) {
    const char* s = p.c_str() + std::min(p.size(), file_.size() + 1);
    char* end = nullptr;
    const long line = std::strtol(s, &end, 10);
    return std::pair{line, *end == ':' ? std::strtol(end + 1, nullptr, 10) : 0L};
  };
  std::vector<std::string> sorted = list_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const std::string& a, const std::string& b) { return position(a) < position(b); });
  return Status::Invalid(Join(sorted, "\n"));
}

}  // namespace stampede::agent

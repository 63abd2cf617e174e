#include "plan/yaml_reader.h"

#include <cmath>

#include "common/duration.h"
#include "common/strings.h"
#include "plan/plan_limits.h"

namespace stampede::plan {

std::string Found(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsScalar()) return Quoted(n.Scalar());
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a mapping";
  return "something else";
}

void YamlReader::AddAt(int line, int col, const std::string& field, const std::string& msg) {
  errors_->push_back(file_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + field + ": " + msg);
}
void YamlReader::Error(const YAML::Node& at, const std::string& field, const std::string& msg) {
  YAML::Mark m = at.IsDefined() ? at.Mark() : YAML::Mark();
  AddAt(m.line + 1, m.column + 1, field, msg);
}

std::string YamlReader::Path(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

void YamlReader::CheckKeys(const YAML::Node& map, const std::string& prefix, const std::vector<std::string>& allowed) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string msg = "unknown key";
    if (key == "password") {
      msg =
          "inline passwords are not accepted: set password_env to the name of "
          "an "
          "environment variable that holds it";
    } else {
      std::string near = NearestWord(key, allowed);
      msg += near.empty() ? " (expected one of " + Join(allowed, ", ") + ")" : ", did you mean '" + near + "'?";
    }
    Error(it->first, Path(prefix, key), msg);
  }
}

std::string YamlReader::RequiredString(const YAML::Node& map, const std::string& key, const std::string& field) {
  YAML::Node n = map[key];
  if (!n) {
    Error(map, field, "missing (expected a string)");
    return "";
  }
  return String(n, field);
}
std::string YamlReader::String(const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar() || n.Scalar().empty()) {
    Error(n, field, "expected a string, found " + Found(n));
    return "";
  }
  return n.Scalar();
}
bool YamlReader::Bool(const YAML::Node& n, const std::string& field) {
  bool b = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, b)) {
    Error(n, field, "expected true or false, found " + Found(n));
  }
  return b;
}
uint64_t YamlReader::UInt(const YAML::Node& n, const std::string& field, double min, double max) {
  int64_t v = 0;
  uint64_t u = 0;
  const std::string out_of_range = ExpectedInteger(min, max);
  const std::string not_integer = ExpectedInteger(min, 1e18);  // no range for what is not a number
  if (!n.IsScalar()) {
    Error(n, field, not_integer + Found(n));
    return 0;
  }
  if (YAML::convert<int64_t>::decode(n, v)) {
    if (double(v) < min || double(v) > max) {
      Error(n, field, out_of_range + std::to_string(v));
      return 0;
    }
    return static_cast<uint64_t>(v);
  }
  // 2^63 and above: still an integer, still checked against the range.
  if (min >= 0 && YAML::convert<uint64_t>::decode(n, u)) {
    if (double(u) > max) {
      Error(n, field, out_of_range + std::to_string(u));
      return 0;
    }
    return u;
  }
  Error(n, field, not_integer + Found(n));
  return 0;
}
double YamlReader::Double(const YAML::Node& n, const std::string& field, double min, double max, bool exclusive_min) {
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || std::isnan(v)) {
    Error(n, field, "expected a number, found " + Found(n));
    return 0;
  }
  if (v < min || (exclusive_min && v == min) || v > max) {
    Error(n, field,
          ExpectedNumber(min, max, exclusive_min) + (n.Scalar().size() > 60 ? Quoted(n.Scalar()) : n.Scalar()));
    return 0;
  }
  return v;
}
int64_t YamlReader::DurationMs(const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) {
    Error(n, field, "expected a duration like 10s, 1m30s or 250ms, found " + Found(n));
    return 0;
  }
  auto d = ParseDurationNs(n.Scalar());
  if (!d.ok()) {
    Error(n, field, d.status().message());
    return 0;
  }
  if (*d <= 0) {
    Error(n, field, "expected a duration above zero, found " + Quoted(n.Scalar()));
    return 0;
  }
  if (*d / 1000000 > kMaxDurationMs) {
    Error(n, field, "expected a duration up to 720h (30 days), found " + Quoted(n.Scalar()));
    return 0;
  }
  return *d / 1000000;
}

}  // namespace stampede::plan

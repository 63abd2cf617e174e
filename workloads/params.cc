#include <cstdlib>

#include "workloads/workload.h"

namespace stampede::workloads {

Params::Params(const std::vector<ParamSpec>& specs, const std::map<std::string, std::string>& values) {
  for (const ParamSpec& s : specs) values_[s.name] = s.default_value;
  for (const auto& [k, v] : values) values_[k] = v;
}

int64_t Params::Int(const std::string& name) const { return std::strtoll(Str(name).c_str(), nullptr, 10); }

double Params::Double(const std::string& name) const { return std::strtod(Str(name).c_str(), nullptr); }

bool Params::Bool(const std::string& name) const {
  const std::string& v = Str(name);
  return v == "true" || v == "yes" || v == "on" || v == "1";
}

const std::string& Params::Str(const std::string& name) const {
  static const std::string kEmpty;
  auto it = values_.find(name);
  return it == values_.end() ? kEmpty : it->second;
}

}  // namespace stampede::workloads

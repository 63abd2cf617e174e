#include "coordinator/agent_roles.h"

#include <algorithm>
#include <map>

#include "common/strings.h"

namespace stampede::coordinator {

bool MatchesLoad(const v1::AgentsSpec& spec, const v1::Hello& hello) {
  if (!spec.load_labels().empty()) {
    for (const auto& [key, value] : spec.load_labels()) {
      auto it = hello.labels().find(key);
      if (it == hello.labels().end() || it->second != value) return false;
    }
    return true;
  }
  return spec.load() == "all" || hello.nodes().empty();
}

StatusOr<std::vector<std::string>> LoadAgents(const v1::AgentsSpec& spec, const std::vector<std::string>& names,
                                              const std::vector<const v1::Hello*>& hellos) {
  std::vector<std::string> load;
  for (size_t i = 0; i < names.size(); ++i) {
    if (MatchesLoad(spec, *hellos[i])) load.push_back(names[i]);
  }
  if (!load.empty() || names.empty()) return load;
  if (spec.load_labels().empty()) return names;  // every agent owns a node: they all generate load
  std::vector<std::string> wanted;
  for (const auto& [key, value] :
       std::map<std::string, std::string>(spec.load_labels().begin(), spec.load_labels().end())) {
    wanted.push_back(key + "=" + value);
  }
  return Status::Error("agents.load: no agent has the labels " + Join(wanted, ",") +
                       " (connected: " + Join(names, ", ") + "; give agents --label KEY=VALUE)");
}

std::string RoleOf(const v1::Hello& hello, bool load) {
  std::vector<std::string> parts;
  if (load) parts.push_back("load");
  if (!hello.nodes().empty()) {
    parts.push_back("nodes " + Join(std::vector<std::string>(hello.nodes().begin(), hello.nodes().end()), " "));
  }
  std::map<std::string, std::string> labels(hello.labels().begin(), hello.labels().end());
  for (const auto& [k, v] : labels) parts.push_back(k + "=" + v);
  return parts.empty() ? "idle" : Join(parts, ", ");
}

std::vector<uint32_t> ShareWeights(const std::vector<uint32_t>& capacity) {
  constexpr uint32_t kMaxWeight = 1'000'000;
  uint64_t sum = 0, declared = 0;
  for (uint32_t c : capacity) {
    if (c == 0) continue;
    sum += std::min(c, kMaxWeight);
    ++declared;
  }
  if (declared == 0) return {};
  const uint32_t mean = uint32_t(std::max<uint64_t>(1, (sum + declared / 2) / declared));
  std::vector<uint32_t> out;
  for (uint32_t c : capacity) out.push_back(c == 0 ? mean : std::min(c, kMaxWeight));
  return out;
}

}  // namespace stampede::coordinator

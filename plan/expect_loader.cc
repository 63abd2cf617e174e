#include "plan/expect_loader.h"

namespace stampede::plan {

void ExpectLoader::LoadExpect(const YAML::Node& e) {
  if (!e.IsMap()) {
    Error(e, "expect", "expected a mapping like {phases: {insert: [\"p99 < 20ms\"]}}, found " + Found(e));
    return;
  }
  CheckKeys(e, "expect", {"phases", "faults"});
  if (e["phases"]) LoadScope(e["phases"], "phase", "expect.phases");
  if (e["faults"]) LoadScope(e["faults"], "fault", "expect.faults");
}

// Each condition becomes one Expectation as written; plan_validator checks
// its subject and parses it (expect[K] there is this node here).
void ExpectLoader::LoadScope(const YAML::Node& map, const std::string& scope, const std::string& field) {
  const std::string example = scope == "phase" ? "{insert: [\"p99 < 20ms\"]}" : "{kill: [\"unavailability < 10s\"]}";
  if (!map.IsMap()) {
    Error(map, field, "expected a mapping like " + example + ", found " + Found(map));
    return;
  }
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first, list = it->second;
    const std::string subject = key.IsScalar() ? key.Scalar() : "";
    const std::string at = field + "." + (subject.empty() ? "?" : subject);
    std::vector<YAML::Node> items;
    if (list.IsScalar()) {
      items.push_back(list);
    } else if (list.IsSequence()) {
      for (const auto& item : list) items.push_back(item);
    } else {
      Error(list, at, "expected a list of conditions like " + example + ", found " + Found(list));
      continue;
    }
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string item_at = at + "[" + std::to_string(i) + "]";
      const std::string text = String(items[i], item_at);
      if (text.empty()) continue;
      const std::string proto_at = "expect[" + std::to_string(plan_->expect_size()) + "]";
      Place(proto_at, item_at, items[i]);
      Place(proto_at + ".subject", at, key);
      v1::Expectation* x = plan_->add_expect();
      x->set_scope(scope);
      x->set_subject(subject);
      x->set_text(text);
    }
  }
}

}  // namespace stampede::plan

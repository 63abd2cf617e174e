#include "plan/expect_loader.h"

#include "common/strings.h"
#include "plan/plan_expander.h"
#include "plan/plan_limits.h"
#include "proto/fault_action.h"
#include "record/expectation.h"

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
    if (std::string why = CheckSubject(scope, subject); !why.empty()) {
      Error(key, at, why);
      continue;
    }
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
      auto parsed = record::ParseExpectation(scope, subject, text);
      if (!parsed.ok()) {
        Error(items[i], item_at, parsed.status().message());
        continue;
      }
      if (std::string why = NeedsReadBack(scope, subject, parsed->metric); !why.empty()) {
        Error(items[i], item_at, why);
        continue;
      }
      if (size_t(plan_->expect_size()) >= record::kMaxExpectations) {
        Error(items[i], item_at, "at most " + std::to_string(record::kMaxExpectations) + " conditions");
        return;
      }
      v1::Expectation* x = plan_->add_expect();
      x->set_scope(scope);
      x->set_subject(subject);
      x->set_text(parsed->text);
    }
  }
}

// A *_writes metric on a named phase (or one of its steps) is measured by
// the read-back, which only a phase with check_writes does.
std::string ExpectLoader::NeedsReadBack(const std::string& scope, const std::string& subject,
                                        const std::string& metric) const {
  if (scope != "phase" || subject == "*" || metric.size() < 7 || metric.compare(metric.size() - 7, 7, "_writes") != 0) {
    return "";
  }
  const std::string phase = subject.substr(0, subject.find('/'));
  for (const v1::Phase& p : plan_->phases()) {
    if (p.name() == phase && !p.check_writes()) {
      return metric + " is measured by the read-back: phase " + phase + " needs check_writes: true";
    }
  }
  return "";
}

std::string ExpectLoader::CheckSubject(const std::string& scope, const std::string& subject) const {
  if (subject == "*") return "";
  std::vector<std::string> names = {"*"};
  if (scope == "phase") {
    for (const v1::Phase& p : plan_->phases()) {
      if (p.name() == subject) return "";
      names.push_back(p.name());
    }
    // A step of a stepped workload ("insert/InsertOne"), once the phases
    // read without error (their params decide the steps).
    if (error_count() == 0) {
      const v1::Plan expanded = ExpandSteps(*plan_);
      for (const v1::Phase& p : expanded.phases()) {
        if (p.group().empty()) continue;
        if (p.name() == subject) return "";
        names.push_back(p.name());
      }
    }
  } else {
    if (IsFaultAction(subject)) return "";
    names.insert(names.end(), kFaultActions.begin(), kFaultActions.end());
  }
  const std::string near = NearestWord(subject, names);
  return "expected " + std::string(scope == "phase" ? "a phase of the plan" : "a fault action") + " or \"*\" (" +
         Join(names, ", ") + "), found " + Quoted(subject) + (near.empty() ? "" : " (did you mean '" + near + "'?)");
}

}  // namespace stampede::plan

#include "plan/agents_loader.h"

#include <yaml-cpp/yaml.h>

#include "common/strings.h"
#include "plan/plan_limits.h"

namespace stampede::plan {

// agents.load: all, nodes-free (the default), or {labels: {KEY: VALUE}}.
void AgentsLoader::LoadLoad(const YAML::Node& load) {
  v1::AgentsSpec* agents = agents_;
  const std::string field = "agents.load";
  const std::string expected = "expected all, no-nodes or {labels: {role: load}}, found ";
  if (load.IsScalar()) {
    const std::string v = load.Scalar();
    if (v != "all" && v != "no-nodes") Error(load, field, expected + Quoted(v));
    agents->set_load(v == "all" ? "all" : "");
    return;
  }
  if (!load.IsMap()) {
    Error(load, field, expected + Found(load));
    return;
  }
  CheckKeys(load, field, {"labels"});
  const YAML::Node labels = load["labels"];
  if (!labels || !labels.IsMap() || labels.size() == 0 || labels.size() > 16) {
    Error(labels ? labels : load, field + ".labels",
          "expected 1 to 16 labels like {role: load}, found " + Found(labels));
    return;
  }
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    const std::string value = String(it->second, field + ".labels." + key);
    if (!IsNameOf(key, "_.-/") || (!value.empty() && !IsNameOf(value, "_.-/"))) {
      Error(it->first, field + ".labels",
            "expected names of letters, digits, '_', '.', '-' or '/', found " + Quoted(key + "=" + value));
      continue;
    }
    (*agents->mutable_load_labels())[key] = value;
  }
}

void AgentsLoader::Load(const YAML::Node& root) {
  v1::AgentsSpec* agents = agents_;
  agents->set_min(1);
  agents->set_wait_ms(60000);
  agents->set_on_loss("abort");
  YAML::Node a = root["agents"];
  if (!a) return;
  if (!a.IsMap()) {
    Error(a, "agents", "expected a mapping like {min: 2}, found " + Found(a));
    return;
  }
  CheckKeys(a, "agents", {"min", "wait", "on_loss", "load", "split"});
  if (a["split"]) {
    std::string v = String(a["split"], "agents.split");
    if (v != "even" && v != "capacity")
      Error(a["split"], "agents.split", "expected even or capacity, found " + Quoted(v));
    agents->set_split(v == "capacity" ? "capacity" : "");
  }
  if (const YAML::Node load = a["load"]) LoadLoad(load);
  if (a["min"]) agents->set_min(static_cast<uint32_t>(UInt(a["min"], "agents.min", 1, 10000)));
  if (a["wait"]) agents->set_wait_ms(static_cast<uint32_t>(DurationMs(a["wait"], "agents.wait")));
  if (a["on_loss"]) {
    std::string v = String(a["on_loss"], "agents.on_loss");
    if (v != "abort" && v != "continue" && v != "redistribute") {
      Error(a["on_loss"], "agents.on_loss", "expected abort, continue or redistribute, found " + Quoted(v));
    }
    agents->set_on_loss(v);
  }
}

}  // namespace stampede::plan

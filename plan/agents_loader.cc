#include "plan/agents_loader.h"

#include <yaml-cpp/yaml.h>

#include "plan/plan_limits.h"

namespace stampede::plan {

// agents.load: all, nodes-free (the default), or {labels: {KEY: VALUE}}.
void AgentsLoader::LoadLoad(const YAML::Node& load) {
  v1::AgentsSpec* agents = agents_;
  const std::string field = "agents.load";
  if (load.IsScalar()) {
    // no-nodes is the default, written as nothing.
    agents->set_load(load.Scalar() == "no-nodes" ? "" : load.Scalar());
    return;
  }
  if (!load.IsMap()) {
    Error(load, field, "expected all, no-nodes or {labels: {role: load}}, found " + Found(load));
    return;
  }
  CheckKeys(load, field, {"labels"});
  const YAML::Node labels = load["labels"];
  if (!labels || !labels.IsMap() || labels.size() == 0) {
    Error(labels ? labels : load, field + ".labels",
          "expected 1 to 16 labels like {role: load}, found " + Found(labels));
    return;
  }
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    const std::string value = String(it->second, field + ".labels." + key);
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
    // even is the default, written as nothing.
    const std::string v = String(a["split"], "agents.split");
    agents->set_split(v == "even" ? "" : v);
  }
  if (const YAML::Node load = a["load"]) LoadLoad(load);
  if (a["min"]) agents->set_min(static_cast<uint32_t>(UInt(a["min"], "agents.min", 1, kMaxAgentsMin)));
  if (a["wait"]) agents->set_wait_ms(static_cast<uint32_t>(DurationMs(a["wait"], "agents.wait")));
  if (a["on_loss"]) agents->set_on_loss(String(a["on_loss"], "agents.on_loss"));
}

}  // namespace stampede::plan

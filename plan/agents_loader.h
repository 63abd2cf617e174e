// The agents: part of a plan: how many agents a run waits for and how long,
// what happens when one is lost, which of them generate load and how a
// phase's workers are split across them.
#ifndef STAMPEDE_PLAN_AGENTS_LOADER_H_
#define STAMPEDE_PLAN_AGENTS_LOADER_H_

#include <string>
#include <vector>

#include "plan/yaml_reader.h"
#include "proto/stampede.pb.h"

namespace stampede::plan {

class AgentsLoader : public YamlReader {
 public:
  // agents: the plan's (it must outlive this); filled with the defaults
  // where the plan says nothing.
  AgentsLoader(std::string file, std::vector<std::string>* errors, YamlPlaces* places, v1::AgentsSpec* agents)
      : YamlReader(std::move(file), errors, places), agents_(agents) {}

  void Load(const YAML::Node& root);

 private:
  void LoadLoad(const YAML::Node& load);

  v1::AgentsSpec* agents_;
};

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_AGENTS_LOADER_H_

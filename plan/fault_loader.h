// The parts of a plan about failure: faults: (when, what, on which node,
// repeated), recovery: (how recovery is measured) and target.health (how
// the cluster's health is polled). Read after the phases, which faults
// refer to.
#ifndef STAMPEDE_PLAN_FAULT_LOADER_H_
#define STAMPEDE_PLAN_FAULT_LOADER_H_

#include <string>
#include <vector>

#include "plan/yaml_reader.h"
#include "proto/stampede.pb.h"

namespace stampede::plan {

// A network fault's numbers for people: "5%", "5%, in", "20 ms ± 5 ms",
// "in" ("" for a process fault, or a partition both ways).
std::string NetFaultDetail(const v1::Fault& f);

class FaultLoader : public YamlReader {
 public:
  // plan: the plan being loaded (it must outlive this).
  FaultLoader(std::string file, std::vector<std::string>* errors, YamlPlaces* places, v1::Plan* plan)
      : YamlReader(std::move(file), errors, places), plan_(plan) {}

  void LoadFaults(const YAML::Node& root);
  void LoadRecovery(const YAML::Node& root);
  void LoadHealth(const YAML::Node& target);

 private:
  void LoadFault(const YAML::Node& f, const std::string& at);
  void LoadRoll(const YAML::Node& f, const std::string& at);
  void LoadWhen(const YAML::Node& f, const std::string& at, v1::Fault* fault);
  void LoadNet(const YAML::Node& f, const std::string& at, v1::Fault* fault);
  void LoadDisk(const YAML::Node& f, const std::string& at, v1::Fault* fault);
  void LoadSlowDisk(const YAML::Node& f, const std::string& at, v1::Fault* fault);
  uint64_t Bandwidth(const YAML::Node& b, const std::string& at);

  v1::Plan* plan_;
};

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_FAULT_LOADER_H_

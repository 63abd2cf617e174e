// The plan's expect: block: what the run must show, per phase and per kind
// of fault, each condition checked by record::ParseExpectation. Read after
// the phases, whose names it refers to.
//
//   expect:
//     phases: {"*": ["errors.fatal == 0"], insert: ["p99 < 20ms", "missed == 0"]}
//     (a stepped phase's name checks each step; "insert/InsertOne" one step)
//     faults: {kill: ["unavailability < 10s", "lowest_throughput >= 50%"]}
#ifndef STAMPEDE_PLAN_EXPECT_LOADER_H_
#define STAMPEDE_PLAN_EXPECT_LOADER_H_

#include <string>
#include <vector>

#include "plan/yaml_reader.h"
#include "proto/stampede.pb.h"

namespace stampede::plan {

class ExpectLoader : public YamlReader {
 public:
  // plan: the plan being loaded, its phases read (it must outlive this).
  ExpectLoader(std::string file, std::vector<std::string>* errors, YamlPlaces* places, v1::Plan* plan)
      : YamlReader(std::move(file), errors, places), plan_(plan) {}

  // e: the plan's expect: node.
  void LoadExpect(const YAML::Node& e);

 private:
  void LoadScope(const YAML::Node& map, const std::string& scope, const std::string& field);

  v1::Plan* plan_;
};

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_EXPECT_LOADER_H_

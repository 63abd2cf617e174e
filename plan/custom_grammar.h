// The grammar of statements a plan brings: setup:/cleanup: lists (one
// statement for every target, or one per driver or flavor) and the custom
// workload's operations, statements and parameter generators
// (docs/workloads.md, "custom"). Statements are resolved for the plan's
// target as they are read.
#ifndef STAMPEDE_PLAN_CUSTOM_GRAMMAR_H_
#define STAMPEDE_PLAN_CUSTOM_GRAMMAR_H_

#include <string>
#include <vector>

#include "plan/yaml_reader.h"
#include "proto/stampede.pb.h"

namespace stampede::plan {

class CustomGrammar : public YamlReader {
 public:
  // plan: the plan being loaded, whose target is read before any statement
  // (it must outlive this).
  CustomGrammar(std::string file, std::vector<std::string>* errors, YamlPlaces* places, const v1::Plan& plan)
      : YamlReader(std::move(file), errors, places), plan_(plan) {}

  void LoadStatements(const YAML::Node& n, const std::string& field,
                      google::protobuf::RepeatedPtrField<std::string>* out);
  void LoadCustom(const YAML::Node& n, const std::string& field, v1::CustomWorkload* out);

 private:
  bool ResolveStatement(const YAML::Node& st, const std::string& at, std::string* out);
  void LoadCustomStatement(const YAML::Node& n, const std::string& at, v1::CustomStatement* out);
  void LoadParamGen(const YAML::Node& n, const std::string& at, v1::ParamGen* g);

  const v1::Plan& plan_;
};

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_CUSTOM_GRAMMAR_H_

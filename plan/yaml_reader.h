// The plan loader's reading of YAML values: every scalar checked for its
// type (and a number for its range, with the text as written), every error
// recorded as FILE:LINE:COL: FIELD: message (the loader reports them all,
// not just the first). The plan's other rules are plan_validator's. The
// loader's readers (plan_loader.cc, fault_loader.cc, custom_grammar.cc, ...)
// read through it.
#ifndef STAMPEDE_PLAN_YAML_READER_H_
#define STAMPEDE_PLAN_YAML_READER_H_

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "plan/yaml_places.h"

namespace stampede::plan {

// Any one duration, and a run's timed phases together: 30 days.
inline constexpr int64_t kMaxDurationMs = int64_t(720) * 3600 * 1000;

// How a value looks, for "found ..." in a message: 'text' (cut), a list,
// a mapping, nothing.
std::string Found(const YAML::Node& n);

class YamlReader {
 public:
  // Errors go to *errors, which outlives the reader, and the places of
  // fields whose protobuf path differs from their YAML one to *places.
  YamlReader(std::string file, std::vector<std::string>* errors, YamlPlaces* places)
      : file_(std::move(file)), errors_(errors), places_(places) {}

 protected:
  const std::string& file() const { return file_; }
  size_t error_count() const { return errors_->size(); }

  // ---- errors
  void AddAt(int line, int col, const std::string& field, const std::string& msg);
  void Error(const YAML::Node& at, const std::string& field, const std::string& msg);
  static std::string Path(const std::string& prefix, const std::string& key);
  void Place(const std::string& proto_field, const std::string& yaml_field, const YAML::Node& node) {
    places_->Add(proto_field, yaml_field, node);
  }
  // Unknown keys of a mapping, with the nearest known one suggested.
  void CheckKeys(const YAML::Node& map, const std::string& prefix, const std::vector<std::string>& allowed);

  // ---- scalars: a wrong value records an error and gives 0, "" or false.
  std::string RequiredString(const YAML::Node& map, const std::string& key, const std::string& field);
  std::string String(const YAML::Node& n, const std::string& field);
  bool Bool(const YAML::Node& n, const std::string& field);
  // An integer in [min, max], 2^63 and above included.
  uint64_t UInt(const YAML::Node& n, const std::string& field, double min, double max);
  double Double(const YAML::Node& n, const std::string& field, double min, double max, bool exclusive_min);
  // A duration above zero and up to kMaxDurationMs.
  int64_t DurationMs(const YAML::Node& n, const std::string& field);

 private:
  std::string file_;
  std::vector<std::string>* errors_;
  YamlPlaces* places_;
};

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_YAML_READER_H_

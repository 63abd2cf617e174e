// libFuzzer target: any bytes as the protobuf plan a client submits
// (SubmitRun). The validator must refuse or accept it, never crash, hang or
// leak, and what the coordinator then does with an accepted plan (expand
// its steps, write it as YAML for the results) must not either.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>

#include "plan/plan_expander.h"
#include "plan/plan_validator.h"
#include "plan/plan_writer.h"

// Bytes that are not UTF-8 in a string field fail to parse; protobuf's log
// line about each would drown libFuzzer's own output.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  stampede::v1::Plan plan;
  if (!plan.ParseFromArray(data, int(size))) return 0;
  if (!stampede::plan::ValidatePlan(plan).empty()) return 0;
  const stampede::v1::Plan expanded = stampede::plan::ExpandSteps(plan);
  (void)expanded;
  (void)stampede::plan::PlanToYaml(plan);
  return 0;
}

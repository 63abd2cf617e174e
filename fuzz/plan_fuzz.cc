// libFuzzer target: any text as a plan. The loader must return errors or a
// plan, never crash, hang or leak; a plan it accepts must load again from its
// own normalized YAML (PlanToYaml), as a submitted plan is checked.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "plan/plan_loader.h"
#include "plan/plan_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto r = stampede::plan::LoadPlanText(text, "fuzz.yaml");
  if (!r.ok()) return 0;
  auto again = stampede::plan::LoadPlanText(stampede::plan::PlanToYaml(r.plan), "again.yaml");
  if (!again.ok()) std::abort();  // an accepted plan that its normal form does not load
  return 0;
}

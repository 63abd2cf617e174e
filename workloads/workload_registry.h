// The one list of workloads: {name, description, params, factory}.
#ifndef STAMPEDE_WORKLOADS_WORKLOAD_REGISTRY_H_
#define STAMPEDE_WORKLOADS_WORKLOAD_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "workloads/workload.h"

namespace stampede::workloads {

// One step of a stepped workload. The coordinator runs each step as its own
// phase (a barrier across all agents between steps), with `workers` workers
// and exactly `ops` operations (0: the plan phase's ops or duration).
struct StepSpec {
  std::string name;  // the step ("InsertOne", "load")
  uint32_t workers = 0;
  uint64_t ops = 0;
  bool writes = false;  // its inserts can be read back (check_writes applies)
};

// The index of `step` among a stepped workload's `names`: 0 for "" (the
// plan validator builds the workload without a step), an error naming
// `workload` for a step it does not have.
StatusOr<int> StepIndex(const std::string& workload, const std::vector<std::string>& names, const std::string& step);

struct WorkloadInfo {
  std::string name;
  std::string description;
  const std::vector<ParamSpec>& (*param_specs)();
  StatusOr<std::unique_ptr<Workload>> (*factory)(const WorkloadContext&, const Params&);
  // Stepped workloads only (nullptr otherwise): the steps for a phase of
  // `workers` workers; none: the phase runs as it is.
  std::vector<StepSpec> (*steps)(const Params&, uint32_t workers) = nullptr;
  // Loads whose progress is counted in rows (their workers' rows(), as
  // the runner takes them): the rows `step` will put in; 0: not in rows.
  uint64_t (*progress_rows)(const Params&, const std::string& step) = nullptr;
};

const std::vector<WorkloadInfo>& Workloads();
const WorkloadInfo* FindWorkload(const std::string& name);
std::vector<std::string> WorkloadNames();
Status CheckWorkloadRegistry();

// The rows a phase of `workload` (with `params`, as written) running `step`
// will put in, when its progress is counted in rows; else 0.
uint64_t ProgressRows(const std::string& workload, const std::map<std::string, std::string>& params,
                      const std::string& step);

// Looks the workload up, fills defaults and builds it.
StatusOr<std::unique_ptr<Workload>> CreateWorkload(const std::string& name, const WorkloadContext& ctx,
                                                   const std::map<std::string, std::string>& params);

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_WORKLOAD_REGISTRY_H_

// geo: points on a map. Insert points, search the N nearest within a radius
// of a random place, move points. PostgreSQL with the cube and
// earthdistance extensions (a GiST index on ll_to_earth(lat, lon)), or
// Redis GEOADD / GEOSEARCH on one sorted set.
//
// With `load: true` (the default) the phase runs in two steps: `load`
// inserts `points` points (worker g of W: ids g, g+W, ...) and `run` runs
// the search / move / insert mix for the phase's duration, ops or stages.
// Points are uniform in a square of `span_km` around (center_lat,
// center_lon).
#ifndef STAMPEDE_WORKLOADS_GEO_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_GEO_WORKLOAD_H_

#include "workloads/workload.h"
#include "workloads/workload_registry.h"

namespace stampede::workloads {

class GeoWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);
  static std::vector<StepSpec> Steps(const Params& params, uint32_t workers);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;

  enum Op { kInsert = 0, kSearch, kMove, kNumOps };
  static constexpr uint64_t kPhaseIdSpan = 1'000'000'000'000;

  struct Config {
    uint64_t points = 0;
    double center_lat = 0, center_lon = 0;
    double half_lat_deg = 0, half_lon_deg = 0;
    double radius_m = 0;
    int64_t nearest = 500;
    uint64_t weights[kNumOps] = {};
    bool load = false;
    bool redis = false;
  };

 private:
  GeoWorkload() = default;
  WorkloadContext ctx_;
  Config config_;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_GEO_WORKLOAD_H_

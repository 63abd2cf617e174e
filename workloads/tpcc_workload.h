// tpcc: TPC-C's schema, loaded with the specification's cardinalities for
// `warehouses` warehouses, and its consistency conditions 1 to 4 checked
// (workloads/tpcc_sql.h). Steps:
//
//   load   every district in three parts (warehouses x 30 operations, each
//          one transaction), the tables created if missing and emptied
//          first; only with `load: true`
//   check  the conditions, one operation each; a condition that fails is
//          an anomaly (tpcc_ytd, tpcc_order_ids, tpcc_new_orders,
//          tpcc_order_lines) naming the first district and the two values
//
// The five transactions are not written yet (issue 32).
#ifndef STAMPEDE_WORKLOADS_TPCC_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_TPCC_WORKLOAD_H_

#include "workloads/tpcc_sql.h"
#include "workloads/workload.h"
#include "workloads/workload_registry.h"

namespace stampede::workloads {

class TpccWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);
  static std::vector<StepSpec> Steps(const Params& params, uint32_t workers);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;

  enum Op { kLoad = 0, kCheck };
  // Statement indexes: the load statements (tpcc::Load), then the checks.
  static constexpr int kFirstCheck = tpcc::kNumLoad;

 private:
  TpccWorkload() = default;
  WorkloadContext ctx_;
  Op op_ = kLoad;
  int warehouses_ = 1;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_TPCC_WORKLOAD_H_

// tpcc: TPC-C for `warehouses` warehouses (workloads/tpcc_sql.h,
// tpcc_txn.h, tpcc_terminal.h). Steps:
//
//   load   every district in three parts (warehouses x 30 operations, each
//          one transaction), the tables created if missing and emptied
//          first; only with `load: true`
//   check  the conditions, one operation each; a condition that fails is
//          an anomaly (tpcc_ytd, tpcc_order_ids, tpcc_new_orders,
//          tpcc_order_lines, tpcc_undelivered, tpcc_history) naming the
//          first district (or warehouse) and the two values
//   run    the five transactions in the mix, each an op of its own name,
//          for the phase's duration or ops; terminal g's home warehouse is
//          g mod W + 1, or with `wait` (10 terminals per warehouse) g / 10 + 1
//          and its Stock-Level district g mod 10 + 1
//   check  the conditions again
#ifndef STAMPEDE_WORKLOADS_TPCC_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_TPCC_WORKLOAD_H_

#include <array>
#include <atomic>
#include <memory>

#include "workloads/tpcc_sql.h"
#include "workloads/tpcc_txn.h"
#include "workloads/workload.h"
#include "workloads/workload_registry.h"

namespace stampede::workloads {

// The load step's rows on this agent, for its note: rows the parts
// inserted, from the first part's start to the last worker's end.
struct TpccLoadTally {
  std::atomic<int64_t> rows{0}, first_ns{0};
  std::atomic<int> workers{0}, finished{0};
};

class TpccWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);
  static std::vector<StepSpec> Steps(const Params& params, uint32_t workers);
  // The load step's rows, for its progress: the specification's
  // cardinalities (order lines average 10 an order, so the count is close,
  // not exact); 0 for the other steps.
  static uint64_t LoadRows(const Params& params, const std::string& step);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;
  bool paced() const override { return op_ == kRun && wait_ > 0; }

  // Steps; kRun's ops are the transactions, from kNewOrderOp on.
  enum Op { kLoad = 0, kCheck, kRun };
  static constexpr int kNewOrderOp = 2;
  // Statement indexes: the load statements (tpcc::Load), the checks, the
  // transactions' (tpcc::TxStmt).
  static constexpr int kFirstCheck = tpcc::kNumLoad;
  static constexpr int kFirstTxnStatement = kFirstCheck + tpcc::kNumChecks;

 private:
  TpccWorkload() = default;
  WorkloadContext ctx_;
  Op op_ = kLoad;
  int warehouses_ = 1;
  int c_load_ = 0;
  double wait_ = 0;
  std::shared_ptr<TpccLoadTally> tally_ = std::make_shared<TpccLoadTally>();
  std::array<int, tpcc::kNumTxns> mix_{};
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_TPCC_WORKLOAD_H_

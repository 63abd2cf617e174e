// crud: insert / select / update / delete on a two-column table
// (id BIGINT PRIMARY KEY, foo VARCHAR), like the original dbbench.
//
// Worker g of W inserts ids B+g, B+g+W, B+g+2W, ... (B = phase index x
// 10^12) so workers, agents and phases never insert the same key; a phase of
// N inserts fills [B, B+N) exactly. Select/update/delete draw uniformly from [0, keys)
// when `keys` is set, otherwise from the ids this worker has inserted in the
// phase, otherwise they walk the same id sequence an insert phase with the
// same worker count would have produced.
#ifndef STAMPEDE_WORKLOADS_CRUD_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_CRUD_WORKLOAD_H_

#include "workloads/workload.h"
#include "workloads/workload_registry.h"

namespace stampede::workloads {

class CrudWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);
  // `iter` set: one "step" of iter operations per worker (no plan steps).
  static std::vector<StepSpec> Steps(const Params& params, uint32_t workers);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;
  int transaction_size() const override { return txn_; }
  int transaction_op() const override { return kTxn; }
  std::string ReadBack(int64_t id, drivers::OpRequest* request) const override;
  std::string PipelineBlocker() const override { return txn_ > 1 ? "crud with txn > 1 runs transactions" : ""; }
  std::string BatchBlocker() const override;

  enum Op { kInsert = 0, kSelect, kUpdate, kDelete, kNumOps };
  static constexpr int kTxn = kNumOps;  // reported op of a multi-statement transaction
  static constexpr int kMaxTxn = 16;
  // Phase p inserts ids from p * kPhaseIdSpan up.
  static constexpr uint64_t kPhaseIdSpan = 1'000'000'000'000;

 private:
  CrudWorkload() = default;
  WorkloadContext ctx_;
  uint64_t weights_[kNumOps] = {};
  uint64_t keys_ = 0;
  int value_size_ = 10;
  int txn_ = 1;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_CRUD_WORKLOAD_H_

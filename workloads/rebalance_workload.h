// rebalance2021: the automatic-rebalance benchmark. N workers x M records
// on one table bar1(id BIGINT PRIMARY KEY, foo VARCHAR(10) UNIQUE), in five
// steps with a barrier (across all agents) between them:
//
//   InsertOne  INSERT INTO bar1 (id, foo) VALUES ($1, $2)   N x M, autocommit
//   Count      SELECT COUNT(1) FROM bar1                    once
//   UpdateOne  UPDATE bar1 SET foo = $2 WHERE id = $1       N x M
//   Count      SELECT COUNT(1) FROM bar1                    once
//   SelectOne  SELECT foo FROM bar1 WHERE id = $1           N x M
//
// Worker g handles ids g*M .. g*M+M-1 in every step, as the original did.
// foo is unique by construction: random characters followed by the id in
// base 62. The table is created if missing and emptied first (`reset`).
// Redis: keys bar1:<id>, SET / SET XX / GET, Count by a server-side SCAN.
#ifndef STAMPEDE_WORKLOADS_REBALANCE_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_REBALANCE_WORKLOAD_H_

#include "workloads/workload.h"
#include "workloads/workload_registry.h"

namespace stampede::workloads {

class RebalanceWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);
  static std::vector<StepSpec> Steps(const Params& params, uint32_t workers);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;
  std::string ReadBack(int64_t id, drivers::OpRequest* request) const override;
  std::string PipelineBlocker() const override { return ""; }

  enum Op { kInsertOne = 0, kCount, kUpdateOne, kSelectOne };
  // foo ends with the id in this many base-62 digits (62^6 > 5 x 10^10 ids).
  static constexpr int kIdDigits = 6;

 private:
  RebalanceWorkload() = default;
  WorkloadContext ctx_;
  Op op_ = kInsertOne;
  uint64_t records_ = 100;
  uint64_t expected_rows_ = 0;
  int value_size_ = 10;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_REBALANCE_WORKLOAD_H_

// orm2019: the origin's ORM benchmark (Go ORMs on MemSQL), as its raw-SQL
// baseline would run it: one table of models
//
//   id BIGINT PRIMARY KEY, name, title, fax, web VARCHAR(255),
//   age INT, right BOOLEAN, counter BIGINT
//
// every row the same model ("Orm Benchmark", "Just a Benchmark for fun",
// "99909990", "http://blog.milkpod29.me", 100, true, 1000), in five steps
// with a barrier between them, counts as the origin's (times `scale`):
//
//   Insert       INSERT one model                             10,000
//   MultiInsert  INSERT 100 models in one statement             2,500
//   Update       UPDATE every column of a model by id         10,000
//   Read         SELECT a model by id                         20,000
//   MultiRead    SELECT models WHERE id > 0 LIMIT 100         10,000
//
// Operation n of a step (worker g does n = g, g + W, ...) inserts id n
// (Insert) or ids I + 100 n .. I + 100 n + 99 (MultiInsert, I = Insert's
// count); Update and Read go over Insert's ids in order. The report's step
// recap has each step's time and ns/op. SQL targets only.
#ifndef STAMPEDE_WORKLOADS_ORM_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_ORM_WORKLOAD_H_

#include "workloads/workload.h"
#include "workloads/workload_registry.h"

namespace stampede::workloads {

class OrmWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);
  static std::vector<StepSpec> Steps(const Params& params, uint32_t workers);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;
  std::string ReadBack(int64_t id, drivers::OpRequest* request) const override;

  enum Op { kInsert = 0, kMultiInsert, kUpdate, kRead, kMultiRead, kNumOps };
  static constexpr int kColumns = 8;
  static constexpr int kMultiRows = 100;

  struct Counts {
    uint64_t steps[kNumOps] = {};
  };
  static Counts CountsOf(const Params& params);

 private:
  OrmWorkload() = default;
  WorkloadContext ctx_;
  Counts counts_;
  Op op_ = kInsert;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_ORM_WORKLOAD_H_

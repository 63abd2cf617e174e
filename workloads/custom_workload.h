// custom: operations declared in the plan. Each op has a weight and one or
// more statements (run in order, measured as one op; `txn: true` makes them
// one transaction on SQL targets), each statement its parameter generators:
// sequence, uniform, zipfian, string, uuid, now, choice, value, and `from`
// (a value an earlier op of the same worker used: one of its last 1024,
// the same one for every `from` of one op execution).
// The plan loader parses and checks the `custom:` block; this turns it into
// prepared statements and per-worker generators.
#ifndef STAMPEDE_WORKLOADS_CUSTOM_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_CUSTOM_WORKLOAD_H_

#include <memory>

#include "workloads/random_string.h"
#include "workloads/workload.h"
#include "workloads/zipfian_generator.h"

namespace stampede::workloads {

class CustomWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;
  // Pipelined only if every op is one statement whose values no `from`
  // parameter reads (those are taken when the op's result comes back).
  std::string PipelineBlocker() const override;

  int FindOp(const std::string& name) const;

  static constexpr int kMaxStatementsPerOp = 16;
  static constexpr size_t kFromRing = 1024;  // remembered values per referenced op

  struct Op {
    std::string name;
    uint64_t weight = 1;
    bool txn = false;
    int first = 0;  // statements [first, first + count)
    int count = 1;
    bool referenced = false;  // some `from` reads this op's values
  };

 private:
  CustomWorkload() = default;
  friend class CustomWorker;
  WorkloadContext ctx_;
  v1::CustomWorkload spec_;
  std::vector<Op> op_info_;
  std::vector<int> statement_op_;  // statement -> op
  // zipfian generators by (statement, param) index.
  std::vector<std::vector<std::shared_ptr<const ZipfianGenerator>>> zipf_;
  // What every worker draws by, built once and shared: the ops' cumulative
  // weights and, by statement, each parameter's generator and `from` op. A
  // worker's own state is then touched only where it keeps some: at 1,000
  // workers every per-worker block is one more cache miss per operation.
  std::vector<uint64_t> cumulative_;
  struct ParamPlan {
    uint8_t kind = 0;  // the generator (custom_workload.cc's Kind)
    int from_op = -1;  // `from`: the op whose values it reads
  };
  std::vector<std::vector<ParamPlan>> params_;
  std::unique_ptr<const RandomText> text_;  // values of string params
};

// Whether a statement only reads (by its first word): a lost connection
// during a read is not ambiguous.
bool CustomStatementIsRead(const std::string& text);

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_CUSTOM_WORKLOAD_H_

// register: stale reads across endpoints (docs/consistency.md). Workers go
// in pairs over one key each: the even one writes ever larger values
// through its endpoint, the odd one reads the key through its own. With
// the default round-robin balance and two endpoints the writer's is the
// first and the reader's the second. A read that began after a value was
// acknowledged but returns an older one is a stale_read anomaly, with how
// long before the read that value was acknowledged (at least).
//
// The pair shares what was acknowledged through the workload (atomics, no
// lock), so it is checked when both workers run on one agent: one agent
// runs them all, and several agents each run a contiguous share of the
// workers, whose pairs split at most at the share's ends.
#ifndef STAMPEDE_WORKLOADS_REGISTER_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_REGISTER_WORKLOAD_H_

#include <atomic>
#include <memory>
#include <vector>

#include "workloads/workload.h"

namespace stampede::workloads {

// The newest value acknowledged for each key, and when (monotonic ns).
struct Registers {
  struct Slot {
    std::atomic<int64_t> acked_ns{0};
    std::atomic<int64_t> value{0};
  };
  explicit Registers(size_t n) : slots(n) {}
  std::vector<Slot> slots;
};

class RegisterWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;

  enum Stmt { kReadStmt = 0, kWriteStmt = 1 };
  enum Op { kWriteOp = 0, kReadOp = 1 };

 private:
  RegisterWorkload() = default;
  std::shared_ptr<Registers> registers_;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_REGISTER_WORKLOAD_H_

// bank: Jepsen's bank test at load-test scale (docs/consistency.md).
// `accounts` accounts start with `balance` each. Transfers move a random
// amount between two random accounts; reads sum every balance in one
// statement, and a sum other than accounts x balance is a wrong_total
// anomaly. After the phase one worker of each agent reads the total once
// more (the final read).
//
// The transfer is an interactive transaction (WorkerOps::Continue): both
// rows are locked in id order (SELECT ... FOR UPDATE), the source's
// balance checked (too little: rolled back), then both updated relative to
// what they hold. `naive: true` reads both balances without locks and
// writes back the absolute values it computed, as a careless application
// does: concurrent transfers then lose updates and the total drifts, which
// is how the checker is shown to see real anomalies.
//
// Redis: the accounts are one hash (one slot on a cluster); a transfer is
// one Lua script (atomic, as MULTI/EXEC with WATCH would be, without its
// retries); naive: two reads and two writes in turn.
#ifndef STAMPEDE_WORKLOADS_BANK_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_BANK_WORKLOAD_H_

#include <memory>

#include "workloads/workload.h"

namespace stampede::workloads {

class BankWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;

  // Statement indexes.
  enum Stmt { kRead = 0, kLockRead = 1, kWrite = 2 };
  enum Op { kTransferOp = 0, kReadOp = 1 };

 private:
  BankWorkload() = default;
  void SqlStatements(const std::string& table, const Params& params);
  void RedisStatements(const std::string& table, const Params& params);
  WorkloadContext ctx_;
  int64_t accounts_ = 10;
  int64_t balance_ = 100;
  int64_t max_transfer_ = 5;
  double read_fraction_ = 0.5;
  bool naive_ = false;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_BANK_WORKLOAD_H_

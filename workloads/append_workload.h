// append: Elle's list-append at load-test scale (docs/consistency.md).
// Each key holds a list; a transaction is 1 to `ops` micro-operations, each
// an append of a unique value to a key's list or a read of a key's list.
// Workers record every transaction's invocation and completion in their
// history (common/history_log.h); the coordinator writes it to
// history.jsonl in Elle's list-append JSON and checks it
// (report/history_check.h). After the phase one worker of each agent reads
// every key once more: the final reads, which say what survived.
//
// Keys rotate: `keys` keys take about `key_appends` appends each, then the
// next `keys` are written, so lists stay short however long the run (each
// worker moves on after its share of a generation's appends; workers that
// run at one pace stay on the same keys). Values are unique across the
// phase (the worker's count x workers + its index + 1), and keys unique
// across phases (the phase index in their top bits).
//
// PostgreSQL (CockroachDB, YugabyteDB) appends with INSERT ... ON CONFLICT
// DO UPDATE, MySQL (MariaDB, TiDB) with ON DUPLICATE KEY UPDATE; the list
// is the text "1,5,9". Each transaction runs interactively
// (WorkerOps::Continue) at the plan's target.isolation, else the server's
// default. On Redis (not redis-cluster) a transaction is one Lua script
// (RPUSH, LRANGE), atomic as every script: TABLE:KEY holds a list.
#ifndef STAMPEDE_WORKLOADS_APPEND_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_APPEND_WORKLOAD_H_

#include <memory>

#include "workloads/workload.h"

namespace stampede::workloads {

class AppendWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;
  bool keeps_history() const override { return true; }

  enum Stmt { kAppend = 0, kRead = 1, kScript = 0 /* Redis: the one statement */ };
  enum Op { kTxnOp = 0 };
  // The first key of a phase's key space.
  static int64_t KeyBase(uint32_t phase_index) { return int64_t(phase_index) << 40; }

  struct Shape {
    int64_t keys = 10;
    int64_t worker_appends = 40;  // a worker's appends before it moves to the next keys
    int max_mops = 4;
    double read_fraction = 0.5;
    uint32_t workers = 1;
    int64_t key_base = 0;
  };

 private:
  AppendWorkload() = default;
  WorkloadContext ctx_;
  Shape shape_;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_APPEND_WORKLOAD_H_

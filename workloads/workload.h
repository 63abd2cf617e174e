// Workloads produce operations; the runner runs them.
//
// A Workload is built once per phase on each agent and is read-only after
// construction (shared by that agent's workers). Each worker gets its own
// WorkerOps, which fills one operation at a time. Everything is derived from
// (seed, phase index, global worker index, total workers), never from the
// agent's share, so a plan distributes by sending the plan alone.
#ifndef STAMPEDE_WORKLOADS_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_WORKLOAD_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/anomaly.h"
#include "common/history_log.h"
#include "common/status.h"
#include "drivers/driver.h"
#include "drivers/driver_registry.h"
#include "proto/stampede.pb.h"
#include "workloads/write_ledger.h"

namespace stampede::workloads {

// A workload parameter as the plan may set it.
struct ParamSpec {
  enum class Type { kInt, kDouble, kString, kBool, kChoice };
  std::string name;
  Type type = Type::kInt;
  std::string default_value;
  std::string description;
  std::vector<std::string> choices;  // kChoice
  double min = 0;                    // kInt, kDouble
  double max = 1e18;
};

// Typed view of a phase's params, defaults filled from the specs. Values were
// validated by the plan loader; accessors assume they parse.
class Params {
 public:
  Params(const std::vector<ParamSpec>& specs, const std::map<std::string, std::string>& values);
  int64_t Int(const std::string& name) const;
  double Double(const std::string& name) const;
  bool Bool(const std::string& name) const;
  const std::string& Str(const std::string& name) const;

 private:
  std::map<std::string, std::string> values_;
};

struct WorkloadContext {
  drivers::Dialect dialect = drivers::Dialect::kPostgres;
  std::string flavor;  // target.flavor
  uint64_t seed = 0;
  uint32_t phase_index = 0;
  uint32_t total_workers = 1;                  // across all agents
  std::string step;                            // stepped workloads: the step this phase runs
  uint32_t group_workers = 0;                  // stepped workloads: the plan phase's workers
  const v1::CustomWorkload* custom = nullptr;  // workload: custom (the phase's block)
  uint32_t pipeline = 1;                       // Phase.pipeline: operations drawn before the first is observed
  uint32_t batch = 1;                          // Phase.batch: rows per insert statement
  bool open_loop = false;                      // Phase.rate, or stages with a rate
};

// One worker's operation source. Not thread-safe.
class WorkerOps {
 public:
  virtual ~WorkerOps() = default;
  // Fills *request for the next operation and returns its op index (into
  // Workload::ops()). String parameters point into storage owned by this
  // object and stay valid until the next call.
  virtual int Next(drivers::OpRequest* request) = 0;
  // Operations of more than one statement (YCSB's read-modify-write; a
  // Redis insert that also indexes its key): after a statement succeeded,
  // fills the next one and returns true. The op's latency covers them all.
  virtual bool More(drivers::OpRequest* request) {
    (void)request;
    return false;
  }
  // Statements the op from the last Next() runs as one transaction (the
  // runner fetches the rest with More() first); 1: not a transaction;
  // kInteractive: an interactive transaction (Continue).
  virtual int TransactionSize() const { return 1; }
  static constexpr int kInteractive = -1;
  // Interactive transactions (TransactionSize() == kInteractive), whose
  // statements depend on what the ones before returned (bank's transfer):
  // the runner begins a transaction, runs the statement Next() filled, and
  // then asks here, with step statements done in this attempt and the last
  // one's result, for the next statement (kNext, *request filled), or how
  // to end it. A retried transaction starts again from Next()'s statement
  // (step 1 again). Redis: the statements run in turn, not in a
  // transaction.
  enum class Then { kCommit, kNext, kRollback };
  virtual Then Continue(int step, const drivers::OpResult& last, drivers::OpRequest* request) {
    (void)step;
    (void)last;
    (void)request;
    return Then::kCommit;
  }
  // Sees the result of the operation Next() produced last (after retries);
  // pipelined (WorkloadContext::pipeline), of the oldest not yet observed.
  virtual void Observe(int op, const drivers::OpResult& result) {
    (void)op;
    (void)result;
  }
  // Once, when the worker is done: a line for the run's notes, or "".
  virtual std::string Finish() { return {}; }
  // A final read after the phase, by one worker of each agent once its
  // other workers are done (bank: every balance once more): fills *request
  // and returns its op index, whose result goes to Observe (not counted as
  // an operation); -1: no more. Called until it returns -1 (append reads
  // each key in turn).
  virtual int FinalRead(drivers::OpRequest* request) {
    (void)request;
    return -1;
  }
  // Workload::paced(): how long the worker waits before its next operation
  // (TPC-C's think time after the last transaction and keying time of the
  // next), in ns; the operation's latency starts after it. Closed loop only.
  virtual int64_t PauseNs() { return 0; }
  // A consistency anomaly the last Observe() found (common/anomaly.h): the
  // runner takes it right after, with its time and endpoint.
  bool flagged() const { return flagged_; }
  AnomalyNote TakeFlag() {
    flagged_ = false;
    return flag_;
  }
  // Rows the last Observe() put in (a load whose progress is counted in
  // rows: WorkloadInfo::progress_rows); the runner takes them right after.
  // 0 for most workloads.
  uint64_t rows() const { return rows_; }
  uint64_t TakeRows() {
    const uint64_t r = rows_;
    rows_ = 0;
    return r;
  }
  // The inserts this worker's operations acknowledged, for check_writes;
  // null if the workload cannot say (see Workload::ReadBack).
  virtual const WriteLedger* writes() const { return nullptr; }
  // Workload::keeps_history(): where this worker records its transactions
  // (the runner's, drained by its collector), and the endpoint it is on
  // (the runner's, read on the worker's thread), before its first Next().
  virtual void SetHistory(HistoryLog* log, const int* endpoint) {
    (void)log;
    (void)endpoint;
  }

 protected:
  void Flag(const AnomalyNote& note) {
    flag_ = note;
    flagged_ = true;
  }
  void AddRows(uint64_t n) { rows_ += n; }

 private:
  AnomalyNote flag_;
  bool flagged_ = false;
  uint64_t rows_ = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  // Op names as reported ("insert", "select", ...).
  virtual const std::vector<std::string>& ops() const = 0;
  // Statements to prepare on every connection, in the target's dialect.
  virtual const std::vector<drivers::StatementSpec>& statements() const = 0;
  // One-off statements run once, by agent 0, before the phase starts.
  virtual std::vector<std::string> SetupStatements() const = 0;
  // What each setup statement adds to the work a user waits for (a
  // preload's rows), in SetupUnit() ("keys"); 0 for the rest. The lead
  // says how far it is. Empty: nothing counted.
  virtual std::vector<uint64_t> SetupUnits() const { return {}; }
  virtual std::string SetupUnit() const { return ""; }
  virtual std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const = 0;
  // Statements per operation: above 1, the runner asks WorkerOps::Next that
  // many times and runs the statements as one transaction, counted as op
  // transaction_op().
  virtual int transaction_size() const { return 1; }
  virtual int transaction_op() const { return -1; }
  // check_writes: fills *request to read the row or key `id` back (found:
  // OpResult.rows > 0) and returns "", or says why this phase's writes
  // cannot be checked.
  virtual std::string ReadBack(int64_t id, drivers::OpRequest* request) const {
    (void)id;
    (void)request;
    return "the workload inserts no keys it can read back (crud does)";
  }
  // Phase.pipeline: "" if every operation is one statement whose result the
  // worker needs only after the rest of the batch was sent (and its
  // WorkerOps honours WorkloadContext::pipeline), or why not.
  virtual std::string PipelineBlocker() const {
    return "its operations are not pipelined yet (crud, kv, rebalance2021 and custom are)";
  }
  // Phase.batch: "" if its inserts honour WorkloadContext::batch (rows per
  // statement, each row's insert index still its own in the ledger), or
  // why not.
  virtual std::string BatchBlocker() const { return "its inserts are not batched (crud's are)"; }
  // Its workers record a history of transactions (WorkerOps::SetHistory),
  // which the coordinator writes to history.jsonl and checks.
  virtual bool keeps_history() const { return false; }
  // Its workers pause before each operation (WorkerOps::PauseNs).
  virtual bool paced() const { return false; }
};

// The usual shape: op names, prepared statements and setup statements that
// the workload's factory fills in.
class StatementWorkload : public Workload {
 public:
  const std::vector<std::string>& ops() const override { return ops_; }
  const std::vector<drivers::StatementSpec>& statements() const override { return statements_; }
  std::vector<std::string> SetupStatements() const override { return setup_; }
  std::vector<uint64_t> SetupUnits() const override { return setup_units_; }
  std::string SetupUnit() const override { return setup_unit_; }

 protected:
  // Setup statements counted in `unit`, one per range of [0, n) of at most
  // `chunk` (first, last), after the ones already in setup_.
  template <typename Statement>
  void AddCountedSetup(uint64_t n, uint64_t chunk, const std::string& unit, Statement statement) {
    setup_units_.resize(setup_.size(), 0);
    setup_unit_ = unit;
    for (uint64_t first = 0; first < n; first += chunk) {
      const uint64_t last = std::min(n, first + chunk) - 1;
      setup_.push_back(statement(first, last));
      setup_units_.push_back(last - first + 1);
    }
  }

  std::vector<std::string> ops_;
  std::vector<drivers::StatementSpec> statements_;
  std::vector<std::string> setup_;
  std::vector<uint64_t> setup_units_;
  std::string setup_unit_;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_WORKLOAD_H_

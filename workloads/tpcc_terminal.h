// One TPC-C terminal: it draws a transaction from the mix with the inputs
// of clauses 2.4 to 2.8 and runs it as an interactive transaction, each
// statement's parameters in the terminal's own storage (nothing is
// allocated per transaction).
#ifndef STAMPEDE_WORKLOADS_TPCC_TERMINAL_H_
#define STAMPEDE_WORKLOADS_TPCC_TERMINAL_H_

#include <array>

#include "workloads/tpcc_txn.h"
#include "workloads/workload.h"

namespace stampede::workloads::tpcc {

struct TerminalConfig {
  int warehouses = 1;
  int home = 1;                     // W_ID
  int district = 1;                 // Stock-Level's D_ID, fixed per terminal (clause 2.8.1.2)
  int first_op = 0;                 // the op index of new_order; the others follow in Txn order
  int first_stmt = 0;               // the statement index of kNoDistrict
  bool mysql = false;               // New-Order takes the order id with SELECT ... FOR UPDATE, then UPDATE
  std::array<int, kNumTxns> mix{};  // weights
  RunConstants c;
  uint64_t seed = 0;
  // Keying and think times (clause 5.2.5.7), scaled: 1 the specification's,
  // 0 none (PauseNs is not asked).
  double wait = 0;
};

// Clause 5.2.5.7, in seconds per transaction type: the keying time before
// it, and the mean think time after it (negative exponential, cut at 10
// times the mean).
constexpr double kKeyingS[kNumTxns] = {18, 3, 2, 2, 2};
constexpr double kThinkMeanS[kNumTxns] = {12, 12, 10, 5, 5};

class Terminal : public WorkerOps {
 public:
  explicit Terminal(const TerminalConfig& config) : cfg_(config), rng_(config.seed) {}

  int Next(drivers::OpRequest* req) override;
  // The think time of the transaction before (none before the first) and
  // the keying time of the next, which it draws here; scaled by wait.
  int64_t PauseNs() override;
  int TransactionSize() const override { return kInteractive; }
  Then Continue(int step, const drivers::OpResult& last, drivers::OpRequest* req) override;

 private:
  static constexpr int kMaxLines = 15;
  int Rand(int lo, int hi) { return lo + int(rng_.Uniform(uint64_t(hi - lo) + 1)); }
  Txn DrawTxn();
  int OtherWarehouse();
  void Customer();  // by last name (60%) or by id
  void Fill(drivers::OpRequest* req, TxStmt stmt, std::initializer_list<int64_t> ints) const;
  void FillByName(drivers::OpRequest* req, int w, int d) const;
  void DrawNewOrder();
  Then NewOrder(int step, const drivers::OpResult& last, drivers::OpRequest* req);
  Then Payment(int step, const drivers::OpResult& last, drivers::OpRequest* req);
  Then OrderStatus(int step, const drivers::OpResult& last, drivers::OpRequest* req);
  Then Delivery(int step, const drivers::OpResult& last, drivers::OpRequest* req);

  TerminalConfig cfg_;
  Rng rng_;
  Txn txn_ = kNewOrder;
  bool drawn_ = false;  // PauseNs drew txn_ for the next Next()
  bool started_ = false;
  // Inputs, drawn by Next(); kept for the transaction's retries.
  int d_ = 1, c_w_ = 1, c_d_ = 1, c_ = 1;
  bool by_name_ = false;
  char last_[16] = {};
  int last_len_ = 0;
  int amount_ = 0;  // Payment, cents; Delivery: O_CARRIER_ID; Stock-Level: the threshold
  int ol_cnt_ = 0;
  bool all_local_ = true;
  std::array<int, kMaxLines> item_{}, supply_{}, qty_{};
  // From the statements: the order id, the customer found by name.
  int64_t o_id_ = 0;
  int at_ = 0;  // Delivery: district and stage, as stage + 5 x (district - 1)
};

}  // namespace stampede::workloads::tpcc

#endif  // STAMPEDE_WORKLOADS_TPCC_TERMINAL_H_

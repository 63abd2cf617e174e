// TPC-C's five transactions (clause 2): their statements in both dialects,
// and the random inputs of clause 2.1.6. A transaction is an interactive
// one (WorkerOps::Continue): each statement's parameters come from the
// terminal's inputs and what the statements before it returned.
#ifndef STAMPEDE_WORKLOADS_TPCC_TXN_H_
#define STAMPEDE_WORKLOADS_TPCC_TXN_H_

#include <cstdint>
#include <vector>

#include "common/rng.h"
#include "drivers/driver.h"
#include "drivers/driver_registry.h"

namespace stampede::workloads::tpcc {

enum Txn { kNewOrder = 0, kPayment, kOrderStatus, kDelivery, kStockLevel, kNumTxns };
constexpr const char* kTxnNames[kNumTxns] = {"new_order", "payment", "order_status", "delivery", "stock_level"};
// The specification's mix (clause 5.2.3), in percent.
constexpr int kDefaultMix[kNumTxns] = {45, 43, 4, 4, 4};

// Statement indexes, from the first transaction statement.
enum TxStmt {
  kNoDistrict = 0,  // the district's next order id, taken (PostgreSQL: UPDATE ... RETURNING)
  kNoDistrictBump,  // MySQL: the UPDATE after SELECT ... FOR UPDATE
  kNoCustomer,
  kNoOrder,
  kNoNewOrder,
  kNoStock,  // no row: the unused item, rolled back
  kNoLine,
  kPayWarehouse,
  kPayDistrict,
  kByName,  // the customer at position ceil(n / 2) by first name
  kPayCustomer,
  kPayHistory,
  kOsCustomer,
  kOsLastOrder,
  kOsLines,
  kDlOldest,
  kDlDelete,
  kDlCarrier,
  kDlLines,
  kDlCustomer,
  kSlCount,
  kNumTxStmts
};

std::vector<drivers::StatementSpec> TxnStatements(drivers::Dialect dialect);

// NURand(A, x, y) with the run's C (clause 2.1.6).
inline int NURand(Rng& rng, int a, int x, int y, int c) {
  const int r1 = int(rng.Uniform(uint64_t(a) + 1));
  const int r2 = x + int(rng.Uniform(uint64_t(y - x) + 1));
  return ((r1 | r2) + c) % (y - x + 1) + x;
}

// The run's constants C: for C_LAST one that differs from the load's by
// 65..119, not 96 or 112 (clause 2.1.6.1); for C_ID and OL_I_ID any.
struct RunConstants {
  int c_last = 0, c_id = 0, ol_i_id = 0;
};
RunConstants MakeRunConstants(uint64_t seed, int c_load);

// C_LAST of the number 0..999 (clause 4.3.2.3) into out (at least 16
// bytes); returns its length.
int LastName(int num, char* out);

}  // namespace stampede::workloads::tpcc

#endif  // STAMPEDE_WORKLOADS_TPCC_TXN_H_

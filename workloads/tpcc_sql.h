// TPC-C's schema, its loader and its consistency conditions as SQL, in the
// PostgreSQL dialect (PostgreSQL, CockroachDB, YugabyteDB) or the MySQL one
// (MySQL, MariaDB, TiDB), without stored procedures.
//
// The loader generates the rows in the database (INSERT ... SELECT over a
// table of the numbers 1..100,000), one district at a time: the rows never
// cross the network, so a load is as fast as the database can write. The
// values follow the specification's clause 4.3.3.1 with these
// simplifications (docs/workloads.md, "tpcc"): random strings are hex
// digits (MD5 of a random number), the ORIGINAL items and stocks carry the
// word between two random strings, and an order's customer is a fixed
// permutation of the district's customers rather than a random one.
#ifndef STAMPEDE_WORKLOADS_TPCC_SQL_H_
#define STAMPEDE_WORKLOADS_TPCC_SQL_H_

#include <string>
#include <vector>

#include "drivers/driver.h"
#include "drivers/driver_registry.h"

namespace stampede::workloads::tpcc {

constexpr int kItems = 100000;
constexpr int kDistricts = 10;  // per warehouse
constexpr int kCustomersPerDistrict = 3000;
constexpr int kFirstNewOrder = 2101;                 // the initial new orders: 2101..3000
constexpr int kItemsPerChunk = kItems / kDistricts;  // a district's share of the items and of its stock

// The load statements, each run with $1 = warehouse and $2 = district
// (1-based); kWarehouse has only $1, and kItemChunk only $1, the tenth of
// the items (1..10) to load (PostgreSQL cannot prepare a statement that
// leaves a parameter unused). A district loads in three parts, each one transaction
// (LoadPart): its row with a tenth of the warehouse's stock (and of the
// items, for warehouse 1; and the warehouse's row, for district 1), its
// customers with their history, and its orders with their lines and the
// new orders.
enum Load {
  kWarehouse = 0,
  kDistrict,
  kItemChunk,
  kStockChunk,
  kCustomers,
  kCustomerNames,
  kHistory,
  kOrders,
  kOrderLines,
  kNewOrders,
  kNumLoad
};

// The consistency conditions (clause 3.3.2), each a statement that returns
// nothing when it holds and else one text row "key expected got count":
// the first district (warehouse x 100 + district; conditions 1 and 8: the
// warehouse) where it fails, the two values that differ, and how many
// districts fail.
enum Check {
  kYtd = 0,           // 1: W_YTD = sum(D_YTD)
  kOrderIds,          // 2: D_NEXT_O_ID - 1 = max(O_ID)
  kNewOrderIds,       // 2: D_NEXT_O_ID - 1 = max(NO_O_ID)
  kNewOrderCount,     // 3: count(NEW_ORDER) = max(NO_O_ID) - min(NO_O_ID) + 1
  kOrderLineCount,    // 4: sum(O_OL_CNT) = count(ORDER_LINE)
  kUndelivered,       // 5: count(ORDER with O_CARRIER_ID null) = count(NEW_ORDER)
  kWarehouseHistory,  // 8: W_YTD = sum(H_AMOUNT)
  kDistrictHistory,   // 9: D_YTD = sum(H_AMOUNT)
  kNumChecks
};

struct Statements {
  std::vector<std::string> schema;             // CREATE TABLE IF NOT EXISTS ..., the numbers table filled
  std::vector<std::string> reset;              // empty the nine tables
  std::vector<drivers::StatementSpec> load;    // by Load
  std::vector<drivers::StatementSpec> checks;  // by Check
};

// c_load: the constant C of NURand(255, 0, 999) for C_LAST (clause 2.1.6).
Statements MakeStatements(drivers::Dialect dialect, int c_load);

constexpr int kLoadParts = 3;
// The statements of part `part` (0..kLoadParts-1) of district `d` of
// warehouse `w`, in order.
std::vector<Load> LoadPart(int w, int d, int part);

// Parses a check's row ("key expected got count"); false if malformed.
struct Violation {
  long long key = 0, expected = 0, got = 0, count = 0;
};
bool ParseViolation(const std::string& text, Violation* v);

}  // namespace stampede::workloads::tpcc

#endif  // STAMPEDE_WORKLOADS_TPCC_SQL_H_

// Consistency anomalies a workload's checks find in what the database
// returned (docs/consistency.md): their kinds, and one anomaly as a worker
// notes it, numbers only (no text is made on the operation path).
#ifndef STAMPEDE_COMMON_ANOMALY_H_
#define STAMPEDE_COMMON_ANOMALY_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace stampede {

enum class Anomaly : uint8_t {
  kWrongTotal = 0,  // bank: a read whose balances do not add up to accounts x balance
  kStaleRead = 1,   // a read that missed a write acknowledged before it started
  // append's history checks (report/history_check.h):
  kLost = 2,               // an acknowledged append missing from its key's final read
  kDuplicate = 3,          // a read that holds one value twice
  kIncompatibleOrder = 4,  // two reads of a key, neither a prefix of the other
  kAbortedRead = 5,        // a read that saw an append whose transaction failed (G1a)
  // TPC-C's consistency conditions (workloads/tpcc_sql.h); key: the
  // district as warehouse x 100 + district (condition 1: the warehouse):
  kTpccYtd = 6,           // 1: W_YTD = sum(D_YTD)
  kTpccOrderIds = 7,      // 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)
  kTpccNewOrders = 8,     // 3: rows of NEW_ORDER = max(NO_O_ID) - min(NO_O_ID) + 1
  kTpccOrderLines = 9,    // 4: sum(O_OL_CNT) = rows of ORDER_LINE
  kTpccUndelivered = 10,  // 5: orders without O_CARRIER_ID = rows of NEW_ORDER
  kTpccHistory = 11,      // 8, 9: W_YTD and D_YTD = sum(H_AMOUNT)
};

constexpr int kNumAnomalies = 12;

constexpr std::array<std::string_view, kNumAnomalies> kAnomalyNames = {
    "wrong_total",      "stale_read",  "lost",           "duplicate",       "incompatible_order",
    "aborted_read",     "tpcc_ytd",    "tpcc_order_ids", "tpcc_new_orders", "tpcc_order_lines",
    "tpcc_undelivered", "tpcc_history"};

constexpr std::string_view AnomalyName(Anomaly a) { return kAnomalyNames[static_cast<int>(a)]; }

inline std::optional<Anomaly> AnomalyNamed(std::string_view name) {
  for (int i = 0; i < kNumAnomalies; ++i) {
    if (kAnomalyNames[size_t(i)] == name) return static_cast<Anomaly>(i);
  }
  return std::nullopt;
}

// The kinds only the dependency-graph check of an append history finds
// (report/cycle_check.h): Adya's and Elle's names, snake_cased; a cycle that
// needs each worker's order or real time carries _process or _realtime.
constexpr int kNumCycleAnomalies = 14;
constexpr std::array<std::string_view, kNumCycleAnomalies> kCycleAnomalyNames = {
    "g0",          "g1c",          "g_single",          "g2_item",
    "g0_process",  "g1c_process",  "g_single_process",  "g2_item_process",
    "g0_realtime", "g1c_realtime", "g_single_realtime", "g2_item_realtime",
    "g1b",         "internal"};

// Whether name is any kind of anomaly a run can report.
inline bool IsAnomalyKind(std::string_view name) {
  if (AnomalyNamed(name)) return true;
  for (std::string_view c : kCycleAnomalyNames) {
    if (c == name) return true;
  }
  return false;
}

// One anomaly as a worker's check saw it. The runner adds when, where and
// which operation.
struct AnomalyNote {
  Anomaly kind = Anomaly::kWrongTotal;
  int64_t key = -1;      // the key or account it concerns (-1: all of them)
  int64_t expected = 0;  // what a consistent database returns
  int64_t got = 0;       // what this one returned
  int64_t lag_ns = 0;    // stale reads: how long before the read the missed write was acknowledged
};

}  // namespace stampede

#endif  // STAMPEDE_COMMON_ANOMALY_H_

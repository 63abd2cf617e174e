#include "workloads/tpcc_terminal.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "workloads/tpcc_sql.h"

namespace stampede::workloads::tpcc {

using drivers::Param;
using Then = WorkerOps::Then;

int Terminal::OtherWarehouse() {
  if (cfg_.warehouses == 1) return cfg_.home;
  const int r = Rand(1, cfg_.warehouses - 1);
  return r >= cfg_.home ? r + 1 : r;
}

void Terminal::Customer() {
  by_name_ = Rand(1, 100) <= 60;
  if (by_name_) {
    last_len_ = LastName(NURand(rng_, 255, 0, 999, cfg_.c.c_last), last_);
  } else {
    c_ = NURand(rng_, 1023, 1, kCustomersPerDistrict, cfg_.c.c_id);
  }
}

void Terminal::Fill(drivers::OpRequest* req, TxStmt stmt, std::initializer_list<int64_t> ints) const {
  req->stmt = cfg_.first_stmt + stmt;
  req->nparams = 0;
  req->text = nullptr;
  int i = 0;
  for (int64_t v : ints) req->Set(i++, Param::Int(v));
}

void Terminal::FillByName(drivers::OpRequest* req, int w, int d) const {
  Fill(req, kByName, {w, d});
  req->Set(2, Param::Str(std::string_view(last_, size_t(last_len_))));
}

// Clause 2.4.1: 5 to 15 lines, 1% of them from another warehouse, and 1%
// of orders end on an unused item (rolled back). The lines are sorted by
// item, so concurrent orders lock stock rows in one order.
void Terminal::DrawNewOrder() {
  d_ = Rand(1, kDistricts);
  c_ = NURand(rng_, 1023, 1, kCustomersPerDistrict, cfg_.c.c_id);
  ol_cnt_ = Rand(5, kMaxLines);
  const bool rollback = Rand(1, 100) == 1;
  all_local_ = true;
  for (int i = 0; i < ol_cnt_; ++i) {
    item_[size_t(i)] = NURand(rng_, 8191, 1, kItems, cfg_.c.ol_i_id);
    supply_[size_t(i)] = cfg_.home;
    if (cfg_.warehouses > 1 && Rand(1, 100) == 1) {
      supply_[size_t(i)] = OtherWarehouse();
      all_local_ = false;
    }
    qty_[size_t(i)] = Rand(1, 10);
  }
  if (rollback) item_[size_t(ol_cnt_ - 1)] = kItems + 1;
  for (int i = 1; i < ol_cnt_; ++i) {
    for (int j = i; j > 0; --j) {
      const auto a = std::pair(item_[size_t(j - 1)], supply_[size_t(j - 1)]);
      if (a <= std::pair(item_[size_t(j)], supply_[size_t(j)])) break;
      std::swap(item_[size_t(j - 1)], item_[size_t(j)]);
      std::swap(supply_[size_t(j - 1)], supply_[size_t(j)]);
      std::swap(qty_[size_t(j - 1)], qty_[size_t(j)]);
    }
  }
}

Txn Terminal::DrawTxn() {
  int total = 0;
  for (int w : cfg_.mix) total += w;
  int r = int(rng_.Uniform(uint64_t(total)));
  int t = 0;
  while (r >= cfg_.mix[size_t(t)]) r -= cfg_.mix[size_t(t++)];
  return Txn(t);
}

int64_t Terminal::PauseNs() {
  double s = 0;
  if (started_) {
    const double mean = kThinkMeanS[txn_];
    s = std::min(-std::log(1.0 - rng_.NextDouble()) * mean, 10 * mean);
  }
  txn_ = DrawTxn();
  drawn_ = true;
  s += kKeyingS[txn_];
  return int64_t(s * cfg_.wait * 1e9);
}

int Terminal::Next(drivers::OpRequest* req) {
  if (!drawn_) txn_ = DrawTxn();
  drawn_ = false;
  started_ = true;
  const int t = txn_;
  const int w = cfg_.home;
  switch (txn_) {
    case kNewOrder:
      DrawNewOrder();
      Fill(req, kNoDistrict, {w, d_});
      break;
    case kPayment:
      d_ = Rand(1, kDistricts);
      c_w_ = w;
      c_d_ = d_;
      if (cfg_.warehouses > 1 && Rand(1, 100) > 85) {  // clause 2.5.1.2: 15% remote
        c_w_ = OtherWarehouse();
        c_d_ = Rand(1, kDistricts);
      }
      Customer();
      amount_ = Rand(100, 500000);
      Fill(req, kPayWarehouse, {w, amount_});
      break;
    case kOrderStatus:
      d_ = Rand(1, kDistricts);
      Customer();
      if (by_name_) {
        FillByName(req, w, d_);
      } else {
        Fill(req, kOsCustomer, {w, d_, c_});
      }
      break;
    case kDelivery:
      amount_ = Rand(1, 10);  // O_CARRIER_ID
      Fill(req, kDlOldest, {w, 1});
      break;
    default:                   // Stock-Level
      amount_ = Rand(10, 20);  // the threshold
      Fill(req, kSlCount, {w, cfg_.district, amount_});
      break;
  }
  return cfg_.first_op + t;
}

Then Terminal::Continue(int step, const drivers::OpResult& last, drivers::OpRequest* req) {
  switch (txn_) {
    case kNewOrder:
      return NewOrder(step, last, req);
    case kPayment:
      return Payment(step, last, req);
    case kOrderStatus:
      return OrderStatus(step, last, req);
    case kDelivery:
      return Delivery(step, last, req);
    default:
      return Then::kCommit;
  }
}

// District (MySQL: and its update), customer, order, new order, then per
// line the stock and the order line.
Then Terminal::NewOrder(int step, const drivers::OpResult& last, drivers::OpRequest* req) {
  const int w = cfg_.home;
  if (step == 1) {
    if (last.rows <= 0) return Then::kRollback;
    o_id_ = last.value;
    if (cfg_.mysql) {
      Fill(req, kNoDistrictBump, {w, d_});
      return Then::kNext;
    }
  }
  const int j = step - (cfg_.mysql ? 2 : 1);
  if (j == 0) {
    Fill(req, kNoCustomer, {w, d_, c_});
  } else if (j == 1) {
    Fill(req, kNoOrder, {o_id_, d_, w, c_, ol_cnt_, all_local_ ? 1 : 0});
  } else if (j == 2) {
    Fill(req, kNoNewOrder, {o_id_, d_, w});
  } else {
    const int k = j - 3, line = k / 2;
    if (k % 2 == 1 && last.rows <= 0) return Then::kRollback;  // the unused item: no stock row
    if (line >= ol_cnt_) return Then::kCommit;
    const size_t i = size_t(line);
    if (k % 2 == 0) {
      Fill(req, kNoStock, {item_[i], supply_[i], qty_[i], supply_[i] != w ? 1 : 0});
    } else {
      Fill(req, kNoLine, {o_id_, d_, w, line + 1, qty_[i], item_[i], supply_[i]});
    }
  }
  return Then::kNext;
}

// Warehouse, district, (the customer by name), customer, history.
Then Terminal::Payment(int step, const drivers::OpResult& last, drivers::OpRequest* req) {
  const int w = cfg_.home;
  int k = step;
  if (k == 1) {
    Fill(req, kPayDistrict, {w, d_, amount_});
    return Then::kNext;
  }
  if (by_name_) {
    if (k == 2) {
      FillByName(req, c_w_, c_d_);
      return Then::kNext;
    }
    if (k == 3) {
      if (last.rows <= 0) return Then::kRollback;
      c_ = int(last.value);
    }
    --k;
  }
  if (k == 2) {
    Fill(req, kPayCustomer, {c_w_, c_d_, c_, amount_, d_, w});
  } else if (k == 3) {
    Fill(req, kPayHistory, {c_, c_d_, c_w_, d_, w, amount_});
  } else {
    return Then::kCommit;
  }
  return Then::kNext;
}

// (The customer by name), customer, last order, its lines.
Then Terminal::OrderStatus(int step, const drivers::OpResult& last, drivers::OpRequest* req) {
  const int w = cfg_.home;
  int k = step;
  if (by_name_) {
    if (k == 1) {
      if (last.rows <= 0) return Then::kCommit;
      c_ = int(last.value);
      Fill(req, kOsCustomer, {w, d_, c_});
      return Then::kNext;
    }
    --k;
  }
  if (k == 1) {
    Fill(req, kOsLastOrder, {w, d_, c_});
  } else if (k == 2) {
    if (last.rows <= 0) return Then::kCommit;
    o_id_ = last.value;
    Fill(req, kOsLines, {w, d_, o_id_});
  } else {
    return Then::kCommit;
  }
  return Then::kNext;
}

// Per district: its oldest new order (none: the next district), then
// delete it, set the carrier, date the lines, credit the customer.
Then Terminal::Delivery(int step, const drivers::OpResult& last, drivers::OpRequest* req) {
  const int w = cfg_.home;
  if (step == 1) at_ = 0;  // Next()'s statement, again after a retry
  const int stage = at_ % 5;
  if (stage == 0 && last.rows <= 0) {
    at_ += 5;
  } else {
    if (stage == 0) o_id_ = last.value;
    ++at_;
  }
  if (at_ >= 5 * kDistricts) return Then::kCommit;
  const int d = at_ / 5 + 1;
  switch (at_ % 5) {
    case 0:
      Fill(req, kDlOldest, {w, d});
      break;
    case 1:
      Fill(req, kDlDelete, {w, d, o_id_});
      break;
    case 2:
      Fill(req, kDlCarrier, {w, d, o_id_, amount_});
      break;
    case 3:
      Fill(req, kDlLines, {w, d, o_id_});
      break;
    default:
      Fill(req, kDlCustomer, {w, d, o_id_});
      break;
  }
  return Then::kNext;
}

}  // namespace stampede::workloads::tpcc

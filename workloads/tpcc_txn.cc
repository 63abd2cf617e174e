#include "workloads/tpcc_txn.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "workloads/tpcc_dialect.h"

namespace stampede::workloads::tpcc {
namespace {

std::vector<std::string> NewOrder(const Sql& q) {
  std::string dist = "CASE " + q.P(2);
  for (int d = 1; d <= 10; ++d) {
    char col[16];
    std::snprintf(col, sizeof(col), "s_dist_%02d", d);
    dist += " WHEN " + std::to_string(d) + " THEN " + col;
  }
  dist += " END";
  return {
      q.pg() ? "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 "
               "RETURNING d_next_o_id - 1"
             : "SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2 FOR UPDATE",
      "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2",
      "SELECT " + q.BigInt("c_discount * 10000 + w_tax * 10000") +
          " FROM customer JOIN warehouse ON w_id = c_w_id WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3",
      "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) "
      "VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP, NULL, $5, $6)",
      "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)",
      // Clause 2.4.2.2: 10 or more left, else replenished by 91.
      "UPDATE stock SET s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3 ELSE s_quantity - $3 + 91 "
      "END, s_ytd = s_ytd + $3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $4 "
      "WHERE s_i_id = $1 AND s_w_id = $2",
      "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, "
      "ol_quantity, ol_amount, ol_dist_info) SELECT " +
          q.P(1) + ", " + q.P(2) + ", " + q.P(3) + ", " + q.P(4) + ", i_id, s_w_id, NULL, " + q.P(5) + ", " + q.P(5) +
          " * i_price, " + dist + " FROM item JOIN stock ON s_i_id = i_id WHERE i_id = $6 AND s_w_id = $7",
  };
}

std::vector<std::string> Payment(const Sql& q) {
  return {
      "UPDATE warehouse SET w_ytd = w_ytd + " + q.Cents(2) + " WHERE w_id = $1",
      "UPDATE district SET d_ytd = d_ytd + " + q.Cents(3) + " WHERE d_w_id = $1 AND d_id = $2",
      "SELECT c_id FROM (SELECT c_id, ROW_NUMBER() OVER (ORDER BY c_first) AS rn, COUNT(*) OVER () AS cnt "
      "FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3) t WHERE rn = FLOOR((cnt + 1) / 2)",
      // Clause 2.5.2.2: a bad-credit customer's C_DATA gets the payment
      // prepended, kept to 500 characters.
      "UPDATE customer SET c_balance = c_balance - " + q.Cents(4) + ", c_ytd_payment = c_ytd_payment + " + q.Cents(4) +
          ", c_payment_cnt = c_payment_cnt + 1, c_data = CASE WHEN c_credit = 'BC' THEN SUBSTR(CONCAT(c_id, ' ', "
          "c_d_id, ' ', c_w_id, ' ', " +
          q.P(5) + ", ' ', " + q.P(6) + ", ' ', " + q.P(4) +
          ", ' ', c_data), 1, 500) ELSE c_data END WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3",
      "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) SELECT " + q.P(1) +
          ", " + q.P(2) + ", " + q.P(3) + ", " + q.P(4) + ", " + q.P(5) + ", CURRENT_TIMESTAMP, " + q.Cents(6) +
          ", CONCAT(w_name, '    ', d_name) FROM warehouse JOIN district ON d_w_id = w_id WHERE w_id = " + q.P(5) +
          " AND d_id = " + q.P(4),
  };
}

std::vector<std::string> OrderStatusDeliveryStockLevel(const Sql& q) {
  return {
      "SELECT " + q.BigInt("c_balance * 100") + " FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3",
      "SELECT o_id FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1",
      "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
      "WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3",
      "SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 ORDER BY no_o_id LIMIT 1 FOR UPDATE",
      "DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3",
      "UPDATE orders SET o_carrier_id = $4 WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3",
      "UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3",
      "UPDATE customer SET c_balance = c_balance + (SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = $1 AND "
      "ol_d_id = $2 AND ol_o_id = $3), c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = $1 AND c_d_id = $2 AND "
      "c_id = (SELECT o_c_id FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3)",
      // Clause 2.8.2.2: the distinct items of the district's last 20
      // orders whose stock is below the threshold.
      "SELECT COUNT(DISTINCT s_i_id) FROM district JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id AND "
      "ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20 JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id "
      "WHERE d_w_id = $1 AND d_id = $2 AND s_quantity < $3",
  };
}

}  // namespace

std::vector<drivers::StatementSpec> TxnStatements(drivers::Dialect dialect) {
  const Sql q(dialect == drivers::Dialect::kPostgres);
  std::vector<std::string> all = NewOrder(q);
  for (auto* part : {&Payment, &OrderStatusDeliveryStockLevel}) {
    for (std::string& s : part(q)) all.push_back(std::move(s));
  }
  std::vector<drivers::StatementSpec> out;
  for (std::string& text : all) {
    const bool write = text.rfind("SELECT", 0) != 0 || text.find("FOR UPDATE") != std::string::npos;
    out.push_back({std::move(text), write, false});
  }
  for (int scalar : {kNoDistrict, kNoCustomer, kByName, kOsCustomer, kOsLastOrder, kDlOldest, kSlCount}) {
    out[size_t(scalar)].scalar = true;
  }
  return out;
}

RunConstants MakeRunConstants(uint64_t seed, int c_load) {
  Rng rng(MixSeed(seed, 0x7cc));
  RunConstants c;
  int delta = 0;
  do {
    delta = 65 + int(rng.Uniform(55));
  } while (delta == 96 || delta == 112);
  c.c_last = c_load + delta <= 255 ? c_load + delta : c_load - delta;
  c.c_id = int(rng.Uniform(1024));
  c.ol_i_id = int(rng.Uniform(8192));
  return c;
}

int LastName(int num, char* out) {
  static constexpr const char* kSyllables[] = {"BAR", "OUGHT", "ABLE",  "PRI",   "PRES",
                                               "ESE", "ANTI",  "CALLY", "ATION", "EING"};
  int n = 0;
  for (int digit : {num / 100 % 10, num / 10 % 10, num % 10}) {
    const size_t len = std::strlen(kSyllables[digit]);
    std::memcpy(out + n, kSyllables[digit], len);
    n += int(len);
  }
  return n;
}

}  // namespace stampede::workloads::tpcc

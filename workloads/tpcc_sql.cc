#include "workloads/tpcc_sql.h"

#include <cstdio>

#include "workloads/tpcc_dialect.h"

namespace stampede::workloads::tpcc {
namespace {

std::vector<std::string> Schema(const Sql& q) {
  const std::string addr =
      "_street_1 VARCHAR(20), X_street_2 VARCHAR(20), X_city VARCHAR(20), X_state CHAR(2), "
      "X_zip CHAR(9)";
  auto address = [&](char x) {
    std::string a = std::string(1, x) + addr;
    for (size_t at = a.find('X'); at != std::string::npos; at = a.find('X')) a[at] = x;
    return a;
  };
  std::vector<std::string> s = {
      "CREATE TABLE IF NOT EXISTS warehouse (w_id INT NOT NULL, w_name VARCHAR(10), " + address('w') +
          ", w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2), PRIMARY KEY (w_id))",
      "CREATE TABLE IF NOT EXISTS district (d_id INT NOT NULL, d_w_id INT NOT NULL, d_name VARCHAR(10), " +
          address('d') + ", d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INT, PRIMARY KEY (d_w_id, d_id))",
      "CREATE TABLE IF NOT EXISTS customer (c_id INT NOT NULL, c_d_id INT NOT NULL, c_w_id INT NOT NULL, "
      "c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), " +
          address('c') + ", c_phone CHAR(16), c_since " + q.Time() +
          ", c_credit CHAR(2), c_credit_lim DECIMAL(12,2), "
          "c_discount DECIMAL(4,4), c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), c_payment_cnt INT, "
          "c_delivery_cnt INT, c_data VARCHAR(500), PRIMARY KEY (c_w_id, c_d_id, c_id)" +
          (q.pg() ? "" : ", INDEX customer_name (c_w_id, c_d_id, c_last, c_first)") + ")",
      std::string("CREATE TABLE IF NOT EXISTS history (") +
          (q.pg() ? "" : "h_id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, ") +
          "h_c_id INT, h_c_d_id INT, h_c_w_id INT, h_d_id INT, h_w_id INT, h_date " + q.Time() +
          ", h_amount DECIMAL(6,2), h_data VARCHAR(24))",
      "CREATE TABLE IF NOT EXISTS new_order (no_o_id INT NOT NULL, no_d_id INT NOT NULL, no_w_id INT NOT NULL, "
      "PRIMARY KEY (no_w_id, no_d_id, no_o_id))",
      "CREATE TABLE IF NOT EXISTS orders (o_id INT NOT NULL, o_d_id INT NOT NULL, o_w_id INT NOT NULL, o_c_id INT, "
      "o_entry_d " +
          q.Time() + ", o_carrier_id INT, o_ol_cnt INT, o_all_local INT, PRIMARY KEY (o_w_id, o_d_id, o_id)" +
          (q.pg() ? "" : ", INDEX orders_customer (o_w_id, o_d_id, o_c_id, o_id)") + ")",
      "CREATE TABLE IF NOT EXISTS order_line (ol_o_id INT NOT NULL, ol_d_id INT NOT NULL, ol_w_id INT NOT NULL, "
      "ol_number INT NOT NULL, ol_i_id INT, ol_supply_w_id INT, ol_delivery_d " +
          q.Time() +
          ", ol_quantity INT, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24), "
          "PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))",
      "CREATE TABLE IF NOT EXISTS item (i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), "
      "i_data VARCHAR(50), PRIMARY KEY (i_id))",
      "CREATE TABLE IF NOT EXISTS stock (s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT, "
      "s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24), "
      "s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), "
      "s_ytd INT, s_order_cnt INT, s_remote_cnt INT, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id))",
      "CREATE TABLE IF NOT EXISTS tpcc_numbers (n INT NOT NULL, PRIMARY KEY (n))",
  };
  if (q.pg()) {
    s.push_back("CREATE INDEX IF NOT EXISTS customer_name ON customer (c_w_id, c_d_id, c_last, c_first)");
    s.push_back("CREATE INDEX IF NOT EXISTS orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)");
  }
  return s;
}

std::vector<std::string> Reset(const Sql& q) {
  std::vector<std::string> r;
  for (const char* t :
       {"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}) {
    r.push_back(std::string("TRUNCATE TABLE ") + t);
  }
  // The numbers 1..100,000 the loader selects its rows from.
  r.push_back("DELETE FROM tpcc_numbers");
  if (q.pg()) {
    r.push_back("INSERT INTO tpcc_numbers (n) SELECT g FROM generate_series(1, 100000) g");
  } else {
    const std::string d =
        "(SELECT 0 n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 "
        "UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL "
        "SELECT 9)";
    r.push_back("INSERT INTO tpcc_numbers (n) SELECT 1 + a.n + 10 * b.n + 100 * c.n + 1000 * d.n + 10000 * e.n FROM " +
                d + " a, " + d + " b, " + d + " c, " + d + " d, " + d + " e");
  }
  return r;
}

std::vector<drivers::StatementSpec> LoadStatements(const Sql& q, int c_load) {
  const std::string w = q.P(1), d = q.P(2);
  auto chunk = [](const std::string& part) {
    return "n > (" + part + " - 1) * " + std::to_string(kItemsPerChunk) + " AND n <= " + part + " * " +
           std::to_string(kItemsPerChunk);
  };
  const std::string tax = q.RandInt(0, 2000) + " / 10000.0";
  // C_LAST's number (clause 4.3.3.1): the first 1,000 customers in turn,
  // the rest NURand(255, 0, 999); kCustomerNames makes it syllables.
  const std::string last_num = "LPAD(" +
                               q.Text("CASE WHEN n <= 1000 THEN n - 1 ELSE MOD((" + q.RandInt(0, 255) + " | " +
                                      q.RandInt(0, 999) + ") + " + std::to_string(c_load) + ", 1000) END") +
                               ", 3, '0')";
  std::string dists;
  for (int i = 0; i < 10; ++i) dists += q.RandStr(24, 24) + ", ";
  std::vector<std::string> s(kNumLoad);
  s[kWarehouse] =
      "INSERT INTO warehouse (w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd) VALUES (" +
      w + ", " + q.RandStr(6, 10) + ", " + q.Address() + ", " + tax + ", 300000.00)";
  s[kDistrict] =
      "INSERT INTO district (d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, d_ytd, "
      "d_next_o_id) VALUES (" +
      d + ", " + w + ", " + q.RandStr(6, 10) + ", " + q.Address() + ", " + tax + ", 30000.00, 3001)";
  s[kItemChunk] = "INSERT INTO item (i_id, i_im_id, i_name, i_price, i_data) SELECT n, " + q.RandInt(1, 10000) + ", " +
                  q.RandStr(14, 24) + ", " + q.RandInt(100, 10000) + " / 100.0, " + q.Data() +
                  " FROM tpcc_numbers WHERE " + chunk(w);
  s[kStockChunk] =
      "INSERT INTO stock (s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, "
      "s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data) SELECT n, " +
      w + ", " + q.RandInt(10, 100) + ", " + dists + "0, 0, 0, " + q.Data() + " FROM tpcc_numbers WHERE " + chunk(d);
  s[kCustomers] =
      "INSERT INTO customer (c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, "
      "c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, "
      "c_payment_cnt, c_delivery_cnt, c_data) SELECT n, " +
      d + ", " + w + ", " + q.RandStr(8, 16) + ", 'OE', " + last_num + ", " + q.Address() + ", " + q.Phone() +
      ", CURRENT_TIMESTAMP, CASE WHEN " + q.Rand() + " < 0.1 THEN 'BC' ELSE 'GC' END, 50000.00, " + q.RandInt(0, 5000) +
      " / 10000.0, -10.00, 10.00, 1, 0, " + q.RandStr(300, 500) +
      " FROM tpcc_numbers WHERE n <= " + std::to_string(kCustomersPerDistrict);
  s[kCustomerNames] = "UPDATE customer SET c_last = CONCAT(" + q.Syllable("SUBSTR(c_last, 1, 1)") + ", " +
                      q.Syllable("SUBSTR(c_last, 2, 1)") + ", " + q.Syllable("SUBSTR(c_last, 3, 1)") +
                      ") WHERE c_w_id = $1 AND c_d_id = $2";
  s[kHistory] =
      "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) SELECT n, " + d +
      ", " + w + ", " + d + ", " + w + ", CURRENT_TIMESTAMP, 10.00, " + q.RandStr(12, 24) +
      " FROM tpcc_numbers WHERE n <= " + std::to_string(kCustomersPerDistrict);
  // O_C_ID: n -> 7(n - 1) + 131 d mod 3000 is a permutation (7 and 3,000
  // are coprime), a different one per district.
  s[kOrders] =
      "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) SELECT n, " +
      d + ", " + w + ", MOD((n - 1) * 7 + " + d + " * 131, 3000) + 1, CURRENT_TIMESTAMP, CASE WHEN n < " +
      std::to_string(kFirstNewOrder) + " THEN " + q.RandInt(1, 10) + " ELSE NULL END, " + q.RandInt(5, 15) +
      ", 1 FROM tpcc_numbers WHERE n <= " + std::to_string(kCustomersPerDistrict);
  s[kOrderLines] =
      "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, "
      "ol_quantity, ol_amount, ol_dist_info) SELECT o_id, o_d_id, o_w_id, k.n, " +
      q.RandInt(1, kItems) + ", o_w_id, CASE WHEN o_id < " + std::to_string(kFirstNewOrder) +
      " THEN o_entry_d ELSE NULL END, 5, CASE WHEN o_id < " + std::to_string(kFirstNewOrder) + " THEN 0 ELSE " +
      q.RandInt(1, 999999) + " / 100.0 END, " + q.RandStr(24, 24) +
      " FROM orders JOIN tpcc_numbers k ON k.n <= o_ol_cnt WHERE o_w_id = $1 AND o_d_id = $2";
  s[kNewOrders] = "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT n, " + d + ", " + w +
                  " FROM tpcc_numbers WHERE n >= " + std::to_string(kFirstNewOrder) +
                  " AND n <= " + std::to_string(kCustomersPerDistrict);
  std::vector<drivers::StatementSpec> out;
  for (std::string& text : s) out.push_back({std::move(text), true, false});
  return out;
}

// "key expected got count" of the first failing row, and how many fail.
std::string Row(const Sql& q, const std::string& key, const std::string& expected, const std::string& got) {
  return "SELECT CONCAT(" + q.BigInt(key) + ", ' ', " + q.BigInt(expected) + ", ' ', " + q.BigInt(got) +
         ", ' ', COUNT(*) OVER ())";
}

std::vector<drivers::StatementSpec> CheckStatements(const Sql& q) {
  std::vector<std::string> s(kNumChecks);
  s[kYtd] = Row(q, "w_id", "w_ytd * 100", "sd * 100") +
            " FROM warehouse JOIN (SELECT d_w_id, SUM(d_ytd) AS sd FROM district GROUP BY d_w_id) d ON d_w_id = w_id "
            "WHERE w_ytd <> sd ORDER BY w_id LIMIT 1";
  auto max_id = [&](const std::string& table, const std::string& p, const std::string& id) {
    return Row(q, "d_w_id * 100 + d_id", "d_next_o_id - 1", "mx") + " FROM district JOIN (SELECT " + p + "_w_id, " + p +
           "_d_id, MAX(" + id + ") AS mx FROM " + table + " GROUP BY " + p + "_w_id, " + p + "_d_id) m ON " + p +
           "_w_id = d_w_id AND " + p + "_d_id = d_id WHERE d_next_o_id - 1 <> mx ORDER BY d_w_id, d_id LIMIT 1";
  };
  s[kOrderIds] = max_id("orders", "o", "o_id");
  s[kNewOrderIds] = max_id("new_order", "no", "no_o_id");
  s[kNewOrderCount] = Row(q, "no_w_id * 100 + no_d_id", "MAX(no_o_id) - MIN(no_o_id) + 1", "COUNT(*)") +
                      " FROM new_order GROUP BY no_w_id, no_d_id HAVING COUNT(*) <> MAX(no_o_id) - MIN(no_o_id) + 1 "
                      "ORDER BY no_w_id, no_d_id LIMIT 1";
  s[kOrderLineCount] = Row(q, "o_w_id * 100 + o_d_id", "sc", "lc") +
                       " FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS sc FROM orders GROUP BY o_w_id, o_d_id) o JOIN "
                       "(SELECT ol_w_id, ol_d_id, COUNT(*) AS lc FROM order_line GROUP BY ol_w_id, ol_d_id) l ON "
                       "ol_w_id = o_w_id AND ol_d_id = o_d_id WHERE sc <> lc ORDER BY o_w_id, o_d_id LIMIT 1";
  // Condition 5 counts from the district, so a district with no rows on
  // one side still compares 0 with the other.
  s[kUndelivered] = Row(q, "d_w_id * 100 + d_id", "COALESCE(u, 0)", "COALESCE(n, 0)") +
                    " FROM district LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) AS u FROM orders WHERE o_carrier_id "
                    "IS NULL GROUP BY o_w_id, o_d_id) o ON o_w_id = d_w_id AND o_d_id = d_id LEFT JOIN (SELECT "
                    "no_w_id, no_d_id, COUNT(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) x ON no_w_id = d_w_id "
                    "AND no_d_id = d_id WHERE COALESCE(u, 0) <> COALESCE(n, 0) ORDER BY d_w_id, d_id LIMIT 1";
  s[kWarehouseHistory] = Row(q, "w_id", "w_ytd * 100", "COALESCE(sh, 0) * 100") +
                         " FROM warehouse LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS sh FROM history GROUP BY h_w_id) "
                         "h ON h_w_id = w_id WHERE w_ytd <> COALESCE(sh, 0) ORDER BY w_id LIMIT 1";
  s[kDistrictHistory] = Row(q, "d_w_id * 100 + d_id", "d_ytd * 100", "COALESCE(sh, 0) * 100") +
                        " FROM district LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) AS sh FROM history GROUP BY "
                        "h_w_id, h_d_id) h ON h_w_id = d_w_id AND h_d_id = d_id WHERE d_ytd <> COALESCE(sh, 0) "
                        "ORDER BY d_w_id, d_id LIMIT 1";
  std::vector<drivers::StatementSpec> out;
  for (std::string& text : s) out.push_back({std::move(text), false, true});
  return out;
}

}  // namespace

Statements MakeStatements(drivers::Dialect dialect, int c_load) {
  const Sql q(dialect == drivers::Dialect::kPostgres);
  return {Schema(q), Reset(q), LoadStatements(q, c_load), CheckStatements(q)};
}

std::vector<Load> LoadPart(int w, int d, int part) {
  switch (part) {
    case 0: {
      std::vector<Load> l;
      if (d == 1) l.push_back(kWarehouse);
      l.push_back(kDistrict);
      if (w == 1) l.push_back(kItemChunk);
      l.push_back(kStockChunk);
      return l;
    }
    case 1:
      return {kCustomers, kCustomerNames, kHistory};
    default:
      return {kOrders, kOrderLines, kNewOrders};
  }
}

bool ParseViolation(const std::string& text, Violation* v) {
  return std::sscanf(text.c_str(), "%lld %lld %lld %lld", &v->key, &v->expected, &v->got, &v->count) == 4;
}

}  // namespace stampede::workloads::tpcc

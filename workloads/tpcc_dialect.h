// What differs between TPC-C's two SQL dialects, as fragments: PostgreSQL
// (PostgreSQL, CockroachDB, YugabyteDB) and MySQL (MySQL, MariaDB, TiDB).
#ifndef STAMPEDE_WORKLOADS_TPCC_DIALECT_H_
#define STAMPEDE_WORKLOADS_TPCC_DIALECT_H_

#include <string>

namespace stampede::workloads::tpcc {

// What differs between the two dialects, as SQL fragments.
class Sql {
 public:
  explicit Sql(bool pg) : pg_(pg) {}

  // A parameter as an integer where its type is not inferred (a select list).
  std::string P(int i) const {
    const std::string p = "$" + std::to_string(i);
    return pg_ ? "CAST(" + p + " AS INT)" : p;
  }
  std::string Rand() const { return pg_ ? "RANDOM()" : "RAND()"; }
  std::string Int(const std::string& e) const { return "CAST(" + e + " AS " + (pg_ ? "INT" : "SIGNED") + ")"; }
  std::string BigInt(const std::string& e) const { return "CAST(" + e + " AS " + (pg_ ? "BIGINT" : "SIGNED") + ")"; }
  std::string Text(const std::string& e) const { return "CAST(" + e + " AS " + (pg_ ? "TEXT" : "CHAR") + ")"; }
  // Uniform in [lo, hi].
  std::string RandInt(long lo, long hi) const {
    return Int(std::to_string(lo) + " + FLOOR(" + Rand() + " * " + std::to_string(hi - lo + 1) + ")");
  }
  // Clause 4.3.2.2's a-string of length lo..hi (hex digits here).
  std::string RandStr(int lo, int hi) const {
    const std::string len = lo == hi ? std::to_string(lo) : RandInt(lo, hi);
    return "SUBSTR(REPEAT(MD5(" + Text(Rand()) + "), " + std::to_string((hi + 31) / 32) + "), 1, " + len + ")";
  }
  // `digits` random decimal digits (an n-string).
  std::string Digits(int digits) const {
    long top = 1;
    for (int i = 0; i < digits; ++i) top *= 10;
    return "LPAD(" + Text(RandInt(0, top - 1)) + ", " + std::to_string(digits) + ", '0')";
  }
  std::string Zip() const { return "CONCAT(" + Digits(4) + ", '11111')"; }
  std::string Phone() const { return "CONCAT(" + Digits(8) + ", " + Digits(8) + ")"; }
  // I_DATA and S_DATA: 10% carry ORIGINAL.
  std::string Data() const {
    return "CASE WHEN " + Rand() + " < 0.1 THEN CONCAT(" + RandStr(9, 21) + ", 'ORIGINAL', " + RandStr(9, 21) +
           ") ELSE " + RandStr(26, 50) + " END";
  }
  std::string Address() const {
    return RandStr(10, 20) + ", " + RandStr(10, 20) + ", " + RandStr(10, 20) + ", " + RandStr(2, 2) + ", " + Zip();
  }
  std::string Syllable(const std::string& digit) const {
    constexpr const char* kSyllables = "'BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION', 'EING'";
    if (pg_) return "(ARRAY[" + std::string(kSyllables) + "])[" + Int(digit) + " + 1]";
    return "ELT(" + Int(digit) + " + 1, " + kSyllables + ")";
  }
  // An amount of cents given as an integer parameter.
  std::string Cents(int i) const { return P(i) + " / 100.0"; }
  std::string Time() const { return pg_ ? "TIMESTAMP" : "DATETIME"; }
  bool pg() const { return pg_; }

 private:
  bool pg_;
};

}  // namespace stampede::workloads::tpcc

#endif  // STAMPEDE_WORKLOADS_TPCC_DIALECT_H_

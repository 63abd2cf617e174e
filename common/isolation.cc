#include "common/isolation.h"

#include <algorithm>

namespace stampede {

const std::vector<std::string>& IsolationLevels() {
  static const std::vector<std::string> kLevels = {"read-committed", "repeatable-read", "snapshot", "serializable"};
  return kLevels;
}

std::string IsolationSql(const std::string& level, const std::string& flavor, std::string* why) {
  auto no = [&](const std::string& reason) {
    if (why) *why = reason;
    return std::string();
  };
  if (std::find(IsolationLevels().begin(), IsolationLevels().end(), level) == IsolationLevels().end()) {
    return no("expected one of read-committed, repeatable-read, snapshot, serializable");
  }
  if (flavor == "redis" || flavor == "redis-cluster") return no("Redis has no isolation levels to choose");
  if (level == "read-committed") return "READ COMMITTED";
  if (level == "serializable") {
    if (flavor == "tidb") return no("TiDB has no serializable isolation (its strongest is repeatable-read, snapshot)");
    return "SERIALIZABLE";
  }
  // PostgreSQL's, CockroachDB's, YugabyteDB's and TiDB's REPEATABLE READ
  // is snapshot isolation.
  const bool mysql = flavor == "mysql" || flavor == "mariadb" || flavor == "galera";
  if (level == "snapshot" && mysql) {
    return no(
        "MySQL and MariaDB have no snapshot isolation: their REPEATABLE READ reads a snapshot but writes on "
        "the latest rows; name repeatable-read");
  }
  return "REPEATABLE READ";
}

std::string DefaultIsolation(const std::string& flavor) {
  if (flavor == "postgres" || flavor == "yugabytedb") return "read-committed";
  if (flavor == "cockroachdb") return "serializable";
  if (flavor == "tidb") return "snapshot";
  if (flavor == "mysql" || flavor == "mariadb" || flavor == "galera") return "repeatable-read";
  return "";
}

bool IsolationForbids(const std::string& level, const std::string& kind) {
  if (level.empty()) return true;
  std::string base = kind;
  for (const std::string suffix : {"_process", "_realtime"}) {
    if (base.size() > suffix.size() && base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0) {
      base.resize(base.size() - suffix.size());
    }
  }
  if (base == "g2_item") return level == "serializable";
  if (base == "g_single") return level != "read-committed";
  return true;
}

std::string IsolationWords(const std::string& level) {
  std::string w = level;
  std::replace(w.begin(), w.end(), '-', ' ');
  return w;
}

}  // namespace stampede

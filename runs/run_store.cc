#include "runs/run_store.h"

#include <algorithm>

#include "runs/postgres_store.h"
#include "runs/sqlite_store.h"

namespace stampede::runs {

bool RunStore::IsPostgres(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

StatusOr<std::unique_ptr<RunStore>> RunStore::Open(const std::string& location) {
  if (IsPostgres(location)) return PostgresRunStore::Open(location);
  return SqliteRunStore::Open(location);
}

std::map<std::string, record::Baseline> Medians(const std::map<std::string, std::vector<double>>& values) {
  std::map<std::string, record::Baseline> out;
  for (const auto& [key, list] : values) {
    std::vector<double> v = list;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    if (n == 0) continue;
    out[key] = {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, uint32_t(n)};
  }
  return out;
}

}  // namespace stampede::runs

// libFuzzer target: any bytes as a health response. The first byte picks the
// parser; each must answer with a report or an error, never crash.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "health/health_parsers.h"
#include "health/share_parsers.h"

namespace {

// A table as the cockroach CLI prints it ("a | b" lines, NULL for NULL),
// read as the rows a query returned.
stampede::health::SqlRows Table(std::string_view body) {
  stampede::health::SqlRows t;
  std::istringstream in{std::string(body)};
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::optional<std::string>> cells;
    std::istringstream row(line);
    std::string cell;
    while (std::getline(row, cell, '|')) {
      const size_t a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
      cell = a == std::string::npos ? std::string() : cell.substr(a, b - a + 1);
      cells.emplace_back(cell == "NULL" ? std::nullopt : std::optional<std::string>(cell));
    }
    if (t.columns.empty()) {
      for (const auto& c : cells) t.columns.push_back(c.value_or(""));
    } else {
      t.rows.push_back(std::move(cells));
    }
  }
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  namespace h = stampede::health;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 15) {
    case 0:
      (void)h::ParseCockroachVars(body);
      break;
    case 1:
      (void)h::ParsePdRegionCheck(body, "down-peer");
      break;
    case 2:
      (void)h::ParsePdStores(body);
      break;
    case 3:
      (void)h::ParseYbUnderReplication(body);
      break;
    case 4:
      (void)h::ParseYbTabletServers(body);
      break;
    case 5:
      (void)h::ParseYbHealthCheck(body);
      break;
    case 6:
      (void)h::ParseRedisClusterInfo(body);
      break;
    case 7:
      (void)h::ParseGaleraStatus(body, 3);
      break;
    case 8:
      (void)h::ParsePatroniCluster(body);
      break;
    // Where the data is (health/share_parsers.h).
    case 9:
      (void)h::ParseRedisClusterNodes(body);
      break;
    case 10:
      (void)h::ParsePdStoreShares(body);
      break;
    case 11:
      (void)h::ParseYbTabletServerShares(body);
      break;
    case 12:
      (void)h::ParseCockroachStoreShares(body);
      break;
    case 13:
      (void)h::ParseCockroachNodeRows(Table(body));
      break;
    default:
      (void)h::GaleraMembers(body);
      (void)h::GaleraMemberShare("127.0.0.1:3306", body);
      break;
  }
  return 0;
}

// libFuzzer target: any bytes as a health response. The first byte picks the
// parser; each must answer with a report or an error, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "health/health_parsers.h"
#include "health/share_parsers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  namespace h = stampede::health;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 14) {
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
    default:
      (void)h::GaleraMembers(body);
      (void)h::GaleraMemberShare("127.0.0.1:3306", body);
      break;
  }
  return 0;
}

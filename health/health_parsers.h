// Parsers for the health endpoints of the clusters stampede drives. Each
// takes one response body and says whether that view of the cluster is
// healthy (fully replicated, nothing unavailable) and the counts behind it.
// Pure functions; unit-tested on recorded responses.
//
// Sources: CockroachDB /_status/vars (ranges_underreplicated,
// ranges_unavailable, liveness_livenodes); PD /pd/api/v1/regions/check/*
// and /pd/api/v1/stores; yb-master /api/v1/tablet-under-replication,
// /api/v1/tablet-servers and /api/v1/health-check; Redis CLUSTER INFO;
// Galera SHOW STATUS LIKE 'wsrep%'; Patroni /cluster.
#ifndef STAMPEDE_HEALTH_HEALTH_PARSERS_H_
#define STAMPEDE_HEALTH_HEALTH_PARSERS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "record/records.h"

namespace stampede::health {

struct HealthReport {
  bool healthy = false;
  int64_t underreplicated = 0;  // ranges / regions / tablets / slots not fully replicated
  int64_t unavailable = 0;      // ranges / slots / stores / nodes that cannot serve
  int64_t live_nodes = -1;      // -1: not reported by this source
  std::string detail;           // one line for logs and reports
  // Where the data is, when the source tells (health/share_parsers.h).
  std::string share_unit;
  std::vector<record::NodeShare> shares;

  // Combines two views (e.g. several nodes or endpoints): healthy only if
  // both are; counts add, except live_nodes which takes the larger; shares
  // of nodes not yet listed are added.
  void Merge(const HealthReport& other);
};

StatusOr<HealthReport> ParseCockroachVars(std::string_view prometheus_text);
StatusOr<HealthReport> ParsePdRegionCheck(std::string_view json, std::string_view check);
StatusOr<HealthReport> ParsePdStores(std::string_view json);
StatusOr<HealthReport> ParseYbUnderReplication(std::string_view json);
StatusOr<HealthReport> ParseYbTabletServers(std::string_view json);
StatusOr<HealthReport> ParseYbHealthCheck(std::string_view json);
StatusOr<HealthReport> ParseRedisClusterInfo(std::string_view text);
// Accepts "name<TAB>value" lines (mariadb -N) or the mysql client's table.
// expected_size: the cluster size that counts as healthy (0: any).
StatusOr<HealthReport> ParseGaleraStatus(std::string_view text, int expected_size);
// The wsrep_* variables of such a text, by name.
std::map<std::string, std::string> ParseGaleraVars(std::string_view text);
// Healthy: one leader and every member running, and at least
// `expected_members` of them (0: any number; a killed member drops out of
// /cluster once its key expires). leader: the leader's name ("" if none).
StatusOr<HealthReport> ParsePatroniCluster(std::string_view json, int64_t expected_members = 0,
                                           std::string* leader = nullptr);

}  // namespace stampede::health

#endif  // STAMPEDE_HEALTH_HEALTH_PARSERS_H_

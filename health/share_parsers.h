// Where the data is, from each database's own view: per node, what it
// holds and leads, parsed from one response. Pure functions, unit-tested
// on recorded responses (tests/fixtures/recorded/README.md names their
// sources); the probes call them once a second beside the health poll.
//
// Redis Cluster: CLUSTER NODES (slots per master, a slot being migrated or
// imported marks both ends). TiDB: PD /pd/api/v1/stores (regions, leaders,
// region size per store; state Up, Offline while it drains, Tombstone).
// YugabyteDB: yb-master /api/v1/tablet-servers (user tablets, leaders, SST
// bytes per tablet server). CockroachDB: a node's /_status/vars (replicas,
// leaseholders, capacity used per store), or the whole cluster from any one
// node over SQL (replicas, leaseholders and live bytes per node, with its
// membership: active, decommissioning, decommissioned). Galera and Patroni:
// which members hold a current copy of the whole data set.
#ifndef STAMPEDE_HEALTH_SHARE_PARSERS_H_
#define STAMPEDE_HEALTH_SHARE_PARSERS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "record/records.h"

namespace stampede::health {

struct Shares {
  std::string unit;  // "slots", "regions", "tablets", "replicas"
  std::vector<record::NodeShare> nodes;
};

// Masters that are not failed, with their slot counts; a master with no
// slot (just added) is listed with 0.
StatusOr<Shares> ParseRedisClusterNodes(std::string_view text);
StatusOr<Shares> ParsePdStoreShares(std::string_view json);
StatusOr<Shares> ParseYbTabletServerShares(std::string_view json);
StatusOr<Shares> ParseCockroachStoreShares(std::string_view prometheus_text);

// A SQL answer as text: column names, and rows with NULL as nullopt.
struct SqlRows {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
};
// CockroachDB's cluster as one node sees it: a row per node that ever
// joined, live or not, under the column names `cockroach node status --all`
// prints (id, address, is_live, replicas_leaseholders, ranges, live_bytes,
// gossiped_replicas, membership, is_draining), so that command's output is a
// recorded answer to it.
extern const char* const kCockroachNodesSql;
// Reads kCockroachNodesSql's rows, or any table with an id column and a count
// of replicas by one of the names CockroachDB gives it: ranges (summed over
// the node's stores), gossiped_replicas, or replicas (`cockroach node
// decommission`'s progress table). A node's state is its membership when it
// is not active (decommissioning: its replicas are moving away), else live
// or dead; a node that is not serving (report/rebalance.cc) counts for no
// share of the balance.
StatusOr<Shares> ParseCockroachNodeRows(const SqlRows& rows);
// Galera: every member holds the whole data set. wsrep_incoming_addresses
// of one node's status (SHOW STATUS LIKE 'wsrep_%') names the members; a
// member's own status gives its share: 1 when Synced (it holds and serves
// it all), 0 while it joins, donates or is outside the primary component;
// state is wsrep_local_state_comment, bytes wsrep_received_bytes.
std::vector<std::string> GaleraMembers(std::string_view status);
record::NodeShare GaleraMemberShare(const std::string& address, std::string_view status);
// Patroni: every member holds the whole data set too. GET /cluster names
// each member with its role, state and lag (bytes of WAL behind the
// leader, "unknown" while it has none to compare). Its share is 1 when it
// serves a current copy: the leader running, or a replica running or
// streaming no more than kPatroniCurrentLagBytes behind (Patroni's own
// default maximum_lag_on_failover, the lag at which it would still promote
// it); 0 while it starts, takes its base backup or falls behind.
inline constexpr int64_t kPatroniCurrentLagBytes = 1 << 20;
StatusOr<Shares> ParsePatroniShares(std::string_view json);

}  // namespace stampede::health

#endif  // STAMPEDE_HEALTH_SHARE_PARSERS_H_

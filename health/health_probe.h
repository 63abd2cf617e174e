// Live health probes: ask the cluster itself whether it is healthy (fully
// replicated, nothing unavailable). Polled by the coordinator once a second
// during a run; each poll is one line in the journal.
//
//   target:
//     health: {kind: galera, nodes: 3}                      # SQL, via target.endpoints
//     health: {kind: redis-cluster}                         # CLUSTER INFO, via target.endpoints
//     health: {kind: cockroachdb, urls: [http://db1:8080]}  # /_status/vars on every node
//     health: {kind: tidb, urls: [http://pd1:2379]}         # PD regions/check and stores
//     health: {kind: yugabytedb, urls: [http://m1:7000]}    # yb-master
//     health: {kind: patroni, urls: [http://pg1:8008]}      # /cluster
//
// Not thread-safe; one poller thread owns a probe.
#ifndef STAMPEDE_HEALTH_HEALTH_PROBE_H_
#define STAMPEDE_HEALTH_HEALTH_PROBE_H_

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "health/health_parsers.h"

namespace stampede::health {

struct ProbeOptions {
  std::string kind;
  std::vector<std::string> urls;       // HTTP kinds
  std::vector<std::string> endpoints;  // SQL / Redis kinds: host:port
  std::string user;
  std::string password;  // the coordinator's own environment; never logged
  std::string database;
  int expected_nodes = 0;  // galera, patroni: cluster size that counts as healthy
  int timeout_ms = 2000;
};

class HealthProbe {
 public:
  virtual ~HealthProbe() = default;
  // One poll. An error means the probe could not ask anyone.
  virtual StatusOr<HealthReport> Poll() = 0;
};

// The health kinds a plan may name (target.health.kind): the one list the
// plan loader checks against and MakeHealthProbe builds from. A kind asks
// either the plan's target endpoints (SQL or Redis) or its own http:// urls.
enum class HealthSource { kEndpoints, kUrls };
struct HealthKind {
  std::string_view name;
  HealthSource source;
};
inline constexpr std::array<HealthKind, 9> kHealthKinds = {{
    {"galera", HealthSource::kEndpoints},         // wsrep status over SQL
    {"redis-cluster", HealthSource::kEndpoints},  // CLUSTER INFO
    {"cockroachdb", HealthSource::kUrls},         // /_status/vars on every node
    {"tidb", HealthSource::kUrls},                // PD regions/check and stores
    {"yugabytedb", HealthSource::kUrls},          // yb-master
    {"patroni", HealthSource::kUrls},             // /cluster
    {"postgres", HealthSource::kEndpoints},       // every endpoint answers SELECT 1
    {"mysql", HealthSource::kEndpoints},          // every endpoint answers SELECT 1
    {"redis", HealthSource::kEndpoints},          // every endpoint answers PING
}};
// nullptr if there is no such kind.
const HealthKind* FindHealthKind(std::string_view name);
// The kinds' names, for messages.
std::vector<std::string> HealthKinds();
StatusOr<std::unique_ptr<HealthProbe>> MakeHealthProbe(const ProbeOptions& options);

// GET http://host:port/path with a timeout; the body on 2xx.
StatusOr<std::string> HttpGet(const std::string& url, int timeout_ms);

}  // namespace stampede::health

#endif  // STAMPEDE_HEALTH_HEALTH_PROBE_H_

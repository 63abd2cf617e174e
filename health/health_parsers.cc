#include "health/health_parsers.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace stampede::health {
namespace {

using Json = nlohmann::json;

StatusOr<Json> ParseJson(std::string_view text, const char* what) {
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status::Error(std::string(what) + ": not JSON");
  return j;
}

// A response of the wrong shape (a string where a number was expected, a
// list where an object was) is an error of that poll, caught here.
template <typename Fn>
StatusOr<HealthReport> Guard(const char* what, Fn&& parse) {
  try {
    return parse();
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(std::string(what) + ": unexpected response (" + e.what() + ")");
  }
}

std::string Trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r|");
  size_t b = s.find_last_not_of(" \t\r|");
  if (a == std::string_view::npos) return "";
  return std::string(s.substr(a, b - a + 1));
}

// Counts in health responses are small (nodes, ranges, slots); a number
// outside [0, kMaxCount] in a response is clamped so that sums and
// differences of counts cannot overflow.
constexpr int64_t kMaxCount = 1'000'000'000'000;

int64_t ClampCount(double v) {
  if (!(v > 0)) return 0;  // also NaN
  if (v > static_cast<double>(kMaxCount)) return kMaxCount;
  return std::llround(v);
}

int64_t ParseCount(const std::string& s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) return s.empty() || s[0] == '-' ? 0 : kMaxCount;
  if (ec != std::errc()) return 0;
  return std::clamp<int64_t>(v, 0, kMaxCount);
}

}  // namespace

void HealthReport::Merge(const HealthReport& o) {
  healthy = healthy && o.healthy;
  underreplicated += o.underreplicated;
  unavailable += o.unavailable;
  live_nodes = std::max(live_nodes, o.live_nodes);
  if (!o.detail.empty()) detail = detail.empty() ? o.detail : detail + "; " + o.detail;
  if (share_unit.empty()) share_unit = o.share_unit;
  for (const record::NodeShare& s : o.shares) {
    const bool listed = std::any_of(shares.begin(), shares.end(), [&](const auto& x) { return x.node == s.node; });
    if (!listed) shares.push_back(s);
  }
}

StatusOr<HealthReport> ParseCockroachVars(std::string_view text) {
  double under = 0, unavail = 0, live = -1;
  bool seen_ranges = false;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t name_end = line.find_first_of("{ ");
    std::string name = line.substr(0, name_end);
    size_t value_at = line.rfind(' ');
    if (value_at == std::string::npos) continue;
    double v = std::strtod(line.c_str() + value_at + 1, nullptr);
    if (name == "ranges_underreplicated") {
      under += v;
      seen_ranges = true;
    } else if (name == "ranges_unavailable") {
      unavail += v;
      seen_ranges = true;
    } else if (name == "liveness_livenodes") {
      live = std::max(live, v);
    }
  }
  if (!seen_ranges) return Status::Error("/_status/vars: no ranges_underreplicated or ranges_unavailable");
  HealthReport r;
  r.underreplicated = ClampCount(under);
  r.unavailable = ClampCount(unavail);
  r.live_nodes = live < 0 ? -1 : ClampCount(live);
  r.healthy = r.underreplicated == 0 && r.unavailable == 0;
  r.detail = "ranges underreplicated " + std::to_string(r.underreplicated) + ", unavailable " +
             std::to_string(r.unavailable) + ", live nodes " + std::to_string(r.live_nodes);
  return r;
}

StatusOr<HealthReport> ParsePdRegionCheck(std::string_view json, std::string_view check) {
  return Guard("PD regions/check", [&]() -> StatusOr<HealthReport> {
    auto j = ParseJson(json, "PD regions/check");
    if (!j.ok()) return j.status();
    int64_t count = 0;
    if (j->is_object() && j->contains("count")) {
      count = (*j)["count"].get<int64_t>();
    } else if (j->is_object() && j->contains("regions")) {
      count = static_cast<int64_t>((*j)["regions"].size());
    } else if (j->is_object() && j->contains("id")) {
      count = 1;  // a single region object
    } else {
      return Status::Error("PD regions/check: expected {count, regions}");
    }
    HealthReport r;
    if (check == "down-peer" || check == "offline-peer") {
      r.unavailable = count;
    } else {
      r.underreplicated = count;
    }
    r.healthy = count == 0;
    r.detail = std::string(check) + " regions " + std::to_string(count);
    return r;
  });
}

StatusOr<HealthReport> ParsePdStores(std::string_view json) {
  return Guard("PD stores", [&]() -> StatusOr<HealthReport> {
    auto j = ParseJson(json, "PD stores");
    if (!j.ok()) return j.status();
    if (!j->is_object() || !j->contains("stores")) return Status::Error("PD stores: expected {stores: [...]}");
    HealthReport r;
    std::map<std::string, int> states;
    int64_t up = 0;
    for (const Json& s : (*j)["stores"]) {
      std::string state = s.value("store", Json::object()).value("state_name", "");
      ++states[state];
      if (state == "Up") ++up;
    }
    r.live_nodes = up;
    r.unavailable = static_cast<int64_t>((*j)["stores"].size()) - up;
    r.healthy = r.unavailable == 0;
    for (const auto& [state, n] : states) {
      r.detail += (r.detail.empty() ? "stores " : ", ") + std::to_string(n) + " " + state;
    }
    return r;
  });
}

StatusOr<HealthReport> ParseYbUnderReplication(std::string_view json) {
  return Guard("yb-master tablet-under-replication", [&]() -> StatusOr<HealthReport> {
    auto j = ParseJson(json, "yb-master tablet-under-replication");
    if (!j.ok()) return j.status();
    if (!j->is_object() || !j->contains("underreplicated_tablets")) {
      return Status::Error("tablet-under-replication: expected {underreplicated_tablets: [...]}");
    }
    HealthReport r;
    r.underreplicated = static_cast<int64_t>((*j)["underreplicated_tablets"].size());
    r.healthy = r.underreplicated == 0;
    r.detail = "tablets underreplicated " + std::to_string(r.underreplicated);
    return r;
  });
}

StatusOr<HealthReport> ParseYbTabletServers(std::string_view json) {
  return Guard("yb-master tablet-servers", [&]() -> StatusOr<HealthReport> {
    auto j = ParseJson(json, "yb-master tablet-servers");
    if (!j.ok()) return j.status();
    if (!j->is_object()) return Status::Error("tablet-servers: expected {placement: {server: {...}}}");
    HealthReport r;
    int64_t alive = 0, other = 0;
    for (const auto& [placement, servers] : j->items()) {
      if (!servers.is_object()) continue;
      for (const auto& [server, info] : servers.items()) {
        if (info.value("status", "") == "ALIVE") {
          ++alive;
        } else {
          ++other;
        }
      }
    }
    r.live_nodes = alive;
    r.unavailable = other;
    r.healthy = other == 0 && alive > 0;
    r.detail = "tservers alive " + std::to_string(alive) + ", not alive " + std::to_string(other);
    return r;
  });
}

StatusOr<HealthReport> ParseYbHealthCheck(std::string_view json) {
  return Guard("yb-master health-check", [&]() -> StatusOr<HealthReport> {
    auto j = ParseJson(json, "yb-master health-check");
    if (!j.ok()) return j.status();
    if (!j->is_object() || !j->contains("dead_nodes"))
      return Status::Error("health-check: expected {dead_nodes: [...]}");
    HealthReport r;
    r.unavailable = static_cast<int64_t>((*j)["dead_nodes"].size());
    r.underreplicated = static_cast<int64_t>(j->value("under_replicated_tablets", Json::array()).size());
    r.healthy = r.unavailable == 0 && r.underreplicated == 0;
    r.detail = "dead nodes " + std::to_string(r.unavailable) + ", tablets underreplicated " +
               std::to_string(r.underreplicated);
    return r;
  });
}

StatusOr<HealthReport> ParseRedisClusterInfo(std::string_view text) {
  std::map<std::string, std::string> fields;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    fields[Trim(line.substr(0, colon))] = Trim(line.substr(colon + 1));
  }
  if (!fields.count("cluster_state")) return Status::Error("CLUSTER INFO: no cluster_state");
  HealthReport r;
  auto num = [&](const char* k) { return fields.count(k) ? ParseCount(fields[k]) : 0; };
  r.unavailable = num("cluster_slots_fail") + num("cluster_slots_pfail");
  r.underreplicated = 16384 - num("cluster_slots_ok");
  if (r.underreplicated < 0) r.underreplicated = 0;
  if (fields.count("cluster_known_nodes")) r.live_nodes = num("cluster_known_nodes");
  r.healthy = fields["cluster_state"] == "ok" && r.unavailable == 0 && num("cluster_slots_ok") == 16384;
  r.detail = "cluster_state " + fields["cluster_state"] + ", slots ok " + std::to_string(num("cluster_slots_ok")) +
             ", fail " + std::to_string(num("cluster_slots_fail"));
  return r;
}

std::map<std::string, std::string> ParseGaleraVars(std::string_view text) {
  std::map<std::string, std::string> vars;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '+') continue;
    std::string name, value;
    size_t sep = line.find('\t');
    if (sep != std::string::npos) {
      name = Trim(line.substr(0, sep));
      value = Trim(line.substr(sep + 1));
    } else {
      size_t bar = line.find('|', 1);
      if (bar == std::string::npos) continue;
      name = Trim(line.substr(0, bar));
      value = Trim(line.substr(bar + 1));
    }
    if (name.rfind("wsrep_", 0) == 0) vars[name] = value;
  }
  return vars;
}

StatusOr<HealthReport> ParseGaleraStatus(std::string_view text, int expected_size) {
  std::map<std::string, std::string> vars = ParseGaleraVars(text);
  if (!vars.count("wsrep_cluster_status")) return Status::Error("galera status: no wsrep_cluster_status");
  HealthReport r;
  r.live_nodes = ParseCount(vars["wsrep_cluster_size"]);
  const std::string& status = vars["wsrep_cluster_status"];
  const std::string& state = vars["wsrep_local_state_comment"];
  r.healthy = status == "Primary" && state == "Synced" && (expected_size == 0 || r.live_nodes >= expected_size);
  if (expected_size > 0 && r.live_nodes < expected_size) r.underreplicated = expected_size - r.live_nodes;
  if (status != "Primary") r.unavailable = 1;
  r.detail = "size " + std::to_string(r.live_nodes) + ", " + status + ", " + state;
  return r;
}

StatusOr<HealthReport> ParsePatroniCluster(std::string_view json, int64_t expected_members, std::string* leader) {
  return Guard("Patroni /cluster", [&]() -> StatusOr<HealthReport> {
    auto j = ParseJson(json, "Patroni /cluster");
    if (!j.ok()) return j.status();
    if (!j->is_object() || !j->contains("members")) return Status::Error("Patroni /cluster: expected {members: [...]}");
    HealthReport r;
    int64_t running = 0, leaders = 0, other = 0;
    for (const Json& m : (*j)["members"]) {
      std::string state = m.value("state", "");
      std::string role = m.value("role", "");
      if (role == "leader" || role == "standby_leader") {
        ++leaders;
        if (leader) *leader = m.value("name", "");
      }
      if (state == "running" || state == "streaming") {
        ++running;
      } else {
        ++other;
      }
    }
    const int64_t missing = std::max<int64_t>(0, expected_members - running - other);
    // Short of the expected size: a member beyond it that is not running
    // (one that joined and then left, listed as stopped until its key
    // expires) is not a sign of ill health.
    const int64_t down = expected_members > 0 ? std::max<int64_t>(0, expected_members - running) : other;
    r.live_nodes = running;
    r.unavailable = down + (leaders == 0 ? 1 : 0);
    r.healthy = leaders == 1 && down == 0;
    r.detail = "members running " + std::to_string(running) + ", leaders " + std::to_string(leaders) + ", other " +
               std::to_string(other);
    if (missing > 0) r.detail += ", missing " + std::to_string(missing);
    return r;
  });
}

}  // namespace stampede::health

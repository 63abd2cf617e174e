#include "health/share_parsers.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "health/health_parsers.h"

namespace stampede::health {
namespace {

using Json = nlohmann::json;

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

bool HasFlag(const std::string& flags, std::string_view flag) {
  return ("," + flags + ",").find("," + std::string(flag) + ",") != std::string::npos;
}

// "0-5460" -> 5461, "5461" -> 1; "[93->-id]" and "[93-<-id]" are a slot
// moving: not counted here (its owner lists it as well), but they mark the
// node migrating.
int64_t SlotCount(const std::string& word, bool* migrating) {
  if (!word.empty() && word.front() == '[') {
    *migrating = true;
    return 0;
  }
  const size_t dash = word.find('-');
  long a = 0, b = 0;
  auto parse = [](std::string_view s, long* v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && p == s.data() + s.size() && *v >= 0 && *v < 16384;
  };
  if (dash == std::string::npos) return parse(word, &a) ? 1 : 0;
  if (!parse(std::string_view(word).substr(0, dash), &a) || !parse(std::string_view(word).substr(dash + 1), &b)) {
    return 0;
  }
  return b >= a ? b - a + 1 : 0;
}

template <typename Fn>
StatusOr<Shares> GuardJson(std::string_view text, const char* what, Fn&& parse) {
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status::Error(std::string(what) + ": not JSON");
  try {
    return parse(j);
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(std::string(what) + ": unexpected response (" + e.what() + ")");
  }
}

// A count or size the response may write as a float: 0 when it is not one
// (negative, not finite, or beyond int64; converting those is undefined).
int64_t Count(double v) { return std::isfinite(v) && v >= 0 && v < 9.2e18 ? int64_t(v) : 0; }

int64_t Count(const Json& v) {
  if (!v.is_number()) return 0;
  return v.is_number_float() ? Count(v.get<double>()) : std::max<int64_t>(0, v.get<int64_t>());
}

int64_t Int(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() ? Count(*it) : 0;
}

}  // namespace

StatusOr<Shares> ParseRedisClusterNodes(std::string_view text) {
  Shares out;
  out.unit = "slots";
  std::istringstream in{std::string(text)};
  std::string line;
  std::map<std::string, size_t> by_id;
  std::vector<std::pair<std::string, std::string>> moving;  // (owner id, other id)
  while (std::getline(in, line)) {
    const std::vector<std::string> w = Words(line);
    if (w.size() < 8) continue;
    const std::string& flags = w[2];
    if (!HasFlag(flags, "master") || HasFlag(flags, "fail") || HasFlag(flags, "handshake") ||
        HasFlag(flags, "noaddr")) {
      continue;
    }
    record::NodeShare s;
    s.node = w[1].substr(0, w[1].find_first_of("@,"));
    s.state = "master";
    s.share = 0;
    for (size_t i = 8; i < w.size(); ++i) {
      s.share += double(SlotCount(w[i], &s.migrating));
      // "[slot->-target]": the other end of the move is migrating too.
      const size_t arrow = w[i].find("->-");
      if (arrow != std::string::npos) moving.emplace_back(w[0], w[i].substr(arrow + 3, w[i].size() - arrow - 4));
    }
    by_id[w[0]] = out.nodes.size();
    out.nodes.push_back(std::move(s));
  }
  for (const auto& [from, to] : moving) {
    if (auto it = by_id.find(to); it != by_id.end()) out.nodes[it->second].migrating = true;
  }
  if (out.nodes.empty()) return Status::Error("CLUSTER NODES: no master");
  return out;
}

StatusOr<Shares> ParsePdStoreShares(std::string_view text) {
  return GuardJson(text, "PD stores", [](const Json& j) -> StatusOr<Shares> {
    Shares out;
    out.unit = "regions";
    for (const Json& s : j.at("stores")) {
      const Json& store = s.at("store");
      const Json status = s.value("status", Json::object());
      record::NodeShare n;
      n.node = "store " + std::to_string(Int(store, "id")) + " (" + store.value("address", "") + ")";
      n.state = store.value("state_name", "");
      n.share = double(Int(status, "region_count"));
      n.leaders = double(Int(status, "leader_count"));
      n.bytes = Int(status, "region_size") << 20;  // MiB
      n.migrating = n.state == "Offline";          // draining: its regions are moving away
      out.nodes.push_back(std::move(n));
    }
    return out;
  });
}

StatusOr<Shares> ParseYbTabletServerShares(std::string_view text) {
  return GuardJson(text, "yb-master tablet-servers", [](const Json& j) -> StatusOr<Shares> {
    Shares out;
    out.unit = "tablets";
    for (const auto& [placement, servers] : j.items()) {
      for (const auto& [address, t] : servers.items()) {
        record::NodeShare n;
        n.node = address;
        n.state = t.value("status", "");
        n.share = double(Int(t, "user_tablets_total"));
        n.leaders = double(Int(t, "user_tablets_leaders"));
        n.bytes = Int(t, "total_sst_file_size_bytes");
        out.nodes.push_back(std::move(n));
      }
    }
    return out;
  });
}

StatusOr<Shares> ParseCockroachStoreShares(std::string_view text) {
  Shares out;
  out.unit = "replicas";
  std::map<std::string, record::NodeShare> stores;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t brace = line.find('{'), space = line.rfind(' ');
    if (brace == std::string::npos || space == std::string::npos || space < brace) continue;
    const std::string name = line.substr(0, brace);
    if (name != "replicas" && name != "replicas_leaseholders" && name != "capacity_used") continue;
    const size_t at = line.find("store=\"", brace);
    if (at == std::string::npos) continue;
    const std::string store = line.substr(at + 7, line.find('"', at + 7) - at - 7);
    const double v = std::strtod(line.c_str() + space + 1, nullptr);
    if (!std::isfinite(v) || v < 0 || v >= 9.2e18) continue;  // not a count (a fuzzer found +Inf)
    record::NodeShare& n = stores[store];
    n.node = "store " + store;
    if (name == "replicas") n.share = v;
    if (name == "replicas_leaseholders") n.leaders = v;
    if (name == "capacity_used") n.bytes = int64_t(v);
  }
  for (auto& [id, n] : stores) out.nodes.push_back(std::move(n));
  if (out.nodes.empty()) return Status::Error("/_status/vars: no store metrics");
  return out;
}

const char* const kCockroachNodesSql =
    "SELECT l.node_id AS id, n.address, coalesce(n.is_live, false) AS is_live, s.replicas_leaseholders, s.ranges, "
    "s.live_bytes, n.ranges AS gossiped_replicas, l.membership, l.draining AS is_draining "
    "FROM crdb_internal.gossip_liveness AS l "
    "LEFT JOIN crdb_internal.gossip_nodes AS n ON n.node_id = l.node_id "
    "LEFT JOIN (SELECT node_id, sum((metrics->>'replicas.leaseholders')::DECIMAL)::INT AS replicas_leaseholders, "
    "sum((metrics->>'replicas')::DECIMAL)::INT AS ranges, sum((metrics->>'livebytes')::DECIMAL)::INT8 AS live_bytes "
    "FROM crdb_internal.kv_store_status GROUP BY node_id) AS s ON s.node_id = l.node_id "
    "ORDER BY l.node_id";

namespace {

// A row's cells by column name; NULL, absent or not a count is -1.
class RowReader {
 public:
  explicit RowReader(const SqlRows& t) : t_(t) {}
  int Column(std::string_view name) const {
    for (size_t i = 0; i < t_.columns.size(); ++i) {
      if (t_.columns[i] == name) return int(i);
    }
    return -1;
  }
  const std::optional<std::string>* Cell(size_t row, int column) const {
    const auto& r = t_.rows[row];
    return column >= 0 && size_t(column) < r.size() && r[size_t(column)] ? &r[size_t(column)] : nullptr;
  }
  double Count(size_t row, int column) const {
    const auto* c = Cell(row, column);
    if (!c) return -1;
    char* end = nullptr;
    const double v = std::strtod((*c)->c_str(), &end);
    if (end == (*c)->c_str() || !std::isfinite(v) || v < 0 || v >= 9.2e18) return -1;
    return v;
  }
  // true/false as the CLI prints them, t/f as PostgreSQL's text format does.
  bool Flag(size_t row, int column) const {
    const auto* c = Cell(row, column);
    return c && (**c == "true" || **c == "t");
  }
  std::string Text(size_t row, int column) const {
    const auto* c = Cell(row, column);
    return c && **c != "NULL" ? **c : std::string();
  }

 private:
  const SqlRows& t_;
};

}  // namespace

StatusOr<Shares> ParseCockroachNodeRows(const SqlRows& t) {
  const RowReader r(t);
  const int id = r.Column("id");
  const int counts[] = {r.Column("ranges"), r.Column("gossiped_replicas"), r.Column("replicas")};
  if (id < 0 || std::all_of(std::begin(counts), std::end(counts), [](int c) { return c < 0; })) {
    return Status::Error("CockroachDB node status: no id or replica count column");
  }
  const int address = r.Column("address"), live = r.Column("is_live"), membership = r.Column("membership"),
            decommissioning = r.Column("is_decommissioning"), leaders = r.Column("replicas_leaseholders"),
            bytes = r.Column("live_bytes");
  Shares out;
  out.unit = "replicas";
  for (size_t i = 0; i < t.rows.size() && out.nodes.size() < record::kMaxShareNodes; ++i) {
    record::NodeShare n;
    const std::string where = r.Text(i, address);
    n.node = "n" + r.Text(i, id) + (where.empty() ? "" : " (" + where + ")");
    n.share = 0;  // a node nobody reports a count for holds nothing known
    for (int c : counts) {
      if (const double v = r.Count(i, c); v >= 0) {
        n.share = v;
        break;
      }
    }
    n.leaders = r.Count(i, leaders);
    n.bytes = int64_t(r.Count(i, bytes));
    std::string m = membership >= 0 ? r.Text(i, membership) : (r.Flag(i, decommissioning) ? "decommissioning" : "");
    n.state = !m.empty() && m != "active" ? m : (r.Flag(i, live) ? "live" : "dead");
    n.migrating = n.state == "decommissioning" && n.share > 0;  // its replicas are moving away
    out.nodes.push_back(std::move(n));
  }
  if (out.nodes.empty()) return Status::Error("CockroachDB node status: no node");
  return out;
}

std::vector<std::string> GaleraMembers(std::string_view status) {
  std::vector<std::string> out;
  std::istringstream in(ParseGaleraVars(status)["wsrep_incoming_addresses"]);
  std::string address;
  while (std::getline(in, address, ',')) {
    if (!address.empty() && out.size() < record::kMaxShareNodes) out.push_back(address);
  }
  return out;
}

record::NodeShare GaleraMemberShare(const std::string& address, std::string_view status) {
  std::map<std::string, std::string> vars = ParseGaleraVars(status);
  record::NodeShare n;
  n.node = address;
  n.state = vars["wsrep_local_state_comment"];
  const bool primary = vars["wsrep_cluster_status"] == "Primary";
  if (!primary && !n.state.empty()) n.state += " (" + vars["wsrep_cluster_status"] + ")";
  n.share = primary && vars["wsrep_local_state_comment"] == "Synced" ? 1 : 0;
  n.migrating = n.state.rfind("Joiner", 0) == 0 || n.state.rfind("Donor", 0) == 0 || n.state == "Joined";
  const std::string& received = vars["wsrep_received_bytes"];
  if (!received.empty()) n.bytes = std::strtoll(received.c_str(), nullptr, 10);
  return n;
}

StatusOr<Shares> ParsePatroniShares(std::string_view text) {
  return GuardJson(text, "Patroni /cluster", [](const Json& j) -> StatusOr<Shares> {
    Shares out;
    out.unit = "members";
    for (const Json& m : j.at("members")) {
      if (out.nodes.size() >= record::kMaxShareNodes) break;
      record::NodeShare n;
      n.node = m.value("name", "");
      const std::string role = m.value("role", ""), state = m.value("state", "");
      n.state = role + " " + state;
      const auto lag = m.find("lag");
      if (lag != m.end() && lag->is_number()) n.lag_bytes = Count(*lag);
      const bool up = state == "running" || state == "streaming";
      const bool leads = role == "leader" || role == "standby_leader" || role == "master";
      n.share = up && (leads || (n.lag_bytes >= 0 && n.lag_bytes <= kPatroniCurrentLagBytes)) ? 1 : 0;
      n.migrating = !up || (!leads && n.share == 0);
      out.nodes.push_back(std::move(n));
    }
    if (out.nodes.empty()) return Status::Error("Patroni /cluster: no member");
    return out;
  });
}

}  // namespace stampede::health

#include "health/health_probe.h"

#include <cppconn/connection.h>
#include <cppconn/driver.h>
#include <cppconn/exception.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>
#include <hiredis/hiredis.h>
#include <mysql_driver.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <mutex>
#include <optional>
#include <set>

#include "common/strings.h"
#include "drivers/driver_registry.h"
#include "drivers/mysql_driver.h"
#include "health/pg_rows.h"
#include "health/share_parsers.h"

namespace stampede::health {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

// Shares that could be read go with the health report; ones that could not
// leave it without (the health answer still counts).
void Attach(const StatusOr<Shares>& shares, HealthReport* r) {
  if (!shares.ok()) return;
  r->share_unit = shares->unit;
  r->shares = shares->nodes;
}

class HttpProbe : public HealthProbe {
 public:
  explicit HttpProbe(ProbeOptions o) : o_(std::move(o)) {
    // Patroni: one url per member, unless the plan says how many.
    if (o_.kind == "patroni" && o_.expected_nodes == 0) o_.expected_nodes = static_cast<int>(o_.urls.size());
  }

  StatusOr<HealthReport> Poll() override {
    if (o_.kind == "patroni") return PollPatroni();
    HealthReport total;
    total.healthy = true;
    bool any = false;
    Status last = Status::Error("no health url");
    for (const std::string& url : o_.urls) {
      auto r = PollOne(url);
      if (!r.ok()) {
        last = r.status();
        // A node that does not answer is itself a sign of ill health.
        total.healthy = false;
        total.detail += (total.detail.empty() ? "" : "; ") + r.status().message();
        continue;
      }
      any = true;
      total.Merge(*r);
      if (o_.kind != "cockroachdb") break;  // one answering PD / master is enough
    }
    if (!any) return last;
    if (o_.kind == "cockroachdb" && !o_.endpoints.empty()) AttachCockroachNodes(&total);
    return total;
  }

 private:
  // The whole cluster from the first SQL endpoint that answers, dead and
  // decommissioning nodes included, in place of the stores the answering
  // nodes' /_status/vars listed. If no endpoint answers, the detail says
  // why, and the stores stay only while no poll has read the nodes: a run's
  // shares are never stores one second and nodes the next.
  void AttachCockroachNodes(HealthReport* total) {
    Status last = Status::Error("no endpoint");
    for (const std::string& ep : o_.endpoints) {
      auto rows = PgQueryRows({ep, o_.user, o_.password, o_.database, o_.timeout_ms}, kCockroachNodesSql,
                              int(record::kMaxShareNodes));
      auto shares = rows.ok() ? ParseCockroachNodeRows(*rows) : StatusOr<Shares>(rows.status());
      if (shares.ok()) {
        nodes_read_ = true;
        return Attach(shares, total);
      }
      last = shares.status();
    }
    total->detail += "; nodes over SQL: " + last.message();
    if (nodes_read_) {
      total->share_unit.clear();
      total->shares.clear();
    }
  }

  StatusOr<HealthReport> PollOne(const std::string& base) {
    auto get = [&](const std::string& path) { return HttpGet(base + path, o_.timeout_ms); };
    if (o_.kind == "cockroachdb") {
      auto body = get("/_status/vars");
      if (!body.ok()) return body.status();
      auto r = ParseCockroachVars(*body);
      if (r.ok()) Attach(ParseCockroachStoreShares(*body), &*r);
      return r;
    }
    if (o_.kind == "tidb") {
      HealthReport r;
      r.healthy = true;
      for (const char* check : {"miss-peer", "down-peer", "pending-peer"}) {
        auto body = get(std::string("/pd/api/v1/regions/check/") + check);
        if (!body.ok()) return body.status();
        auto one = ParsePdRegionCheck(*body, check);
        if (!one.ok()) return one.status();
        r.Merge(*one);
      }
      auto stores = get("/pd/api/v1/stores");
      if (!stores.ok()) return stores.status();
      auto s = ParsePdStores(*stores);
      if (!s.ok()) return s.status();
      r.Merge(*s);
      Attach(ParsePdStoreShares(*stores), &r);
      return r;
    }
    if (o_.kind == "yugabytedb") {
      auto under = get("/api/v1/tablet-under-replication");
      if (!under.ok()) return under.status();
      auto r = ParseYbUnderReplication(*under);
      if (!r.ok()) return r.status();
      auto servers = get("/api/v1/tablet-servers");
      if (!servers.ok()) return servers.status();
      auto s = ParseYbTabletServers(*servers);
      if (!s.ok()) return s.status();
      r->Merge(*s);
      Attach(ParseYbTabletServerShares(*servers), &*r);
      return r;
    }
    return Status::Error("health kind " + o_.kind + ": not an HTTP kind");
  }

  // Every member's own view, the worst of them: a member cut off from the
  // DCS still shows the cluster as it last saw it (healthy, itself the
  // leader), and only the others' views say it is not.
  StatusOr<HealthReport> PollPatroni() {
    std::optional<HealthReport> worst;
    std::set<std::string> leaders;
    std::string silent;
    StatusOr<Shares> shares = Status::Error("no answer");
    for (const std::string& url : o_.urls) {
      auto body = HttpGet(url + "/cluster", o_.timeout_ms);
      std::string leader;
      auto r = body.ok() ? ParsePatroniCluster(*body, o_.expected_nodes, &leader) : body.status();
      if (r.ok() && !shares.ok()) shares = ParsePatroniShares(*body);  // the members as the first answer lists them
      if (!r.ok()) {
        silent += (silent.empty() ? "" : "; ") + r.status().message();
        continue;
      }
      leaders.insert(leader.empty() ? "none" : leader);
      if (!worst || r->unavailable > worst->unavailable || (worst->healthy && !r->healthy)) worst = *r;
    }
    if (!worst) return Status::Error(silent);
    Attach(shares, &*worst);
    if (!silent.empty()) {
      worst->healthy = false;  // a member that does not answer is itself a sign of ill health
      worst->detail += "; " + silent;
    }
    if (leaders.size() > 1) {
      worst->healthy = false;
      worst->detail += "; the members disagree on the leader (" + Join({leaders.begin(), leaders.end()}, ", ") + ")";
    }
    return *worst;
  }

  ProbeOptions o_;
  bool nodes_read_ = false;  // a poll has read the nodes over SQL
};

class GaleraProbe : public HealthProbe {
 public:
  explicit GaleraProbe(ProbeOptions o) : o_(std::move(o)) {
    if (o_.expected_nodes == 0) o_.expected_nodes = static_cast<int>(o_.endpoints.size());
  }

  StatusOr<HealthReport> Poll() override {
    sql::Driver* driver = drivers::MysqlConnectorDriver();
    driver->threadInit();
    Status last = Status::Error("no endpoint");
    // The first node that answers speaks for the cluster; a node outside the
    // primary component says so itself.
    for (const std::string& ep : o_.endpoints) {
      auto text = WsrepStatus(driver, ep);
      if (!text.ok()) {
        last = text.status();
        continue;
      }
      auto r = ParseGaleraStatus(*text, o_.expected_nodes);
      if (r.ok()) {
        r->detail = ep + ": " + r->detail;
        // Where the data is: each member's own state (a joiner, a donor).
        r->share_unit = "members";
        for (const std::string& member : GaleraMembers(*text)) {
          auto own = member == ep ? text : WsrepStatus(driver, member);
          r->shares.push_back(own.ok() ? GaleraMemberShare(member, *own)
                                       : record::NodeShare{member, 0, -1, -1, -1, "no answer", false});
        }
      }
      driver->threadEnd();
      return r;
    }
    driver->threadEnd();
    return last;
  }

 private:
  // SHOW STATUS LIKE 'wsrep_%' on one node, as "name<TAB>value" lines.
  StatusOr<std::string> WsrepStatus(sql::Driver* driver, const std::string& ep) const {
    std::string host;
    int port = 0;
    if (!SplitHostPort(ep, &host, &port)) return Status::Error(ep + ": not host:port");
    try {
      sql::ConnectOptionsMap props;
      props["hostName"] = sql::SQLString("tcp://" + host);
      props["port"] = port;
      props["userName"] = sql::SQLString(o_.user);
      props["password"] = sql::SQLString(o_.password);
      props["OPT_CONNECT_TIMEOUT"] = std::max(1, o_.timeout_ms / 1000);
      props["OPT_READ_TIMEOUT"] = std::max(1, o_.timeout_ms / 1000);
      std::unique_ptr<sql::Connection> c(driver->connect(props));
      std::unique_ptr<sql::Statement> st(c->createStatement());
      std::unique_ptr<sql::ResultSet> rs(st->executeQuery("SHOW STATUS LIKE 'wsrep_%'"));
      std::string text;
      while (rs->next()) text += std::string(rs->getString(1)) + "\t" + std::string(rs->getString(2)) + "\n";
      return text;
    } catch (const sql::SQLException& e) {
      return Status::Error(ep + ": " + e.what());
    }
  }

  ProbeOptions o_;
};

class RedisClusterProbe : public HealthProbe {
 public:
  explicit RedisClusterProbe(ProbeOptions o) : o_(std::move(o)) {}

  StatusOr<HealthReport> Poll() override {
    Status last = Status::Error("no endpoint");
    for (const std::string& ep : o_.endpoints) {
      redisContext* c = nullptr;
      if (Status s = Connect(ep, &c); !s.ok()) {
        last = s;
        continue;
      }
      StatusOr<HealthReport> result =
          Ask(c, ep, "CLUSTER INFO", [](std::string_view text) { return ParseRedisClusterInfo(text); });
      if (result.ok()) {
        // Where the slots are, and how many keys each master holds.
        auto shares = Ask(c, ep, "CLUSTER NODES", [](std::string_view text) { return ParseRedisClusterNodes(text); });
        if (shares.ok()) {
          for (record::NodeShare& n : shares->nodes) n.keys = KeysOn(n.node);
          Attach(shares, &*result);
        }
      }
      redisFree(c);
      if (result.ok()) return result;
      last = result.status();
    }
    return last;
  }

 private:
  Status Connect(const std::string& ep, redisContext** out) const {
    std::string host;
    int port = 0;
    if (!SplitHostPort(ep, &host, &port)) return Status::Error(ep + ": not host:port");
    timeval tv{o_.timeout_ms / 1000, (o_.timeout_ms % 1000) * 1000};
    redisContext* c = redisConnectWithTimeout(host.c_str(), port, tv);
    if (!c || c->err) {
      Status s = Status::Error(ep + ": " + (c ? c->errstr : "out of memory"));
      if (c) redisFree(c);
      return s;
    }
    redisSetTimeout(c, tv);
    if (!o_.password.empty()) {
      auto* a = static_cast<redisReply*>(redisCommand(c, "AUTH %s", o_.password.c_str()));
      if (a) freeReplyObject(a);
    }
    *out = c;
    return Status::Ok();
  }

  // One command whose answer is a string, parsed.
  template <typename Parse>
  static auto Ask(redisContext* c, const std::string& ep, const char* command, Parse parse)
      -> decltype(parse(std::string_view())) {
    auto* r = static_cast<redisReply*>(redisCommand(c, command));
    decltype(parse(std::string_view())) result = Status::Error(ep + ": no reply to " + command);
    if (r && r->type == REDIS_REPLY_STRING) {
      result = parse(std::string_view(r->str, r->len));
    } else if (r && r->type == REDIS_REPLY_ERROR) {
      result = Status::Error(ep + ": " + std::string(r->str, r->len));
    }
    if (r) freeReplyObject(r);
    return result;
  }

  // DBSIZE on a master, -1 if it does not answer.
  int64_t KeysOn(const std::string& node) const {
    redisContext* c = nullptr;
    if (!Connect(node, &c).ok()) return -1;
    auto* r = static_cast<redisReply*>(redisCommand(c, "DBSIZE"));
    const int64_t keys = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    if (r) freeReplyObject(r);
    redisFree(c);
    return keys;
  }

  ProbeOptions o_;
};

// postgres, mysql, redis: every endpoint must accept a connection and answer
// a trivial statement with the target's own driver. Nodes that do not are
// counted as unavailable.
class EndpointsProbe : public HealthProbe {
 public:
  explicit EndpointsProbe(ProbeOptions o) : o_(std::move(o)) {}

  StatusOr<HealthReport> Poll() override {
    const drivers::DriverInfo* info = drivers::FindDriver(o_.kind);
    if (!info) return Status::Error("no driver for health kind " + o_.kind);
    HealthReport r;
    r.live_nodes = 0;
    std::string down;
    for (const std::string& ep : o_.endpoints) {
      drivers::ConnectOptions c;
      if (!SplitHostPort(ep, &c.host, &c.port)) continue;
      c.user = o_.user;
      c.password = o_.password;
      c.database = o_.database;
      c.connect_timeout_ms = o_.timeout_ms;
      c.op_timeout_ms = o_.timeout_ms;
      std::unique_ptr<drivers::Driver> d = info->factory(info->flavors.empty() ? "" : info->flavors[0]);
      Status s = d->Connect(c);
      if (s.ok()) s = d->ExecuteOnce(o_.kind == "redis" ? "PING" : "SELECT 1");
      d->Close();
      if (s.ok()) {
        ++r.live_nodes;
      } else {
        ++r.unavailable;
        down += (down.empty() ? "" : "; ") + s.message();
      }
    }
    r.healthy = r.unavailable == 0 && r.live_nodes > 0;
    r.detail = std::to_string(r.live_nodes) + " of " + std::to_string(o_.endpoints.size()) + " endpoint(s) answer" +
               (down.empty() ? "" : ": " + down);
    return r;
  }

 private:
  ProbeOptions o_;
};

}  // namespace

const HealthKind* FindHealthKind(std::string_view name) {
  for (const HealthKind& k : kHealthKinds) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::vector<std::string> HealthKinds() {
  std::vector<std::string> names;
  for (const HealthKind& k : kHealthKinds) names.emplace_back(k.name);
  return names;
}

StatusOr<std::unique_ptr<HealthProbe>> MakeHealthProbe(const ProbeOptions& o) {
  const HealthKind* kind = FindHealthKind(o.kind);
  if (!kind) return Status::Error("unknown health kind '" + o.kind + "'");
  if (kind->source == HealthSource::kUrls) {
    if (o.urls.empty()) return Status::Error("health kind " + o.kind + " needs urls");
    return std::unique_ptr<HealthProbe>(new HttpProbe(o));
  }
  if (o.kind == "galera") return std::unique_ptr<HealthProbe>(new GaleraProbe(o));
  if (o.kind == "redis-cluster") return std::unique_ptr<HealthProbe>(new RedisClusterProbe(o));
  return std::unique_ptr<HealthProbe>(new EndpointsProbe(o));  // postgres, mysql, redis
}

StatusOr<std::string> HttpGet(const std::string& url, int timeout_ms) {
  const std::string prefix = "http://";
  if (url.rfind(prefix, 0) != 0) return Status::Error(url + ": only http:// urls are supported");
  std::string rest = url.substr(prefix.size());
  size_t slash = rest.find('/');
  std::string hostport = rest.substr(0, slash);
  std::string target = slash == std::string::npos ? "/" : rest.substr(slash);
  std::string host = hostport, port = "80";
  size_t colon = hostport.rfind(':');
  if (colon != std::string::npos) {
    host = hostport.substr(0, colon);
    port = hostport.substr(colon + 1);
  }
  try {
    boost::asio::io_context ioc;
    tcp::resolver resolver(ioc);
    beast::tcp_stream stream(ioc);
    stream.expires_after(std::chrono::milliseconds(timeout_ms));
    stream.connect(resolver.resolve(host, port));
    http::request<http::empty_body> req{http::verb::get, target, 11};
    req.set(http::field::host, host);
    req.set(http::field::user_agent, "stampede");
    stream.expires_after(std::chrono::milliseconds(timeout_ms));
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    beast::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    if (res.result_int() / 100 != 2) {
      return Status::Error(url + ": HTTP " + std::to_string(res.result_int()));
    }
    return std::string(res.body());
  } catch (const std::exception& e) {
    return Status::Error(url + ": " + e.what());
  }
}

}  // namespace stampede::health

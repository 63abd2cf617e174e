#include "agent/fault_proxy.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <deque>
#include <future>
#include <optional>
#include <set>
#include <thread>
#include <utility>  // first: Boost 1.74's awaitable.hpp needs it

#include "agent/config_yaml.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/rng.h"
#include "proto/fault_action.h"

namespace stampede::agent {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using tcp = asio::ip::tcp;
using ProxyClock = std::chrono::steady_clock;

constexpr size_t kProxyChunk = 16384;
// What a direction may hold back (delay, bandwidth, timeout) before it stops
// reading: the sender then waits as on a slow link.
constexpr size_t kProxyMaxQueued = 4 << 20;

ProxyClock::time_point NeverExpires() { return ProxyClock::time_point::max(); }

// HOST:PORT or [V6]:PORT.
bool ParseHostPort(const std::string& s, std::string* host, uint16_t* port) {
  const size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string h = s.substr(0, colon);
  if (h.front() == '[') {
    if (h.back() != ']') return false;
    h = h.substr(1, h.size() - 2);
  }
  const std::string p = s.substr(colon + 1);
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos) return false;
  const int v = std::stoi(p);
  if (v < 1 || v > 65535 || h.empty()) return false;
  *host = h;
  *port = static_cast<uint16_t>(v);
  return true;
}

void ReadProxySpec(const YAML::Node& m, const std::string& field, ConfigProblems* problems,
                   std::vector<ProxySpec>* out) {
  if (!m.IsMap()) {
    return problems->Add(m, field, "expected {listen: HOST:PORT, upstream: HOST:PORT}");
  }
  problems->CheckKeys(m, field + ".", {"listen", "upstream"});
  ProxySpec spec;
  bool ok = true;
  for (const char* key : {"listen", "upstream"}) {
    const bool listen = key[0] == 'l';
    const YAML::Node v = m[key];
    if (!v || !v.IsScalar() ||
        !ParseHostPort(v.Scalar(), listen ? &spec.listen_host : &spec.upstream_host,
                       listen ? &spec.listen_port : &spec.upstream_port)) {
      problems->Add(v ? v : m, field + "." + key, "expected HOST:PORT like 127.0.0.1:16379");
      ok = false;
    }
  }
  if (ok) out->push_back(std::move(spec));
}

uint32_t DirectionMask(const v1::NetFault& net, uint32_t dflt) {
  if (net.direction() == "in") return 1;
  if (net.direction() == "out") return 2;
  if (net.direction() == "both") return 3;
  return dflt;
}

}  // namespace

std::vector<ProxySpec> ProxySpec::FromYaml(const YAML::Node& n, const std::string& field, ConfigProblems* problems) {
  std::vector<ProxySpec> specs;
  if (n.IsSequence() && n.size() > 0) {
    for (size_t i = 0; i < n.size(); ++i) ReadProxySpec(n[i], field + "[" + std::to_string(i) + "]", problems, &specs);
  } else {
    ReadProxySpec(n, field, problems, &specs);
  }
  return specs;
}

bool IsProxyAction(const std::string& action) {
  return action == "delay" || action == "bandwidth" || action == "reset" || action == "timeout" ||
         action == "slow-close" || action == "heal";
}

StatusOr<ProxyState> NextProxyState(const ProxyState& now, const std::string& action, const v1::NetFault& net) {
  const std::string& d = net.direction();
  if (!d.empty() && d != "in" && d != "out" && d != "both") {
    return Status::Error("direction must be in, out or both, not '" + d + "'");
  }
  ProxyState next = now;
  if (action == "heal") return ProxyState{};
  if (action == "delay") {
    if (net.delay_ms() < 1 || net.delay_ms() > kMaxNetDelayMs || net.jitter_ms() > net.delay_ms()) {
      return Status::Error("delay must be 1 .. 60000 ms with a jitter of at most the delay");
    }
    const uint32_t mask = DirectionMask(net, 2);
    for (int i : {0, 1}) {
      if (mask & (1u << i)) {
        next.delay_ms[i] = net.delay_ms();
        next.jitter_ms[i] = net.jitter_ms();
      }
    }
  } else if (action == "bandwidth") {
    const uint64_t b = net.bandwidth_bytes_per_s();
    if (b < kMinBandwidth || b > kMaxBandwidth) return Status::Error("bandwidth must be 1KB/s .. 1TiB/s");
    const uint32_t mask = DirectionMask(net, 3);
    for (int i : {0, 1}) {
      if (mask & (1u << i)) next.bandwidth[i] = b;
    }
  } else if (action == "reset") {
    next.reset = true;
  } else if (action == "timeout") {
    next.timeout = true;
  } else if (action == "slow-close") {
    if (net.delay_ms() < 1 || net.delay_ms() > kMaxNetDelayMs) return Status::Error("slow-close needs 1 .. 60000 ms");
    next.slow_close_ms = net.delay_ms();
  } else {
    return Status::Error("the proxy does not do '" + action + "'");
  }
  return next;
}

// Everything below runs on the proxy's one thread.
namespace {

struct ProxyNode;

// One proxied connection: two directions, each a reader and a writer.
// Bytes go straight from reader to socket while nothing is applied and
// nothing waits; otherwise through the direction's queue, in order.
class ProxyLink {
 public:
  ProxyLink(tcp::socket client, ProxyNode* node, tcp::endpoint upstream);
  ~ProxyLink();
  // self: keeps the link alive from the coroutine's creation on (its body
  // starts later).
  awaitable<void> Run(std::shared_ptr<ProxyLink> self);
  void Wake() {
    for (Pipe& p : pipes_) p.wake.cancel();
  }
  void Close(bool rst);

 private:
  struct Chunk {
    ProxyClock::time_point due;
    std::vector<char> data;
  };
  struct Pipe {
    explicit Pipe(const asio::any_io_executor& ex) : wake(ex, NeverExpires()), room(ex, NeverExpires()), timer(ex) {}
    std::deque<Chunk> queue;
    size_t queued = 0;
    ProxyClock::time_point last_due;
    bool eof = false;
    asio::steady_timer wake, room;  // signals: the writer has work, the reader room
    asio::steady_timer timer;       // the writer's deadlines
  };
  tcp::socket& From(int dir) { return dir == 0 ? client_ : upstream_; }
  tcp::socket& To(int dir) { return dir == 0 ? upstream_ : client_; }
  awaitable<void> Read(std::shared_ptr<ProxyLink> self, int dir);
  awaitable<void> Write(std::shared_ptr<ProxyLink> self, int dir);
  awaitable<void> WriteShaped(int dir, const char* data, size_t n, boost::system::error_code& ec);
  awaitable<void> EndOf();

  tcp::socket client_, upstream_;
  ProxyNode* node_;
  tcp::endpoint to_;
  std::array<Pipe, 2> pipes_;
  asio::steady_timer closing_;  // slow-close's wait
  bool closed_ = false;
};

struct ProxyNode {
  explicit ProxyNode(asio::io_context& io) : healed(io, NeverExpires()), rng(0x9e3779b97f4a7c15ull) {}
  ProxyState state;
  std::set<ProxyLink*> links;
  asio::steady_timer healed;  // a signal to a timeout's waiters
  ProxyClock::time_point next_free[2];
  Rng rng;

  ProxyClock::duration Delay(int dir) {
    const int64_t d = state.delay_ms[dir], j = state.jitter_ms[dir];
    const int64_t ms = j ? d - j + int64_t(rng.Uniform(uint64_t(2 * j + 1))) : d;
    return std::chrono::milliseconds(ms);
  }
  // When n more bytes have passed at the node's bandwidth (the bucket is
  // shared by its connections).
  ProxyClock::time_point Reserve(int dir, size_t n) {
    const ProxyClock::time_point start = std::max(ProxyClock::now(), next_free[dir]);
    next_free[dir] = start + std::chrono::nanoseconds(n * 1'000'000'000ull / state.bandwidth[dir]);
    return next_free[dir];
  }
};

// Waits until `until`: t is the caller's own.
awaitable<void> WaitUntil(asio::steady_timer& t, ProxyClock::time_point until) {
  boost::system::error_code ec;
  t.expires_at(until);
  co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

// Waits for a signal: another coroutine's cancel() of s, a timer that never
// expires (several may wait on one).
awaitable<void> WaitSignal(asio::steady_timer& s) {
  boost::system::error_code ec;
  co_await s.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

ProxyLink::ProxyLink(tcp::socket client, ProxyNode* node, tcp::endpoint upstream)
    : client_(std::move(client)),
      upstream_(client_.get_executor()),
      node_(node),
      to_(upstream),
      pipes_{Pipe(client_.get_executor()), Pipe(client_.get_executor())},
      closing_(client_.get_executor()) {
  node_->links.insert(this);
}

ProxyLink::~ProxyLink() { node_->links.erase(this); }

void ProxyLink::Close(bool rst) {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ec;
  for (tcp::socket* s : {&client_, &upstream_}) {
    if (rst && s->is_open()) s->set_option(asio::socket_base::linger(true, 0), ec);
    s->close(ec);
  }
  Wake();
  for (Pipe& p : pipes_) {
    p.room.cancel();
    p.timer.cancel();
  }
  closing_.cancel();
}

awaitable<void> ProxyLink::Run(std::shared_ptr<ProxyLink> self) {
  // A timeout holds a new connection unanswered: the upstream is not even
  // asked until heal.
  while (node_->state.timeout && !closed_) co_await WaitSignal(node_->healed);
  boost::system::error_code ec;
  if (!closed_) co_await upstream_.async_connect(to_, asio::redirect_error(asio::use_awaitable, ec));
  if (closed_ || ec) co_return Close(true);
  upstream_.set_option(tcp::no_delay(true), ec);
  client_.set_option(tcp::no_delay(true), ec);
  auto ex = client_.get_executor();
  for (int dir : {0, 1}) {
    asio::co_spawn(ex, Read(self, dir), asio::detached);
    asio::co_spawn(ex, Write(self, dir), asio::detached);
  }
}

awaitable<void> ProxyLink::Read(std::shared_ptr<ProxyLink> /*self*/, int dir) {
  Pipe& p = pipes_[dir];
  std::array<char, kProxyChunk> buf;
  boost::system::error_code ec;
  while (!closed_) {
    while (!closed_ && (node_->state.timeout || p.queued > kProxyMaxQueued)) {
      co_await WaitSignal(node_->state.timeout ? node_->healed : p.room);
    }
    if (closed_) break;
    const size_t n =
        co_await From(dir).async_read_some(asio::buffer(buf), asio::redirect_error(asio::use_awaitable, ec));
    if (closed_) break;
    if (ec) {  // the writer passes it on once the queue is through
      p.eof = true;
      p.wake.cancel();
      break;
    }
    const ProxyState& st = node_->state;
    if (p.queue.empty() && !st.timeout && !st.delay_ms[dir] && !st.bandwidth[dir]) {
      co_await asio::async_write(To(dir), asio::buffer(buf.data(), n), asio::redirect_error(asio::use_awaitable, ec));
      if (ec) Close(true);
      continue;
    }
    // In order: a jittered chunk never overtakes the one before it.
    p.last_due = std::max(ProxyClock::now() + node_->Delay(dir), p.last_due);
    p.queue.push_back({p.last_due, std::vector<char>(buf.data(), buf.data() + n)});
    p.queued += n;
    p.wake.cancel();
  }
}

awaitable<void> ProxyLink::Write(std::shared_ptr<ProxyLink> /*self*/, int dir) {
  Pipe& p = pipes_[dir];
  boost::system::error_code ec;
  while (!closed_) {
    if (p.queue.empty() || node_->state.timeout) {
      if (p.queue.empty() && p.eof) co_return co_await EndOf();
      co_await WaitSignal(p.wake);
      continue;
    }
    const Chunk& c = p.queue.front();
    if (c.due > ProxyClock::now()) {
      co_await WaitUntil(p.timer, c.due);
      continue;
    }
    co_await WriteShaped(dir, c.data.data(), c.data.size(), ec);
    if (closed_) co_return;
    if (ec) co_return Close(true);
    p.queued -= c.data.size();
    p.queue.pop_front();
    p.room.cancel();
  }
}

// At the node's bandwidth, in pieces of about 20 ms each.
awaitable<void> ProxyLink::WriteShaped(int dir, const char* data, size_t n, boost::system::error_code& ec) {
  size_t off = 0;
  while (off < n && !closed_) {
    const uint64_t rate = node_->state.bandwidth[dir];
    const size_t piece = rate ? std::clamp<size_t>(rate / 50, 1, kProxyChunk) : n - off;
    const size_t len = std::min(piece, n - off);
    if (rate) co_await WaitUntil(pipes_[dir].timer, node_->Reserve(dir, len));
    if (closed_) co_return;
    co_await asio::async_write(To(dir), asio::buffer(data + off, len), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;
    off += len;
  }
}

// One side closed (or failed) and what it sent before has been passed on:
// the other side learns of it, slow-close's delay later.
awaitable<void> ProxyLink::EndOf() {
  if (closed_) co_return;
  if (node_->state.slow_close_ms) {
    co_await WaitUntil(closing_, ProxyClock::now() + std::chrono::milliseconds(node_->state.slow_close_ms));
  }
  Close(false);
}

struct ProxyListener {
  ProxyListener(asio::io_context& io, ProxyNode* n) : acceptor(io), node(n) {}
  tcp::acceptor acceptor;
  ProxyNode* node;
  tcp::endpoint upstream;
};

awaitable<void> AcceptLoop(ProxyListener* l) {
  boost::system::error_code ec;
  asio::steady_timer pause(l->acceptor.get_executor());
  while (l->acceptor.is_open()) {
    tcp::socket s = co_await l->acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted || !l->acceptor.is_open()) co_return;
    if (ec) {  // out of descriptors, say: try again shortly
      co_await WaitUntil(pause, ProxyClock::now() + std::chrono::milliseconds(50));
      continue;
    }
    if (l->node->state.reset) {
      s.set_option(asio::socket_base::linger(true, 0), ec);
      s.close(ec);
      continue;
    }
    auto link = std::make_shared<ProxyLink>(std::move(s), l->node, l->upstream);
    asio::co_spawn(l->acceptor.get_executor(), link->Run(link), asio::detached);
  }
}

}  // namespace

struct FaultProxy::Impl {
  // Declared first: the nodes' and listeners' timers and sockets go before it.
  asio::io_context io;
  std::map<std::string, std::unique_ptr<ProxyNode>> nodes;
  std::vector<std::unique_ptr<ProxyListener>> listeners;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard{io.get_executor()};
  std::thread thread;

  // On the proxy's thread, and waited for.
  template <typename F>
  auto Call(F f) {
    std::packaged_task<decltype(f())()> task(std::move(f));
    auto done = task.get_future();
    asio::post(io, [&task] { task(); });
    return done.get();
  }
};

FaultProxy::FaultProxy() = default;

// Everything is closed and every wait cut short, so each coroutine ends on
// its own and the thread's run() returns once none is left.
FaultProxy::~FaultProxy() {
  if (!impl_ || !impl_->thread.joinable()) return;
  impl_->Call([this] {
    for (auto& l : impl_->listeners) {
      boost::system::error_code ec;
      l->acceptor.close(ec);
    }
    for (auto& [name, n] : impl_->nodes) {
      for (ProxyLink* link : std::vector<ProxyLink*>(n->links.begin(), n->links.end())) link->Close(false);
      n->state = ProxyState{};
      n->healed.cancel();
    }
    impl_->guard.reset();
    return 0;
  });
  impl_->thread.join();
}

void FaultProxy::Declare(const std::string& node, std::vector<ProxySpec> specs) {
  auto& v = specs_[node];
  for (auto& s : specs) v.push_back(std::move(s));
}

Status FaultProxy::Start() {
  if (specs_.empty() || impl_) return Status::Ok();
  auto impl = std::make_unique<Impl>();
  tcp::resolver resolver(impl->io);
  for (const auto& [node, specs] : specs_) {
    auto& np = impl->nodes[node] = std::make_unique<ProxyNode>(impl->io);
    for (const ProxySpec& s : specs) {
      const std::string at = "node " + node + ": proxy " + s.listen_host + ":" + std::to_string(s.listen_port);
      auto l = std::make_unique<ProxyListener>(impl->io, np.get());
      boost::system::error_code ec;
      auto up = resolver.resolve(s.upstream_host, std::to_string(s.upstream_port), ec);
      if (ec || up.empty()) return Status::Error(at + ": upstream " + s.upstream_host + ": " + ec.message());
      l->upstream = *up.begin();
      auto here = resolver.resolve(s.listen_host, std::to_string(s.listen_port), ec);
      if (ec || here.empty()) return Status::Error(at + ": " + ec.message());
      const tcp::endpoint ep = *here.begin();
      l->acceptor.open(ep.protocol(), ec);
      if (!ec) l->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
      if (!ec) l->acceptor.bind(ep, ec);
      if (!ec) l->acceptor.listen(asio::socket_base::max_listen_connections, ec);
      if (ec) return Status::Error(at + ": " + ec.message());
      impl->listeners.push_back(std::move(l));
    }
  }
  for (auto& l : impl->listeners) asio::co_spawn(impl->io, AcceptLoop(l.get()), asio::detached);
  impl->thread = std::thread([io = &impl->io] { io->run(); });
  impl_ = std::move(impl);
  return Status::Ok();
}

Status FaultProxy::Apply(const std::string& node, const std::string& action, const v1::NetFault& net) {
  if (!specs_.count(node)) return Status::Error("node '" + node + "' declares no proxy: in this agent's config");
  if (!impl_ || !impl_->thread.joinable()) return Status::Error("the proxy of node '" + node + "' is not running");
  MutexLock lock(mu_);
  auto next = NextProxyState(state_[node], action, net);
  if (!next.ok()) return next.status();
  state_[node] = *next;
  ProxyNode* np = impl_->nodes.at(node).get();
  impl_->Call([np, st = *next, reset = action == "reset"] {
    np->state = st;
    if (reset) {
      for (ProxyLink* link : std::vector<ProxyLink*>(np->links.begin(), np->links.end())) link->Close(true);
    }
    if (!st.timeout) np->healed.cancel();
    for (ProxyLink* link : np->links) link->Wake();
    return 0;
  });
  return Status::Ok();
}

int FaultProxy::Connections(const std::string& node) {
  if (!impl_ || !impl_->nodes.count(node)) return 0;
  ProxyNode* np = impl_->nodes.at(node).get();
  return impl_->Call([np] { return static_cast<int>(np->links.size()); });
}

}  // namespace stampede::agent

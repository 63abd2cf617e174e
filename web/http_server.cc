#include "web/http_server.h"

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast.hpp>

#include "common/log.h"

namespace stampede::web {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr auto kTimeout = std::chrono::seconds(10);
// Connections open at once; more are closed as they arrive.
constexpr int kMaxConnections = 64;
// Handlers run here, not on the thread that reads and writes sockets: a
// slow request (an old run's journal read from disk) does not hold up the
// live dashboard's polls.
constexpr int kHandlerThreads = 2;

struct ServerState {
  HttpHandler handler;
  asio::thread_pool pool{kHandlerThreads};
  std::atomic<int> open{0};
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, ServerState* state) : stream_(std::move(socket)), state_(state) { ++state_->open; }
  ~Session() { --state_->open; }

  void Start() {
    stream_.expires_after(kTimeout);
    http::async_read(stream_, buffer_, request_,
                     [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

 private:
  void OnRead(beast::error_code ec) {
    if (ec) return;
    if (request_.method() != http::verb::get && request_.method() != http::verb::head) {
      Respond({405, "text/plain", "GET only\n"});
      return;
    }
    asio::post(state_->pool, [self = shared_from_this()] {
      HttpResponse r = self->state_->handler(std::string(self->request_.target()));
      asio::post(self->stream_.get_executor(), [self, r = std::move(r)]() mutable { self->Respond(std::move(r)); });
    });
  }

  void Respond(HttpResponse r) {
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(request_.version());
    res->keep_alive(false);
    res->set(http::field::server, "stampede");
    res->set(http::field::cache_control, "no-store");
    res->result(static_cast<http::status>(r.status));
    res->set(http::field::content_type, r.content_type);
    if (request_.method() == http::verb::get) res->body() = std::move(r.body);
    res->prepare_payload();
    http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code, size_t) {
      beast::error_code ignored;
      self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  ServerState* const state_;
};

}  // namespace

struct HttpServer::Impl {
  ServerState state;  // first: outlives the sessions io destroys
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::thread thread;

  void Accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec) {
        if (ec != asio::error::operation_aborted) Accept();
        return;
      }
      if (state.open.load() >= kMaxConnections) {
        beast::error_code ignored;
        socket.close(ignored);  // over the limit: the client sees the connection closed
      } else {
        std::make_shared<Session>(std::move(socket), &state)->Start();
      }
      Accept();
    });
  }
};

HttpServer::HttpServer() : impl_(std::make_unique<Impl>()) {}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start(const std::string& address, HttpHandler handler) {
  // HOST:PORT; port 0 (any free port) is allowed here.
  const size_t colon = address.rfind(':');
  std::string host = colon == std::string::npos ? "" : address.substr(0, colon);
  int port = -1;
  if (colon != std::string::npos) {
    const std::string p = address.substr(colon + 1);
    if (!p.empty() && p.size() <= 5 && p.find_first_not_of("0123456789") == std::string::npos) port = std::stoi(p);
  }
  if (host.empty() || port < 0 || port > 65535) return Status::Error(address + ": expected HOST:PORT");
  beast::error_code ec;
  const auto ip = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec) return Status::Error(address + ": " + host + " is not an IP address");
  const tcp::endpoint endpoint(ip, static_cast<unsigned short>(port));
  impl_->state.handler = std::move(handler);
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::Error(address + ": " + ec.message());
  port_ = impl_->acceptor.local_endpoint().port();
  impl_->Accept();
  impl_->thread = std::thread([this] {
    try {
      impl_->io.run();
    } catch (const std::exception& e) {
      SLOG(kError) << "http server: " << e.what();
    }
  });
  return Status::Ok();
}

void HttpServer::Stop() {
  if (!impl_->thread.joinable()) return;
  asio::post(impl_->io, [this] {
    beast::error_code ignored;
    impl_->acceptor.close(ignored);
  });
  impl_->io.stop();
  impl_->thread.join();
  // Handlers still running finish; their responses are dropped with io.
  impl_->state.pool.join();
}

}  // namespace stampede::web

// A small HTTP/1.1 server (Boost.Beast) for the dashboard, its JSON API and
// /metrics. GET and HEAD only; one request per connection; at most 64
// connections at once, each given 10 s. A handler maps the request target to
// a response; handlers run on two threads of their own (so they must be
// thread-safe), apart from the thread that reads and writes the sockets.
#ifndef STAMPEDE_WEB_HTTP_SERVER_H_
#define STAMPEDE_WEB_HTTP_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/status.h"

namespace stampede::web {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using HttpHandler = std::function<HttpResponse(const std::string& target)>;

class HttpServer {
 public:
  HttpServer();
  ~HttpServer();

  // Binds ADDR (host:port; port 0 picks one) and serves on a thread.
  // "--http 127.0.0.1:8080: Address already in use" style errors.
  Status Start(const std::string& address, HttpHandler handler);
  void Stop();
  int port() const { return port_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace stampede::web

#endif  // STAMPEDE_WEB_HTTP_SERVER_H_

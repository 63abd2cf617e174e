#include "web/http_server.h"

#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <chrono>
#include <thread>
#include <vector>

namespace stampede::web {
namespace {

using tcp = boost::asio::ip::tcp;

// GET target over a plain socket; the whole response, or "" if closed.
std::string Get(int port, const std::string& target) {
  boost::asio::io_context io;
  tcp::socket s(io);
  boost::system::error_code ec;
  s.connect({boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)}, ec);
  if (ec) return "";
  const std::string req = "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
  boost::asio::write(s, boost::asio::buffer(req), ec);
  std::string out;
  char buf[4096];
  for (;;) {
    const size_t n = s.read_some(boost::asio::buffer(buf), ec);
    out.append(buf, n);
    if (ec) break;
  }
  return out;
}

TEST(HttpServerTest, ASlowRequestDoesNotHoldUpOthers) {
  HttpServer server;
  ASSERT_TRUE(server
                  .Start("127.0.0.1:0",
                         [](const std::string& target) {
                           if (target == "/slow") std::this_thread::sleep_for(std::chrono::seconds(2));
                           return HttpResponse{200, "text/plain", "answer " + target};
                         })
                  .ok());
  std::thread slow([&] { EXPECT_NE(Get(server.port(), "/slow").find("answer /slow"), std::string::npos); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_NE(Get(server.port(), "/fast").find("answer /fast"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  slow.join();
  server.Stop();
}

TEST(HttpServerTest, ConnectionsBeyondTheLimitAreClosed) {
  HttpServer server;
  ASSERT_TRUE(server.Start("127.0.0.1:0", [](const std::string&) { return HttpResponse{}; }).ok());
  // 64 idle connections hold every slot; the 65th is closed unanswered.
  boost::asio::io_context io;
  std::vector<tcp::socket> idle;
  for (int i = 0; i < 64; ++i) {
    idle.emplace_back(io);
    idle.back().connect({boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server.port())});
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(Get(server.port(), "/"), "");
  for (auto& s : idle) s.close();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_NE(Get(server.port(), "/").find("200 OK"), std::string::npos);
  server.Stop();
}

}  // namespace
}  // namespace stampede::web

#include "health/pg_rows.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"

namespace stampede::health {
namespace {

// A listener that accepts (the kernel does, from its backlog) and never
// answers: a paused server, as a poll meets it.
struct SilentListener {
  int fd = -1;
  int port = 0;
  SilentListener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, 8) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      return;
    }
    port = ntohs(a.sin_port);
  }
  ~SilentListener() { ::close(fd); }
};

TEST(PgRowsTest, ASilentServerEndsTheCallAtItsDeadline) {
  SilentListener server;
  ASSERT_GT(server.port, 0);
  const int64_t start = MonoNowNs();
  auto rows = PgQueryRows({"127.0.0.1:" + std::to_string(server.port), "u", "secret-pw", "d", 300}, "SELECT 1", 10);
  const int64_t took_ms = (MonoNowNs() - start) / kNsPerMs;
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("timed out connecting"), std::string::npos) << rows.status().message();
  EXPECT_EQ(rows.status().message().find("secret-pw"), std::string::npos);
  EXPECT_GE(took_ms, 250);
  EXPECT_LT(took_ms, 2000);
}

TEST(PgRowsTest, NoServerAndNoEndpointAreOneLineErrors) {
  int port = 0;
  {
    SilentListener closed;  // a port that was free a moment ago
    port = closed.port;
  }
  auto refused = PgQueryRows({"127.0.0.1:" + std::to_string(port), "u", "", "d", 1000}, "SELECT 1", 10);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message().find('\n'), std::string::npos) << refused.status().message();
  EXPECT_FALSE(PgQueryRows({"no-port", "u", "", "d", 1000}, "SELECT 1", 10).ok());
}

}  // namespace
}  // namespace stampede::health

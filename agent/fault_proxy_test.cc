#include "agent/fault_proxy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace stampede::agent {
namespace {

using Clock = std::chrono::steady_clock;

int Listen(uint16_t* port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  EXPECT_EQ(listen(fd, 64), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

uint16_t FreePort() {
  uint16_t port = 0;
  close(Listen(&port));
  return port;
}

// Echoes every byte back; "close" in a message closes the connection.
class EchoServer {
 public:
  EchoServer() : fd_(Listen(&port_)) {
    thread_ = std::thread([this] {
      while (true) {
        int c = accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        conns_.emplace_back([c] {
          char buf[65536];
          ssize_t n;
          while ((n = read(c, buf, sizeof buf)) > 0) {
            if (std::string(buf, size_t(n)).find("close") != std::string::npos) break;
            if (write(c, buf, size_t(n)) != n) break;
          }
          close(c);
        });
      }
    });
  }
  ~EchoServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
    for (auto& t : conns_) t.join();
  }
  uint16_t port() const { return port_; }

 private:
  uint16_t port_ = 0;
  int fd_;
  std::thread thread_;
  std::vector<std::thread> conns_;
};

int Connect(uint16_t port, int timeout_ms = 3000) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Sends msg and reads as many bytes back: the ms it took, -1 on an error or
// a short read (errno_out: the send's or read's errno, 0 for EOF).
double RoundTrip(int fd, const std::string& msg, int* errno_out = nullptr) {
  const auto t0 = Clock::now();
  if (send(fd, msg.data(), msg.size(), MSG_NOSIGNAL) != ssize_t(msg.size())) {
    if (errno_out) *errno_out = errno;
    return -1;
  }
  size_t got = 0;
  char buf[65536];
  while (got < msg.size()) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
      if (errno_out) *errno_out = n == 0 ? 0 : errno;
      return -1;
    }
    got += size_t(n);
  }
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

class FaultProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    listen_ = FreePort();
    proxy_.Declare("db1", {{"127.0.0.1", "127.0.0.1", listen_, echo_.port()}});
    ASSERT_TRUE(proxy_.Start().ok());
  }
  Status Apply(const std::string& action, uint32_t delay_ms = 0, const std::string& direction = "",
               uint64_t bandwidth = 0, uint32_t jitter_ms = 0) {
    v1::NetFault net;
    net.set_delay_ms(delay_ms);
    net.set_jitter_ms(jitter_ms);
    net.set_direction(direction);
    net.set_bandwidth_bytes_per_s(bandwidth);
    return proxy_.Apply("db1", action, net);
  }

  EchoServer echo_;
  uint16_t listen_ = 0;
  FaultProxy proxy_;
};

TEST_F(FaultProxyTest, ForwardsBothWaysWhileNothingApplies) {
  int fd = Connect(listen_);
  ASSERT_GE(fd, 0);
  for (int i = 0; i < 50; ++i) EXPECT_GE(RoundTrip(fd, "ping " + std::to_string(i)), 0);
  EXPECT_GE(RoundTrip(fd, std::string(200000, 'x')), 0);  // more than one read's worth
  EXPECT_EQ(proxy_.Connections("db1"), 1);
  close(fd);
}

TEST_F(FaultProxyTest, DelayAddsToTheRoundTripOnceUntilHealed) {
  int fd = Connect(listen_);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(Apply("delay", 200).ok());
  const double slow = RoundTrip(fd, "ping");
  EXPECT_GE(slow, 200);
  EXPECT_LT(slow, 390) << "out only, by default: once per round trip";
  ASSERT_TRUE(Apply("delay", 100, "both").ok());
  EXPECT_GE(RoundTrip(fd, "ping"), 200);
  ASSERT_TRUE(Apply("heal").ok());
  EXPECT_LT(RoundTrip(fd, "ping"), 100);
  close(fd);
}

TEST_F(FaultProxyTest, JitterSpreadsTheDelayWithinItsBounds) {
  int fd = Connect(listen_);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(Apply("delay", 60, "out", 0, 40).ok());
  double lo = 1e9, hi = 0;
  for (int i = 0; i < 30; ++i) {
    const double ms = RoundTrip(fd, "ping");
    lo = std::min(lo, ms);
    hi = std::max(hi, ms);
  }
  EXPECT_GE(lo, 20);
  EXPECT_LT(lo, 45);
  EXPECT_GT(hi, 75);
  close(fd);
}

TEST_F(FaultProxyTest, BandwidthLimitsBytesPerSecond) {
  int fd = Connect(listen_, 10000);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(Apply("bandwidth", 0, "in", 256 * 1024).ok());
  const double ms = RoundTrip(fd, std::string(256 * 1024, 'x'));
  EXPECT_GE(ms, 800) << "256 KB at 256 KB/s";
  EXPECT_LT(ms, 3000);
  ASSERT_TRUE(Apply("heal").ok());
  EXPECT_LT(RoundTrip(fd, std::string(256 * 1024, 'x')), 500);
  close(fd);
}

TEST_F(FaultProxyTest, ResetCutsEveryConnectionAndRefusesNewOnesUntilHealed) {
  int fd = Connect(listen_);
  ASSERT_GE(fd, 0);
  ASSERT_GE(RoundTrip(fd, "ping"), 0);
  ASSERT_TRUE(Apply("reset").ok());
  int err = -1;
  EXPECT_LT(RoundTrip(fd, "ping", &err), 0);
  EXPECT_EQ(err, ECONNRESET);
  close(fd);
  fd = Connect(listen_);
  err = -1;
  if (fd >= 0) {
    EXPECT_LT(RoundTrip(fd, "ping", &err), 0) << "a new connection is reset at once";
  }
  close(fd);
  ASSERT_TRUE(Apply("heal").ok());
  fd = Connect(listen_);
  EXPECT_GE(RoundTrip(fd, "ping"), 0);
  close(fd);
}

TEST_F(FaultProxyTest, TimeoutHoldsEverythingOpenAndHealLetsItThrough) {
  int fd = Connect(listen_, 300);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(Apply("timeout").ok());
  int err = -1;
  EXPECT_LT(RoundTrip(fd, "ping", &err), 0);
  EXPECT_EQ(err, EAGAIN) << "no answer, and no close either";
  int held = Connect(listen_, 300);  // a new one is accepted, and held
  ASSERT_GE(held, 0);
  EXPECT_LT(RoundTrip(held, "ping"), 0);
  ASSERT_TRUE(Apply("heal").ok());
  char buf[16];
  EXPECT_EQ(read(fd, buf, sizeof buf), 4) << "what waited arrives";
  EXPECT_EQ(read(held, buf, sizeof buf), 4);
  EXPECT_GE(RoundTrip(fd, "ping"), 0);
  close(fd);
  close(held);
}

TEST_F(FaultProxyTest, SlowCloseDelaysTheOtherSidesClose) {
  int fd = Connect(listen_);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(Apply("slow-close", 300).ok());
  const auto t0 = Clock::now();
  ASSERT_EQ(write(fd, "close", 5), 5);  // the server closes
  char buf[16];
  EXPECT_EQ(read(fd, buf, sizeof buf), 0);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  EXPECT_GE(ms, 280);
  close(fd);
}

TEST_F(FaultProxyTest, AnAddressInUseIsOneClearLine) {
  FaultProxy other;
  other.Declare("db2", {{"127.0.0.1", "127.0.0.1", listen_, echo_.port()}});
  Status s = other.Start();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "node db2: proxy 127.0.0.1:" + std::to_string(listen_) + ": Address already in use");
}

TEST(ProxyStateTest, NumbersAreBounded) {
  v1::NetFault net;
  EXPECT_FALSE(NextProxyState({}, "delay", net).ok());
  net.set_delay_ms(100);
  net.set_jitter_ms(101);
  EXPECT_FALSE(NextProxyState({}, "delay", net).ok());
  net.set_jitter_ms(10);
  auto st = NextProxyState({}, "delay", net);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->delay_ms[0], 0u);
  EXPECT_EQ(st->delay_ms[1], 100u);
  EXPECT_FALSE(NextProxyState({}, "bandwidth", net).ok());
  net.set_bandwidth_bytes_per_s(100 * 1024);
  st = NextProxyState(*st, "bandwidth", net);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->bandwidth[0], 100u * 1024);
  EXPECT_EQ(st->delay_ms[1], 100u) << "faults combine";
  st = NextProxyState(*st, "heal", net);
  EXPECT_EQ(st->bandwidth[0], 0u);
  EXPECT_FALSE(NextProxyState({}, "partition", net).ok());
}

}  // namespace
}  // namespace stampede::agent

// What the floor clients (pg_floor, my_floor, redis_floor) share: options, clocks, the
// random keys and the measured window. A floor client is the least a client
// built on one C library can spend per operation: connections spread over a
// few threads, each sending its point select again as soon as the reply is
// read, readiness from a level-triggered epoll set registered once, and no
// timers, latencies or histograms. bench/peers runs them beside the peers.
#ifndef STAMPEDE_BENCH_FLOOR_H_
#define STAMPEDE_BENCH_FLOOR_H_

#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace stampede::floor {

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string user;
  std::string database;
  int clients = 8;
  int threads = 2;
  int seconds = 10;
  uint64_t keys = 1000000;  // ids drawn uniformly from 1..keys
  uint64_t ops = 0;         // > 0: this many operations (over all threads), not --seconds
};

inline bool ParseOptions(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--host")
      o.host = value;
    else if (flag == "--port")
      o.port = std::atoi(value);
    else if (flag == "--user")
      o.user = value;
    else if (flag == "--database")
      o.database = value;
    else if (flag == "--clients")
      o.clients = std::atoi(value);
    else if (flag == "--threads")
      o.threads = std::atoi(value);
    else if (flag == "--seconds")
      o.seconds = std::atoi(value);
    else if (flag == "--keys")
      o.keys = std::strtoull(value, nullptr, 10);
    else if (flag == "--ops")
      o.ops = std::strtoull(value, nullptr, 10);
    else
      return false;
  }
  return argc % 2 == 1 && o.port > 0 && o.port < 65536 && !o.user.empty() && !o.database.empty() && o.clients >= 1 &&
         o.clients <= 10000 && o.threads >= 1 && o.threads <= o.clients && o.seconds >= 1 && o.seconds <= 3600 &&
         o.keys >= 1 && (o.ops == 0 || (o.ops >= uint64_t(o.threads) && o.ops <= 1000000000));
}

// ParseOptions, or the usage line on stderr: false then.
inline bool ParseOrUsage(int argc, char** argv, Options& o, const char* tool) {
  if (ParseOptions(argc, argv, o)) return true;
  std::fprintf(stderr,
               "usage: %s --port P --user U --database D [--host H] [--clients N] [--threads T] [--seconds S] "
               "[--keys K] [--ops N]\n",
               tool);
  return false;
}

[[noreturn]] inline void Fail(const std::string& what) {
  std::fprintf(stderr, "floor client: %s\n", what.c_str());
  std::exit(1);
}

inline double Now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

inline double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// A key in 1..keys (xorshift64).
inline uint64_t NextKey(uint64_t& state, uint64_t keys) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return 1 + state % keys;
}

// Thread t's share of n (clients or operations) over `threads`.
inline uint64_t Share(uint64_t n, int threads, int t) {
  return n / uint64_t(threads) + (uint64_t(t) < n % uint64_t(threads) ? 1 : 0);
}

// Runs drive(thread, end_time) -> operations on each thread, after
// everything is connected, and prints one line: "ops N seconds S ops_per_s
// R cpu_us_per_op C", CPU (user + system) and time of the window alone.
template <typename Drive>
int Measure(const Options& o, Drive drive) {
  std::vector<uint64_t> ops(size_t(o.threads));
  const double cpu_start = CpuSeconds();
  const double start = Now();
  const double end = start + o.seconds;
  std::vector<std::thread> threads;
  for (size_t t = 0; t < ops.size(); ++t) threads.emplace_back([&, t] { ops[t] = drive(t, end); });
  for (std::thread& thread : threads) thread.join();
  const double elapsed = Now() - start;
  const double cpu = CpuSeconds() - cpu_start;
  uint64_t total = 0;
  for (uint64_t n : ops) total += n;
  std::printf("ops %llu seconds %.3f ops_per_s %.0f cpu_us_per_op %.2f\n", static_cast<unsigned long long>(total),
              elapsed, double(total) / elapsed, cpu * 1e6 / double(total));
  return total > 0 ? 0 : 1;
}

// Drives one thread's clients until `end` (or, budget > 0, until it has
// sent that many operations): start(client) sends a client's
// next operation and says whether it already completed (a reply can arrive
// before the library's first read); ready(client, epoll events) reads what
// arrived and says whether the operation is complete. Each client's socket
// is in epoll_fd, its data.ptr the client. Returns the operations completed.
template <typename Client, typename Start, typename Ready>
uint64_t Drive(int epoll_fd, std::vector<Client>& clients, double end, uint64_t budget, Start start, Ready ready) {
  uint64_t ops = 0, sent = 0;
  bool sending = budget == 0 || sent < budget;
  auto next = [&](Client& client) {  // false: the client has stopped
    while (sending) {
      ++sent;
      sending = budget > 0 ? sent < budget : Now() < end;
      if (!start(client)) return true;
      ++ops;
    }
    return false;
  };
  size_t in_flight = 0;
  for (Client& client : clients) in_flight += next(client) ? 1 : 0;
  std::vector<epoll_event> events(256);
  while (in_flight > 0) {
    const int n = epoll_wait(epoll_fd, events.data(), int(events.size()), 1000);
    if (n < 0) Fail("epoll_wait failed");
    if (sending && budget == 0 && Now() >= end) sending = false;
    for (int i = 0; i < n; ++i) {
      Client& client = *static_cast<Client*>(events[size_t(i)].data.ptr);
      if (!ready(client, events[size_t(i)].events)) continue;
      ++ops;
      if (!next(client)) --in_flight;
    }
  }
  return ops;
}

// A whole run: connect(count, epoll_fd, seed) opens each thread's share of
// the clients (std::vector<Client>, each socket in epoll_fd), then Drive
// runs on every thread within Measure, then finish(client) closes each.
template <typename Client, typename Connect, typename Start, typename Ready, typename Finish>
int Run(const Options& o, Connect connect, Start start, Ready ready, Finish finish) {
  std::vector<int> epoll_fds;
  std::vector<std::vector<Client>> clients;
  for (int t = 0; t < o.threads; ++t) {
    epoll_fds.push_back(epoll_create1(EPOLL_CLOEXEC));
    if (epoll_fds.back() < 0) Fail("epoll_create1 failed");
    clients.push_back(connect(int(Share(uint64_t(o.clients), o.threads, t)), epoll_fds.back(),
                              0x9e3779b97f4a7c15ULL + 1000 * uint64_t(t)));
  }
  const int rc = Measure(o, [&](size_t t, double end) {
    return Drive(epoll_fds[t], clients[t], end, Share(o.ops, o.threads, int(t)), start, ready);
  });
  for (auto& group : clients) {
    for (Client& client : group) finish(client);
  }
  for (int fd : epoll_fds) ::close(fd);
  return rc;
}

}  // namespace stampede::floor

#endif  // STAMPEDE_BENCH_FLOOR_H_

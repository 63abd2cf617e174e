// The least a client on the MariaDB C API's non-blocking calls can spend per
// operation (bench/floor.h): sysbench's prepared point select on
// sbtest1 on N connections over T threads.
//
//   MYSQL_PWD=... my_floor --port 3306 --user u --database bench
//       [--host 127.0.0.1] [--clients 8] [--threads 2] [--seconds 10] [--keys 10000]
#include <mysql.h>
#include <sys/epoll.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/floor.h"

namespace stampede::floor {
namespace {

constexpr const char* kSelect = "SELECT c FROM sbtest1 WHERE id = ?";
enum Step { kExecute, kStore, kFree, kSteps };

struct Client {
  MYSQL* mysql = nullptr;
  MYSQL_STMT* stmt = nullptr;
  MYSQL_BIND bind{};
  long long key = 0;
  uint64_t random = 0;
  int step = kExecute;
  int status = 0;  // the MYSQL_WAIT_* the current call waits for; 0: none
  int epoll_fd = -1;
  bool watching_write = false;
};

[[noreturn]] void FailStatement(const Client& client, const char* what) {
  Fail(std::string(what) + ": " + mysql_stmt_error(client.stmt));
}

// Starts the client's current call, or resumes it with `ready`; sets *failed.
int Call(Client& c, int ready, bool* failed) {
  const bool resume = c.status != 0;
  int ret = 0;
  my_bool freed = 0;
  int status = 0;
  switch (c.step) {
    case kExecute:
      status = resume ? mysql_stmt_execute_cont(&ret, c.stmt, ready) : mysql_stmt_execute_start(&ret, c.stmt);
      break;
    case kStore:
      status = resume ? mysql_stmt_store_result_cont(&ret, c.stmt, ready) : mysql_stmt_store_result_start(&ret, c.stmt);
      break;
    default:
      status =
          resume ? mysql_stmt_free_result_cont(&freed, c.stmt, ready) : mysql_stmt_free_result_start(&freed, c.stmt);
      break;
  }
  *failed = status == 0 && (ret != 0 || freed != 0);
  return status;
}

// Asks epoll for writability only while a call waits for it (rare).
void Watch(Client& c) {
  const bool write = (c.status & MYSQL_WAIT_WRITE) != 0;
  if (write == c.watching_write) return;
  epoll_event event{};
  event.events = EPOLLIN | (write ? EPOLLOUT : 0u);
  event.data.ptr = &c;
  if (epoll_ctl(c.epoll_fd, EPOLL_CTL_MOD, int(mysql_get_socket(c.mysql)), &event) != 0) Fail("epoll_ctl failed");
  c.watching_write = write;
}

// Runs the operation's calls until one waits (false) or all are done (true).
bool Advance(Client& c, int ready) {
  for (;;) {
    bool failed = false;
    c.status = Call(c, ready, &failed);
    if (c.status != 0) {
      Watch(c);
      return false;
    }
    if (failed) FailStatement(c, "select");
    ready = 0;
    if (++c.step == kSteps) {
      c.step = kExecute;
      return true;
    }
  }
}

bool Start(Client& c, uint64_t keys) {
  c.key = static_cast<long long>(NextKey(c.random, keys));
  return Advance(c, 0);
}

bool Ready(Client& c, uint32_t events) {
  if (c.status == 0) return false;
  int ready = 0;
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) ready |= MYSQL_WAIT_READ;
  if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) ready |= MYSQL_WAIT_WRITE;
  ready &= c.status;
  return ready != 0 && Advance(c, ready);
}

std::vector<Client> Connect(const Options& o, int count, int epoll_fd, uint64_t seed) {
  const char* password = std::getenv("MYSQL_PWD");
  std::vector<Client> clients(static_cast<size_t>(count));
  for (Client& c : clients) {
    c.random = seed++;
    c.epoll_fd = epoll_fd;
    c.mysql = mysql_init(nullptr);
    mysql_options(c.mysql, MYSQL_OPT_NONBLOCK, nullptr);
    if (!mysql_real_connect(c.mysql, o.host.c_str(), o.user.c_str(), password, o.database.c_str(),
                            static_cast<unsigned>(o.port), nullptr, 0)) {
      Fail(std::string("connect: ") + mysql_error(c.mysql));
    }
    c.stmt = mysql_stmt_init(c.mysql);
    if (mysql_stmt_prepare(c.stmt, kSelect, std::char_traits<char>::length(kSelect)) != 0) {
      FailStatement(c, "prepare");
    }
    c.bind.buffer_type = MYSQL_TYPE_LONGLONG;
    c.bind.buffer = &c.key;
    if (mysql_stmt_bind_param(c.stmt, &c.bind) != 0) FailStatement(c, "bind");
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.ptr = &c;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, int(mysql_get_socket(c.mysql)), &event) != 0) Fail("epoll_ctl failed");
  }
  return clients;
}

int Main(int argc, char** argv) {
  Options o;
  o.keys = 10000;
  if (!ParseOrUsage(argc, argv, o, "my_floor")) return 2;
  return Run<Client>(
      o, [&](int count, int epoll_fd, uint64_t seed) { return Connect(o, count, epoll_fd, seed); },
      [&](Client& c) { return Start(c, o.keys); }, Ready,
      [](Client& c) {
        mysql_stmt_close(c.stmt);
        mysql_close(c.mysql);
      });
}

}  // namespace
}  // namespace stampede::floor

int main(int argc, char** argv) { return stampede::floor::Main(argc, argv); }

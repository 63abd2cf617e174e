// The least a hiredis client can spend per operation (bench/floor.h):
// redis-benchmark's GET (or SET) of a random key on N connections over T
// threads, each connection's next command sent as soon as its reply is read.
//
//   REDIS_PASSWORD=... redis_floor --port 6379 --user default --database 0
//       [--host 127.0.0.1] [--clients 50] [--threads 1] [--seconds 10] [--keys 100000] [--ops N] [--set]
//
// --user is the ACL user AUTH names; --database the index SELECT picks.
// Keys are key:1 .. key:K; SET writes "xxx".
#include <hiredis/hiredis.h>
#include <poll.h>
#include <sys/epoll.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/floor.h"

namespace stampede::floor {
namespace {

struct Client {
  redisContext* c = nullptr;
  uint64_t random = 0;
  char key[32] = {};
};

bool set_command = false;

// Reads what arrived; true when a reply is complete (and freed).
bool Receive(Client& client) {
  void* reply = nullptr;
  if (redisGetReplyFromReader(client.c, &reply) != REDIS_OK) Fail(std::string("read: ") + client.c->errstr);
  if (reply == nullptr) {
    if (redisBufferRead(client.c) != REDIS_OK) Fail(std::string("read: ") + client.c->errstr);
    if (redisGetReplyFromReader(client.c, &reply) != REDIS_OK) Fail(std::string("read: ") + client.c->errstr);
  }
  if (reply == nullptr) return false;
  if (static_cast<redisReply*>(reply)->type == REDIS_REPLY_ERROR) Fail(static_cast<redisReply*>(reply)->str);
  freeReplyObject(reply);
  return true;
}

// Writes the whole output buffer (the socket is non-blocking: waits for
// room, which a command this small never needs).
void Flush(redisContext* c) {
  int done = 0;
  while (!done) {
    if (redisBufferWrite(c, &done) != REDIS_OK) Fail(std::string("write: ") + c->errstr);
    if (!done) {
      pollfd p{c->fd, POLLOUT, 0};
      ::poll(&p, 1, 1000);
    }
  }
}

// Sends the next command and reads once right away, as redis-benchmark
// and stampede's driver do: true when the reply had already arrived.
bool Send(Client& client, uint64_t keys) {
  const int key_len = std::snprintf(client.key, sizeof client.key, "key:%llu",
                                    static_cast<unsigned long long>(NextKey(client.random, keys)));
  const char* argv[3] = {set_command ? "SET" : "GET", client.key, "xxx"};
  const size_t lens[3] = {3, size_t(key_len), 3};
  if (redisAppendCommandArgv(client.c, set_command ? 3 : 2, argv, lens) != REDIS_OK) Fail("append failed");
  Flush(client.c);
  return Receive(client);
}

// One command on the connection, waiting for its reply (set-up only).
void Roundtrip(Client& client, int argc, const char** argv) {
  std::vector<size_t> lens;
  for (int i = 0; i < argc; ++i) lens.push_back(std::strlen(argv[i]));
  if (redisAppendCommandArgv(client.c, argc, argv, lens.data()) != REDIS_OK) Fail("append failed");
  Flush(client.c);
  while (!Receive(client)) {
    pollfd p{client.c->fd, POLLIN, 0};
    ::poll(&p, 1, 1000);
  }
}

std::vector<Client> Connect(const Options& o, int count, int epoll_fd, uint64_t seed) {
  const char* password = std::getenv("REDIS_PASSWORD");
  std::vector<Client> clients(static_cast<size_t>(count));
  for (Client& client : clients) {
    client.random = seed++;
    client.c = redisConnectNonBlock(o.host.c_str(), o.port);
    if (client.c == nullptr || client.c->err)
      Fail(std::string("connect: ") + (client.c ? client.c->errstr : "no memory"));
    if (password && *password) {
      const char* auth[3] = {"AUTH", o.user.c_str(), password};
      Roundtrip(client, 3, auth);
    }
    if (o.database != "0") {
      const char* select[2] = {"SELECT", o.database.c_str()};
      Roundtrip(client, 2, select);
    }
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.ptr = &client;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, client.c->fd, &event) != 0) Fail("epoll_ctl failed");
  }
  return clients;
}

int Main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  for (auto it = args.begin() + 1; it != args.end();) {
    if (std::strcmp(*it, "--set") == 0) {
      set_command = true;
      it = args.erase(it);
    } else {
      ++it;
    }
  }
  Options o;
  o.clients = 50;
  o.threads = 1;
  o.keys = 100000;
  if (!ParseOrUsage(int(args.size()), args.data(), o, "redis_floor")) return 2;
  return Run<Client>(
      o, [&](int count, int epoll_fd, uint64_t seed) { return Connect(o, count, epoll_fd, seed); },
      [&](Client& client) { return Send(client, o.keys); }, [](Client& client, uint32_t) { return Receive(client); },
      [](Client& client) { redisFree(client.c); });
}

}  // namespace
}  // namespace stampede::floor

int main(int argc, char** argv) { return stampede::floor::Main(argc, argv); }

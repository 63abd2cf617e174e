// The least a libpq client can spend per operation (bench/floor.h):
// pgbench's prepared point select on N connections over T threads.
//
//   PGPASSWORD=... pg_floor --port 5432 --user u --database bench
//       [--host 127.0.0.1] [--clients 8] [--threads 2] [--seconds 10] [--keys 1000000]
#include <libpq-fe.h>
#include <sys/epoll.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/floor.h"

namespace stampede::floor {
namespace {

constexpr const char* kSelect = "SELECT abalance FROM pgbench_accounts WHERE aid = $1";

struct Client {
  PGconn* conn = nullptr;
  bool busy = false;
  uint64_t random = 0;
  char key[24] = {};
};

bool Receive(Client& client);

// Sends the next select and reads once right away, as pgbench and
// stampede's driver do: true when the reply had already arrived.
bool Send(Client& client, uint64_t keys) {
  std::snprintf(client.key, sizeof client.key, "%llu", static_cast<unsigned long long>(NextKey(client.random, keys)));
  const char* values[1] = {client.key};
  if (PQsendQueryPrepared(client.conn, "s", 1, values, nullptr, nullptr, 0) != 1 || PQflush(client.conn) != 0) {
    Fail(std::string("send: ") + PQerrorMessage(client.conn));
  }
  client.busy = true;
  return Receive(client);
}

// Reads what arrived; true when the client's query has all its results.
bool Receive(Client& client) {
  if (!client.busy) return false;
  if (PQconsumeInput(client.conn) != 1) Fail(std::string("read: ") + PQerrorMessage(client.conn));
  while (!PQisBusy(client.conn)) {
    PGresult* result = PQgetResult(client.conn);
    if (result == nullptr) {
      client.busy = false;
      return true;
    }
    if (PQresultStatus(result) != PGRES_TUPLES_OK) Fail(std::string("select: ") + PQresultErrorMessage(result));
    PQclear(result);
  }
  return false;
}

std::vector<Client> Connect(const Options& o, int count, int epoll_fd, uint64_t seed) {
  const std::string conninfo =
      "host=" + o.host + " port=" + std::to_string(o.port) + " user=" + o.user + " dbname=" + o.database;
  std::vector<Client> clients(static_cast<size_t>(count));
  for (Client& client : clients) {
    client.random = seed++;
    client.conn = PQconnectdb(conninfo.c_str());
    if (PQstatus(client.conn) != CONNECTION_OK) Fail(std::string("connect: ") + PQerrorMessage(client.conn));
    PGresult* prepared = PQprepare(client.conn, "s", kSelect, 1, nullptr);
    if (PQresultStatus(prepared) != PGRES_COMMAND_OK) Fail(std::string("prepare: ") + PQerrorMessage(client.conn));
    PQclear(prepared);
    if (PQsetnonblocking(client.conn, 1) != 0) Fail("PQsetnonblocking failed");
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.ptr = &client;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, PQsocket(client.conn), &event) != 0) Fail("epoll_ctl failed");
  }
  return clients;
}

int Main(int argc, char** argv) {
  Options o;
  if (!ParseOrUsage(argc, argv, o, "pg_floor")) return 2;
  return Run<Client>(
      o, [&](int count, int epoll_fd, uint64_t seed) { return Connect(o, count, epoll_fd, seed); },
      [&](Client& client) { return Send(client, o.keys); }, [](Client& client, uint32_t) { return Receive(client); },
      [](Client& client) { PQfinish(client.conn); });
}

}  // namespace
}  // namespace stampede::floor

int main(int argc, char** argv) { return stampede::floor::Main(argc, argv); }

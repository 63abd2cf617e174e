#include "health/pg_rows.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>

#include <memory>

#include "common/clock.h"
#include "common/strings.h"

namespace stampede::health {
namespace {

struct ConnCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using Conn = std::unique_ptr<PGconn, ConnCloser>;

std::string Message(PGconn* c) { return OneLine(PQerrorMessage(c)); }

// Waits until the connection's socket is ready for events or the deadline
// passes; false on the deadline.
bool WaitFor(PGconn* c, short events, int64_t deadline_ns) {
  for (;;) {
    const int64_t left_ms = (deadline_ns - MonoNowNs()) / kNsPerMs;
    if (left_ms <= 0) return false;
    pollfd p{PQsocket(c), events, 0};
    const int n = ::poll(&p, 1, int(left_ms));
    if (n > 0) return true;  // ready, or an error libpq will read
    if (n < 0 && errno != EINTR) return false;
  }
}

Status ConnectBy(PGconn* c, const std::string& ep, int64_t deadline_ns) {
  for (PostgresPollingStatusType st = PGRES_POLLING_WRITING;;) {
    if (st == PGRES_POLLING_OK) return Status::Ok();
    if (st == PGRES_POLLING_FAILED) return Status::Error(ep + ": " + Message(c));
    if (!WaitFor(c, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline_ns)) {
      return Status::Error(ep + ": timed out connecting");
    }
    st = PQconnectPoll(c);
  }
}

StatusOr<SqlRows> Rows(PGresult* r, int max_rows) {
  SqlRows t;
  for (int c = 0; c < PQnfields(r); ++c) t.columns.emplace_back(PQfname(r, c));
  for (int i = 0; i < PQntuples(r) && i < max_rows; ++i) {
    std::vector<std::optional<std::string>>& row = t.rows.emplace_back();
    for (int c = 0; c < PQnfields(r); ++c) {
      if (PQgetisnull(r, i, c)) {
        row.emplace_back(std::nullopt);
      } else {
        row.emplace_back(std::string(PQgetvalue(r, i, c), size_t(PQgetlength(r, i, c))));
      }
    }
  }
  return t;
}

}  // namespace

StatusOr<SqlRows> PgQueryRows(const PgTarget& t, const char* sql, int max_rows) {
  std::string host;
  int port = 0;
  if (!SplitHostPort(t.endpoint, &host, &port)) return Status::Error(t.endpoint + ": not host:port");
  const int64_t deadline_ns = MonoNowNs() + int64_t(t.timeout_ms) * kNsPerMs;
  const std::string port_text = std::to_string(port);
  const char* keys[] = {"host", "port", "user", "password", "dbname", "application_name", nullptr};
  const char* vals[] = {host.c_str(),
                        port_text.c_str(),
                        t.user.empty() ? nullptr : t.user.c_str(),
                        t.password.empty() ? nullptr : t.password.c_str(),
                        t.database.empty() ? nullptr : t.database.c_str(),
                        "stampede-health",
                        nullptr};
  Conn c(PQconnectStartParams(keys, vals, 0));
  if (!c) return Status::Error(t.endpoint + ": out of memory");
  if (PQstatus(c.get()) == CONNECTION_BAD) return Status::Error(t.endpoint + ": " + Message(c.get()));
  if (Status s = ConnectBy(c.get(), t.endpoint, deadline_ns); !s.ok()) return s;
  if (!PQsendQuery(c.get(), sql)) return Status::Error(t.endpoint + ": " + Message(c.get()));
  StatusOr<SqlRows> out = Status::Error(t.endpoint + ": no result");
  for (;;) {
    // Every PQgetResult, the last (NULL) one included, only once the input
    // is in: a blocking read could outlast the deadline.
    while (PQisBusy(c.get())) {
      if (!WaitFor(c.get(), POLLIN, deadline_ns)) return Status::Error(t.endpoint + ": timed out waiting for rows");
      if (!PQconsumeInput(c.get())) return Status::Error(t.endpoint + ": " + Message(c.get()));
    }
    PGresult* r = PQgetResult(c.get());
    if (!r) break;
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
      // The server's own words, without libpq's LINE and caret lines.
      const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
      out = Status::Error(t.endpoint + ": " + (primary ? std::string(primary) : Message(c.get())));
    } else if (!out.ok()) {
      out = Rows(r, max_rows);
    }
    PQclear(r);
  }
  return out;
}

}  // namespace stampede::health

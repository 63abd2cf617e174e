// One query's rows over the PostgreSQL wire protocol (libpq), for probes
// that read a cluster's own tables (CockroachDB's crdb_internal). Connecting
// and answering share one deadline, timeout_ms: a server that stops
// answering (a paused node) ends the call there, never hangs it.
#ifndef STAMPEDE_HEALTH_PG_ROWS_H_
#define STAMPEDE_HEALTH_PG_ROWS_H_

#include <string>

#include "common/status.h"
#include "health/share_parsers.h"

namespace stampede::health {

struct PgTarget {
  std::string endpoint;  // host:port
  std::string user, password, database;
  int timeout_ms = 2000;
};

// The first max_rows rows of one statement, as text. The password goes to
// libpq only; no error message carries it.
StatusOr<SqlRows> PgQueryRows(const PgTarget& target, const char* sql, int max_rows);

}  // namespace stampede::health

#endif  // STAMPEDE_HEALTH_PG_ROWS_H_

#include "drivers/mysql_errors.h"

namespace stampede::drivers {
namespace {

struct MyRule {
  int code;
  Outcome outcome;
};

// Sources: MySQL/MariaDB server and client error references, Galera docs,
// TiDB error codes reference.
constexpr MyRule kMyRules[] = {
    {1213, Outcome::kRetryable},    // ER_LOCK_DEADLOCK (Galera cert failure too)
    {1205, Outcome::kRetryable},    // ER_LOCK_WAIT_TIMEOUT
    {1047, Outcome::kUnavailable},  // WSREP has not yet prepared node
    {1180, Outcome::kUnavailable},  // Galera: COMMIT failed, not in the primary component
    {1053, Outcome::kUnavailable},  // server shutdown in progress
    {1290, Outcome::kUnavailable},  // ER_OPTION_PREVENTS_STATEMENT: --read-only (a replica, a demoted primary): not run
    {1040, Outcome::kUnavailable},  // too many connections
    {1927, Outcome::kUnavailable},  // MariaDB: connection killed
    {1114,
     Outcome::kUnavailable},  // ER_RECORD_FILE_FULL: "The table is full" (InnoDB out of disk), like PostgreSQL's 53100
    {1021, Outcome::kUnavailable},  // ER_DISK_FULL
    {8002, Outcome::kRetryable},    // TiDB: SELECT FOR UPDATE write conflict
    {8022, Outcome::kRetryable},    // TiDB: txn commit failed, retry
    {8028, Outcome::kRetryable},    // TiDB: schema changed
    {9007, Outcome::kRetryable},    // TiDB: write conflict
    {9001, Outcome::kUnavailable},  // TiDB: PD server timeout
    {9002, Outcome::kUnavailable},  // TiDB: TiKV server timeout
    {9003, Outcome::kUnavailable},  // TiDB: TiKV server is busy
    {9004, Outcome::kUnavailable},  // TiDB: resolve lock timeout
    {9005, Outcome::kUnavailable},  // TiDB: region unavailable
    {1045, Outcome::kFatal},        // access denied
    {1044, Outcome::kFatal},        // access denied to database
    {1049, Outcome::kFatal},        // unknown database
    {1062, Outcome::kFatal},        // duplicate key
    {1064, Outcome::kFatal},        // syntax error
    {1146, Outcome::kFatal},        // table does not exist
};

}  // namespace

bool IsMysqlConnectionError(int code) {
  // CR_CONNECTION_ERROR, CR_CONN_HOST_ERROR, CR_SERVER_GONE_ERROR,
  // CR_SERVER_LOST, CR_SERVER_LOST_EXTENDED, and the server's 1053/1927.
  return code == 2002 || code == 2003 || code == 2006 || code == 2013 || code == 2055 || code == 1053 || code == 1927;
}

Outcome ClassifyMysqlError(int code, bool write) {
  // 2013/2055: lost during the query, after it was sent: a write may have
  // committed. 2006: the connection was already gone, nothing was sent.
  if (code == 2013 || code == 2055) return LostInFlight(write);
  if (code == 2006 || code == 2002 || code == 2003) return Outcome::kUnavailable;
  for (const MyRule& r : kMyRules) {
    if (r.code == code) return r.outcome;
  }
  return Outcome::kFatal;
}

std::string MysqlReadOnly(const std::string& endpoint) {
  return endpoint + ": read-only (@@global.read_only = 1), not the primary (session: read-write)";
}

}  // namespace stampede::drivers

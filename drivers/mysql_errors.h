// Where MySQL-wire errors become outcomes (mysql, mariadb, galera, tidb).
#ifndef STAMPEDE_DRIVERS_MYSQL_ERRORS_H_
#define STAMPEDE_DRIVERS_MYSQL_ERRORS_H_

#include <string>

#include "common/outcome.h"

namespace stampede::drivers {

// True for client error codes that mean the connection is gone.
bool IsMysqlConnectionError(int code);

// Classifies a server or client error code. `write` makes a connection lost
// mid-statement ambiguous.
Outcome ClassifyMysqlError(int code, bool write);
// ER_DISK_FULL (1021) and ER_RECORD_FILE_FULL (1114, InnoDB out of space).
inline bool IsMysqlDiskFull(int code) { return code == 1021 || code == 1114; }

// session: read-write asks a server `SELECT @@global.read_only` after
// logging in; a replica (or a primary set read-only) answers 1 and is
// refused with this message.
inline constexpr char kMysqlReadOnlyQuery[] = "SELECT @@global.read_only";
std::string MysqlReadOnly(const std::string& endpoint);

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_MYSQL_ERRORS_H_

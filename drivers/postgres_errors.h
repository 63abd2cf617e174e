// Where PostgreSQL-wire errors become outcomes (postgres, cockroachdb,
// yugabytedb). One table, unit-tested on recorded codes and messages.
#ifndef STAMPEDE_DRIVERS_POSTGRES_ERRORS_H_
#define STAMPEDE_DRIVERS_POSTGRES_ERRORS_H_

#include <string_view>

#include "common/outcome.h"

namespace stampede::drivers {

// Classifies a server error by SQLSTATE (and message where codes are
// ambiguous).
Outcome ClassifyPostgresError(std::string_view sqlstate, std::string_view message);
// disk_full (53100): a relation or WAL could not grow.
inline bool IsPostgresDiskFull(std::string_view sqlstate) { return sqlstate == "53100"; }

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_POSTGRES_ERRORS_H_

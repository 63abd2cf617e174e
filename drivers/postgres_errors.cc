#include "drivers/postgres_errors.h"

namespace stampede::drivers {
namespace {

struct PgRule {
  std::string_view sqlstate;  // exact code, or a 2-character class
  Outcome outcome;
};

// Exact codes first, then classes. Sources: PostgreSQL Appendix A,
// CockroachDB "transaction retry error reference", YugabyteDB error docs.
constexpr PgRule kPgRules[] = {
    {"40001", Outcome::kRetryable},    // serialization_failure (CRDB restart)
    {"40P01", Outcome::kRetryable},    // deadlock_detected
    {"40003", Outcome::kAmbiguous},    // statement_completion_unknown
    {"57P01", Outcome::kUnavailable},  // admin_shutdown
    {"57P02", Outcome::kUnavailable},  // crash_shutdown
    {"57P03", Outcome::kUnavailable},  // cannot_connect_now
    {"57014", Outcome::kUnavailable},  // query_canceled (statement_timeout)
    {"53300", Outcome::kUnavailable},  // too_many_connections
    {"55P03", Outcome::kRetryable},    // lock_not_available
    {"08", Outcome::kUnavailable},     // connection exceptions
    {"53", Outcome::kUnavailable},     // insufficient resources
    {"58", Outcome::kUnavailable},     // system error (I/O)
    {"28", Outcome::kFatal},           // invalid authorization
    {"42", Outcome::kFatal},           // syntax error or access rule
    {"23", Outcome::kFatal},           // integrity constraint violation
    {"22", Outcome::kFatal},           // data exception
};

}  // namespace

Outcome ClassifyPostgresError(std::string_view sqlstate, std::string_view message) {
  auto has = [&](std::string_view m) { return message.find(m) != std::string_view::npos; };
  // CockroachDB and YugabyteDB say some things only in the message (YSQL
  // reports many conditions as XX000).
  // libpqxx 6 does not always carry the SQLSTATE, so PostgreSQL's own
  // wording of 40001/40P01 counts too.
  if (has("could not serialize access") || has("deadlock detected") || has("restart transaction") ||
      has("Restart read required") || has("Operation failed. Try again") || has("aborted by a conflict")) {
    return Outcome::kRetryable;
  }
  if (has("result is ambiguous")) return Outcome::kAmbiguous;
  if (sqlstate == "XX000") {
    for (std::string_view m : {"Timed out", "Not the leader", "Leader not ready", "Leader does not have a valid lease",
                               "Tablet not RUNNING"}) {
      if (has(m)) return Outcome::kUnavailable;
    }
  }
  for (const PgRule& r : kPgRules) {
    if (r.sqlstate.size() == 5 && r.sqlstate == sqlstate) return r.outcome;
  }
  for (const PgRule& r : kPgRules) {
    if (r.sqlstate.size() == 2 && sqlstate.substr(0, 2) == r.sqlstate) return r.outcome;
  }
  return Outcome::kFatal;
}

}  // namespace stampede::drivers

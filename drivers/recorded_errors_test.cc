// Classification of errors recorded from real CockroachDB, YugabyteDB, TiDB,
// Galera and Redis Cluster deployments (tests/fixtures/recorded/errors.tsv; each line
// here keeps the source it was recorded from).
#include <gtest/gtest.h>

#include "drivers/mysql_errors.h"
#include "drivers/postgres_errors.h"
#include "drivers/redis_errors.h"

namespace stampede::drivers {
namespace {

struct PgCase {
  const char* sqlstate;
  const char* message;
  Outcome want;
  const char* source;
};

TEST(RecordedErrorsTest, PostgresWire) {
  const PgCase cases[] = {
      {"40001",
       "restart transaction: TransactionRetryWithProtoRefreshError: TransactionRetryError: retry txn "
       "(RETRY_SERIALIZABLE - failed preemptive refresh)",
       Outcome::kRetryable, "cockroachdb/cockroach#55032"},
      {"40001",
       "restart transaction: TransactionRetryWithProtoRefreshError: injected by `inject_retry_errors_enabled` session "
       "variable",
       Outcome::kRetryable, "cockroachdb docs transaction-retry-error-example"},
      {"",
       "TransactionRetryWithProtoRefreshError: ReadWithinUncertaintyIntervalError: read at time 1591009232.376925064,0 "
       "encountered previous write",
       Outcome::kFatal, "cockroachdb docs (no SQLSTATE shown: not classifiable by message alone)"},
      {"40003", "result is ambiguous (error=rpc error: code = Unavailable desc = transport is closing [propagate])",
       Outcome::kAmbiguous, "cockroachdb/cockroach#48168"},
      {"", "result is ambiguous (error=retry txn \"sql txn implicit\" id=49e4a8d3)", Outcome::kAmbiguous,
       "cockroachdb/cockroach#14011"},
      {"XX000", "Query error: Restart read required at: { read: { physical: 1570069554431110 } }", Outcome::kRetryable,
       "yugabyte/yugabyte-db#2500"},
      {"40001", "Operation failed. Try again.: 005fbe86 Conflicts with higher priority transaction: 85477acc",
       Outcome::kRetryable, "yugabyte/yugabyte-db#5228"},
      {"XX000", "Operation failed. Try again.: [Operation failed. Try again. (yb/docdb/conflict_resolution.cc:73)]",
       Outcome::kRetryable, "yugabyte/yugabyte-db#10283"},
      {"40001", "Operation expired: Transaction expired or aborted by a conflict: 40001", Outcome::kRetryable,
       "yugabyte/yugabyte-db#5228"},
      {"XX000",
       "Timed out: Read(tablet: 5d17870d, num_ops: 1, num_attempts: 344) passed its deadline: Illegal state: Not the "
       "leader (tablet server error 15)",
       Outcome::kUnavailable, "yugabyte/yugabyte-db#4010"},
      {"XX000", "Timed out: Read(tablet: f286b7fb) passed its deadline: Leader not ready to serve requests.",
       Outcome::kUnavailable, "yugabyte/yugabyte-db#1197"},
      {"XX000", "Timed out: Read(tablet: 10724034) passed its deadline: Illegal state: Tablet not RUNNING: FAILED",
       Outcome::kUnavailable, "yugabyte/yugabyte-db#10517"},
      {"XX000", "Timed out: Write RPC (request call id 7) to 127.0.0.1:9100 timed out after 60.000s",
       Outcome::kUnavailable, "DESIGN.md: YugabyteDB RF=2 run"},
  };
  for (const PgCase& c : cases) {
    EXPECT_EQ(ClassifyPostgresError(c.sqlstate, c.message), c.want) << c.source;
  }
}

TEST(RecordedErrorsTest, MysqlWire) {
  struct Case {
    int code;
    bool write;
    Outcome want;
    const char* source;
  };
  const Case cases[] = {
      {9007, true, Outcome::kRetryable, "Write conflict, txnStartTS=... [try again later] (pingcap/tidb#19417)"},
      {8002, false, Outcome::kRetryable, "can not retry select for update statement"},
      {8022, true, Outcome::kRetryable, "KV error safe to retry (pingcap/dm#1825)"},
      {8028, true, Outcome::kRetryable, "Information schema is changed (pingcap/tidb#18954)"},
      {9001, false, Outcome::kUnavailable, "PD server timeout (tikv/pd#3631)"},
      {9002, false, Outcome::kUnavailable, "TiKV server timeout (pingcap/tidb#4656)"},
      {9005, false, Outcome::kUnavailable, "Region is unavailable (pingcap/tidb#6282)"},
      {1213, true, Outcome::kRetryable, "Deadlock found / wsrep aborted transaction (galera#295)"},
      {1047, true, Outcome::kUnavailable, "WSREP has not yet prepared node for application use"},
  };
  for (const Case& c : cases) EXPECT_EQ(ClassifyMysqlError(c.code, c.write), c.want) << c.source;
}

TEST(RecordedErrorsTest, Redis) {
  EXPECT_EQ(ClassifyRedisError("MOVED 3999 127.0.0.1:6381"), Outcome::kRetryable);
  EXPECT_EQ(ClassifyRedisError("CLUSTERDOWN The cluster is down. Use CLUSTER INFO for more information"),
            Outcome::kUnavailable);
  EXPECT_EQ(ClassifyRedisError("CLUSTERDOWN Hash slot not served"), Outcome::kUnavailable);
  EXPECT_EQ(ClassifyRedisError("CLUSTERDOWN The cluster is down and only accepts read commands"),
            Outcome::kUnavailable);
  EXPECT_EQ(ClassifyRedisError("TRYAGAIN Multiple keys request during rehashing of slot"), Outcome::kRetryable);
  EXPECT_EQ(ClassifyRedisError("CROSSSLOT Keys in request don't hash to the same slot"), Outcome::kFatal);
}

}  // namespace
}  // namespace stampede::drivers

// Classification tables on recorded error codes and messages.
#include <gtest/gtest.h>

#include "drivers/driver_registry.h"
#include "drivers/mysql_errors.h"
#include "drivers/postgres_errors.h"
#include "drivers/redis_errors.h"

namespace stampede::drivers {
namespace {

TEST(PostgresErrorsTest, Classes) {
  EXPECT_EQ(ClassifyPostgresError("40001", "could not serialize access"), Outcome::kRetryable);
  EXPECT_EQ(ClassifyPostgresError("40P01", "deadlock detected"), Outcome::kRetryable);
  EXPECT_EQ(ClassifyPostgresError("40003", "result is ambiguous"), Outcome::kAmbiguous);
  EXPECT_EQ(ClassifyPostgresError("57P01", "terminating connection due to administrator command"),
            Outcome::kUnavailable);
  EXPECT_EQ(ClassifyPostgresError("08006", "connection failure"), Outcome::kUnavailable);
  EXPECT_EQ(ClassifyPostgresError("28P01", "password authentication failed for user \"x\""), Outcome::kFatal);
  EXPECT_EQ(ClassifyPostgresError("42601", "syntax error at or near"), Outcome::kFatal);
  EXPECT_EQ(ClassifyPostgresError("23505", "duplicate key value"), Outcome::kFatal);
  // CockroachDB: "restart transaction: TransactionRetryWithProtoRefreshError: ..."
  EXPECT_EQ(ClassifyPostgresError("40001",
                                  "restart transaction: TransactionRetryWithProtoRefreshError: "
                                  "ReadWithinUncertaintyIntervalError"),
            Outcome::kRetryable);
  // YugabyteDB messages under XX000.
  EXPECT_EQ(ClassifyPostgresError("XX000", "Restart read required at: ..."), Outcome::kRetryable);
  EXPECT_EQ(ClassifyPostgresError("XX000",
                                  "Timed out: Write RPC (request call id 7) to "
                                  "127.0.0.1:9100 timed out after 60.000s"),
            Outcome::kUnavailable);
  EXPECT_EQ(ClassifyPostgresError("XX000", "Not the leader"), Outcome::kUnavailable);
  EXPECT_EQ(ClassifyPostgresError("XX000", "something else"), Outcome::kFatal);
  // libpqxx 6 sometimes loses the SQLSTATE: the message decides.
  EXPECT_EQ(ClassifyPostgresError("", "ERROR:  deadlock detected DETAIL:  Process 4193 waits for"),
            Outcome::kRetryable);
  EXPECT_EQ(ClassifyPostgresError("", "ERROR:  could not serialize access due to concurrent update"),
            Outcome::kRetryable);
  EXPECT_EQ(LostInFlight(true), Outcome::kAmbiguous);
  EXPECT_EQ(LostInFlight(false), Outcome::kUnavailable);
}

TEST(MysqlErrorsTest, Codes) {
  EXPECT_EQ(ClassifyMysqlError(1213, true), Outcome::kRetryable);
  EXPECT_EQ(ClassifyMysqlError(1205, true), Outcome::kRetryable);
  EXPECT_EQ(ClassifyMysqlError(1047, false), Outcome::kUnavailable);
  EXPECT_EQ(ClassifyMysqlError(1290, true), Outcome::kUnavailable);  // read-only: not run
  EXPECT_EQ(ClassifyMysqlError(1114, true), Outcome::kUnavailable);  // the table is full: out of disk
  EXPECT_EQ(ClassifyMysqlError(2013, true), Outcome::kAmbiguous);
  EXPECT_EQ(ClassifyMysqlError(2013, false), Outcome::kUnavailable);
  EXPECT_EQ(ClassifyMysqlError(2003, true), Outcome::kUnavailable);
  EXPECT_EQ(ClassifyMysqlError(2006, true), Outcome::kUnavailable);
  EXPECT_EQ(ClassifyMysqlError(8022, true), Outcome::kRetryable);
  EXPECT_EQ(ClassifyMysqlError(9005, false), Outcome::kUnavailable);
  EXPECT_EQ(ClassifyMysqlError(1045, false), Outcome::kFatal);
  EXPECT_EQ(ClassifyMysqlError(1062, true), Outcome::kFatal);
  EXPECT_TRUE(IsMysqlConnectionError(2006));
  EXPECT_FALSE(IsMysqlConnectionError(1213));
}

TEST(RedisErrorsTest, Prefixes) {
  EXPECT_EQ(ClassifyRedisError("MOVED 3999 127.0.0.1:6381"), Outcome::kRetryable);
  EXPECT_EQ(ClassifyRedisError("ASK 3999 127.0.0.1:6381"), Outcome::kRetryable);
  EXPECT_EQ(ClassifyRedisError("TRYAGAIN Multiple keys request during rehashing of slot"), Outcome::kRetryable);
  EXPECT_EQ(ClassifyRedisError("CLUSTERDOWN The cluster is down"), Outcome::kUnavailable);
  EXPECT_EQ(ClassifyRedisError("MISCONF Redis is configured to save RDB snapshots, but it's currently unable to "
                               "persist to disk. Commands that may modify the data set are disabled"),
            Outcome::kUnavailable);
  EXPECT_EQ(ClassifyRedisError("OOM command not allowed when used memory > 'maxmemory'."), Outcome::kUnavailable);
  EXPECT_TRUE(IsRedisDiskFull("MISCONF Redis is configured to save RDB snapshots"));
  EXPECT_FALSE(IsRedisDiskFull("OOM command not allowed")) << "memory, not disk";
  EXPECT_TRUE(IsPostgresDiskFull("53100"));
  EXPECT_FALSE(IsPostgresDiskFull("53300"));
  EXPECT_TRUE(IsMysqlDiskFull(1114));
  EXPECT_TRUE(IsMysqlDiskFull(1021));
  EXPECT_FALSE(IsMysqlDiskFull(1213));
  EXPECT_EQ(ClassifyRedisError("WRONGPASS invalid username-password pair or user is disabled."), Outcome::kFatal);
  EXPECT_EQ(ClassifyRedisError("ERR unknown command 'FOO'"), Outcome::kFatal);
}

TEST(DriverRegistryTest, NamesAreUnique) { EXPECT_TRUE(CheckDriverRegistry().ok()); }

}  // namespace
}  // namespace stampede::drivers

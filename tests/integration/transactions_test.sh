#!/usr/bin/env bash
# Multi-statement transactions (crud txn: N). On real PostgreSQL with the
# cockroachdb flavor, so the CockroachDB client retry protocol (SAVEPOINT
# cockroach_restart; on a retryable error ROLLBACK TO SAVEPOINT and run the
# statements again; RELEASE; COMMIT) runs against a real server: contended
# updates in random order deadlock (40P01), and rolling back to the
# savepoint releases the locks so the retry can succeed; a transaction
# blocked on a lock is cut off by op_timeout.
# Then on MariaDB.
source "$(dirname "$0")/../lib.sh"
start_postgres
runuser -u postgres -- psql -h "$PG_DIR" -p "$PG_PORT" -U postgres -q \
  -c "ALTER DATABASE bench SET deadlock_timeout TO '20ms'"
cat >"$TMP/pg.yaml" <<YAML
name: txn-pg
target: {driver: postgres, flavor: cockroachdb, endpoints: [$DB_ENDPOINT], user: stampede,
         password_env: STAMPEDE_PASSWORD, database: bench}
retry: {max_attempts: 10, backoff: 2ms}
phases:
  - {name: load, workload: crud, workers: 4, ops: 400, params: {reset: true, txn: 5, table: tx}}
  - {name: contend, workload: crud, workers: 8, duration: 4s,
     params: {insert: 0, update: 1, keys: 10, txn: 4, table: tx}}
YAML
"$STAMPEDE" run "$TMP/pg.yaml" --results "$TMP/pg" >"$TMP/pg.out" 2>"$TMP/pg.err" || fail "postgres run exited $?"
s=$TMP/pg/summary.json
ok=$(jq '.phases[0].ops[] | select(.name=="txn") | .ok' "$s")
rows=$(db_count postgres tx | tr -d ' ')
expect_eq "$ok" 400 "committed insert transactions"
expect_eq "$rows" 2000 "rows after 400 transactions of 5 inserts"
retries=$(jq '.phases[1].ops[] | select(.name=="txn") | .retries' "$s")
cok=$(jq '.phases[1].ops[] | select(.name=="txn") | .ok' "$s")
fatal=$(jq '.phases[1].ops[] | select(.name=="txn") | .errors.fatal' "$s")
[ "$retries" -gt 0 ] || fail "no deadlock was retried"
[ "$cok" -gt 0 ] || fail "no contended transaction committed"
expect_eq "$fatal" 0 "fatal errors in the contended phase"
pass "postgres (cockroachdb protocol): 400 txns = 2000 rows; contended: $cok committed after $retries retries"

# A transaction blocked on a row lock for longer than op_timeout is cut off
# and counted as a timeout (unavailable): another session
# holds every row of tx FOR UPDATE while a 2 s phase updates them, and is
# cancelled only after the run (a fixed hold once ran out while a TSan build
# was still starting its phase, and a transaction committed).
cat >"$TMP/lock.yaml" <<YAML
name: txn-lock
target: {driver: postgres, endpoints: [$DB_ENDPOINT], user: stampede, password_env: STAMPEDE_PASSWORD,
         database: bench, op_timeout: 300ms}
phases:
  - {name: blocked, workload: crud, workers: 2, duration: 2s,
     params: {insert: 0, update: 1, keys: 10, txn: 2, table: tx}}
YAML
printf 'BEGIN;\nSELECT id FROM tx FOR UPDATE;\nSELECT pg_sleep(120);\nCOMMIT;\n' |
  PGPASSWORD=$STAMPEDE_PASSWORD psql -h 127.0.0.1 -p "$PG_PORT" -U stampede -d bench -q \
    >/dev/null 2>"$TMP/holder.err" &
holder=$!
held=0
for _ in $(seq 100); do
  held=$(db_sql postgres "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(120)%'")
  [ "$held" = 1 ] && break
  sleep 0.05
done
[ "$held" = 1 ] || fail "the lock holder's session did not start"
"$STAMPEDE" run "$TMP/lock.yaml" --results "$TMP/lock" >"$TMP/lock.out" \
  2>"$TMP/lock.err" || fail "locked run exited $?"
cancelled=$(db_sql postgres "SELECT count(*) FROM pg_stat_activity
  WHERE query LIKE 'SELECT pg_sleep(120)%' AND pg_cancel_backend(pid)")
expect_eq "$cancelled" 1 "lock holder still holding when the run ended"
wait "$holder" || fail "the lock holder's session failed"
s=$TMP/lock/summary.json
lok=$(jq '.phases[0].ops[] | select(.name=="txn") | .ok' "$s")
cut=$(jq '.phases[0].ops[] | select(.name=="txn") | .errors.unavailable' "$s")
expect_eq "$lok" 0 "transactions committed while every row was locked"
[ "$cut" -ge 2 ] || fail "expected every blocked transaction cut off by op_timeout, got $cut"
grep -q "timed out after 300 ms (op_timeout)" "$TMP/lock/report.md" ||
  fail "the report does not say a transaction timed out"
pass "postgres: transactions blocked on a row lock cut off by op_timeout 300ms: $cut unavailable, 0 ok"

start_mariadb
cat >"$TMP/my.yaml" <<YAML
name: txn-mariadb
target: {driver: mysql, flavor: mariadb, endpoints: [$DB_ENDPOINT], user: stampede,
         password_env: STAMPEDE_PASSWORD, database: bench}
phases:
  - {name: load, workload: crud, workers: 4, ops: 400, params: {reset: true, txn: 5, table: tx}}
  - {name: contend, workload: crud, workers: 8, duration: 3s,
     params: {insert: 0, update: 1, keys: 10, txn: 4, table: tx}}
YAML
"$STAMPEDE" run "$TMP/my.yaml" --results "$TMP/my" >"$TMP/my.out" 2>"$TMP/my.err" || fail "mariadb run exited $?"
s=$TMP/my/summary.json
rows=$(db_count mysql tx | tr -d ' ')
expect_eq "$(jq '.phases[0].ops[] | select(.name=="txn") | .ok' "$s")" 400 "mariadb committed transactions"
expect_eq "$rows" 2000 "mariadb rows"
expect_eq "$(jq '.phases[1].ops[] | select(.name=="txn") | .errors.fatal' "$s")" 0 "mariadb fatal errors"
pass "mariadb: 400 txns = 2000 rows; contended: $(jq '.phases[1].ops[] | select(.name=="txn") | .ok' "$s") committed, $(jq '.phases[1].ops[] | select(.name=="txn") | .retries' "$s") retries"

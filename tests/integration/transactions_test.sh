#!/usr/bin/env bash
# Multi-statement transactions (crud txn: N). On real PostgreSQL with the
# cockroachdb flavor, so the CockroachDB client retry protocol (SAVEPOINT
# cockroach_restart; on a retryable error ROLLBACK TO SAVEPOINT and run the
# statements again; RELEASE; COMMIT) runs against a real server: contended
# updates in random order deadlock (40P01), and rolling back to the
# savepoint releases the locks so the retry can succeed. Then on MariaDB.
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

#!/usr/bin/env bash
# The bank workload's checker (docs/consistency.md) on real servers: it
# finds the anomalies that are there and reports none where none can be.
# - MariaDB: transfers with locking reads keep the total (0 anomalies);
#   naive ones (REPEATABLE READ, plain reads, absolute values written back)
#   lose updates: wrong totals are found, with examples, and the plan's
#   `anomalies == 0` fails the verdict (exit 4).
# - PostgreSQL: transfers through a crash of the server mid-run (an
#   immediate shutdown, then a start: crash recovery): 0 anomalies, the
#   final read and the table's own sum both the starting total.
# - Redis: a transfer as one script: 0; naive reads and writes in turn:
#   wrong totals.
source "$(dirname "$0")/../lib.sh"
start_mariadb
my_endpoint=$DB_ENDPOINT

# MariaDB: the correct form, then the naive one.
cat >"$TMP/mariadb.yaml" <<YAML
name: bank-mariadb
target: {driver: mysql, flavor: mariadb, endpoints: [$my_endpoint], user: stampede, password_env: STAMPEDE_PASSWORD, database: bench}
expect:
  phases: {"*": ["anomalies == 0"]}
phases:
  - {name: locked, workload: bank, workers: 8, duration: 4s, params: {accounts: 5, balance: 100}}
  - {name: naive, workload: bank, workers: 8, duration: 4s, params: {accounts: 5, balance: 100, naive: true}}
YAML
rc=0
"$STAMPEDE" run "$TMP/mariadb.yaml" --results "$TMP/my" >"$TMP/my.out" 2>"$TMP/my.err" || rc=$?
expect_eq "$rc" 4 "exit code of a run whose naive phase lost updates (the verdict failed)"
s=$TMP/my/summary.json
transfers=$(jq '.phases[0].ops[] | select(.name == "transfer") | .ok' "$s")
[ "$transfers" -gt 200 ] || fail "only $transfers transfers with locking reads"
expect_eq "$(jq '.phases[0].anomalies.total' "$s")" 0 "anomalies with locking reads"
naive=$(jq '.phases[1].anomalies.by_kind.wrong_total // 0' "$s")
[ "$naive" -gt 0 ] || fail "naive transfers: no wrong total found ($(jq -c '.phases[1].ops' "$s"))"
expect_eq "$(jq '.anomalies.total' "$s")" "$naive" "the run's anomalies: the naive phase's"
example=$(jq -r '.phases[1].anomalies.examples[0].text' "$s")
case "$example" in "read total "*", expected 500 ($my_endpoint, agent local-1, "*) ;; *) fail "example: $example" ;; esac
grep -q "^\*\*Consistency: $naive anomal" "$TMP/my/report.md" || fail "report.md has no consistency line for the naive phase"
grep -q "^Consistency: 0 anomalies" "$TMP/my/report.md" || fail "report.md does not say the locked phase had none"
grep -q "phase naive: bank: final read: total [0-9]*, expected 500 (wrong_total)" "$TMP/my/report.md" ||
  fail "no final read note for the naive phase"
expect_eq "$(jq -r '.verdict.checks[] | select(.where == "phase naive") | .pass' "$s")" false "verdict on the naive phase"
# The table agrees with the final read: the total really changed.
table=$(mariadb -h 127.0.0.1 -P "$MY_PORT" -u stampede -p"$STAMPEDE_PASSWORD" bench -N -e "SELECT SUM(balance) FROM stampede_bank")
[ "$table" != 500 ] || fail "the naive phase left the total at 500: nothing was lost"

# Redis: one script per transfer keeps the total; two reads and two writes
# in turn (naive) do not.
start_redis
cat >"$TMP/redis.yaml" <<YAML
name: bank-redis
target: {driver: redis, endpoints: [$DB_ENDPOINT], password_env: STAMPEDE_PASSWORD}
phases:
  - {name: script, workload: bank, workers: 8, duration: 3s, params: {accounts: 5}}
  - {name: naive, workload: bank, workers: 8, duration: 3s, params: {accounts: 5, naive: true}}
YAML
"$STAMPEDE" run "$TMP/redis.yaml" --results "$TMP/rd" >"$TMP/rd.out" 2>"$TMP/rd.err" || fail "redis run exited $?"
expect_eq "$(jq '.phases[0].anomalies.total' "$TMP/rd/summary.json")" 0 "Redis anomalies with one script per transfer"
rd_naive=$(jq '.phases[1].anomalies.total' "$TMP/rd/summary.json")
[ "$rd_naive" -gt 0 ] || fail "Redis naive transfers: no wrong total found"
start_postgres

# PostgreSQL, crashed and started again mid-run.
cat >"$TMP/agent.yaml" <<YAML
nodes:
  pg1:
    command: {kill: [$ROOT/deploy/local/postgres.sh, crash, $PG_DIR], start: [$ROOT/deploy/local/postgres.sh, start-node, $PG_DIR, "$PG_PORT"]}
YAML
cat >"$TMP/pg.yaml" <<YAML
name: bank-postgres
target: {driver: postgres, endpoints: [$DB_ENDPOINT], user: stampede, password_env: STAMPEDE_PASSWORD, database: bench,
         op_timeout: 2s, connect_timeout: 1s}
expect:
  phases: {"*": ["anomalies == 0"]}
phases:
  - {name: bank, workload: bank, workers: 8, rate: 400, duration: 10s, params: {accounts: 20, balance: 1000, max_transfer: 100}}
faults:
  - {at: bank+3s, action: kill, node: pg1}
  - {at: bank+5s, action: start, node: pg1}
YAML
rc=0
"$STAMPEDE" run "$TMP/pg.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/pg" >"$TMP/pg.out" 2>"$TMP/pg.err" || rc=$?
expect_eq "$rc" 0 "exit code of the run through a crash"
s=$TMP/pg/summary.json
expect_eq "$(jq -c '[.faults[] | [.action, .ok]]' "$s")" '[["kill",true],["start",true]]' "faults"
errors=$(jq '[.phases[0].ops[].errors | add] | add' "$s")
[ "$errors" -gt 0 ] || fail "the crash cost no operation"
transfers=$(jq '.phases[0].ops[] | select(.name == "transfer") | .ok' "$s")
[ "$transfers" -gt 500 ] || fail "only $transfers transfers"
expect_eq "$(jq '.anomalies.total' "$s")" 0 "anomalies through the crash"
grep -q "phase bank: bank: final read: total 20000 as expected" "$TMP/pg/report.md" || fail "no final read of 20000"
table=$(PGPASSWORD=$STAMPEDE_PASSWORD psql -h 127.0.0.1 -p "$PG_PORT" -U stampede -d bench -tAc "SELECT SUM(balance) FROM stampede_bank")
expect_eq "$table" 20000 "the table's total after the crash"
pass "bank: MariaDB locked 0 anomalies ($(jq '.phases[0].ops[] | select(.name == "read") | .ok' "$TMP/my/summary.json") reads), naive $naive wrong totals; Redis naive $rd_naive; PostgreSQL through a crash: $transfers transfers, $errors errors, 0 anomalies"

#!/usr/bin/env bash
# pipeline: N on PostgreSQL for real (libpq's pipeline mode). Every write is
# its own implicit transaction and consecutive reads share one, so:
# - inserts that collide on a key fail alone: rows = ok, every other insert
#   of the batch committed;
# - a read that fails (division by zero) leaves the reads after it in its
#   group not run (retryable), and nothing else;
# - a table locked mid-phase stalls the batches in flight until op_timeout
#   cuts them: their inserts count as ambiguous one by one, every operation
#   is accounted for, and the read-back finds rows = acknowledged +
#   ambiguous that committed, none lost, no failed one present.
source "$(dirname "$0")/../lib.sh"
start_postgres
psql_bench() { PGPASSWORD=$STAMPEDE_PASSWORD psql -h 127.0.0.1 -p "$PG_PORT" -U stampede -d bench -qtAX "$@"; }
target=$(target_yaml postgres | sed 's/}$/, op_timeout: 300ms}/')
cat >"$TMP/errors.yaml" <<YAML
name: pg-pipeline-errors
$target
setup: ["DROP TABLE IF EXISTS pp", "CREATE TABLE pp (id BIGINT PRIMARY KEY)"]
phases:
  - {name: dup, workload: custom, workers: 4, ops: 4000, pipeline: 16,
     custom: [{name: ins, sql: "INSERT INTO pp VALUES (\$1)", params: [{uniform: [1, 3000]}]}]}
  - {name: div, workload: custom, workers: 4, ops: 4000, pipeline: 16,
     custom: [{name: div, sql: "SELECT 10 / (\$1 - 5)", params: [{uniform: [0, 9]}]}]}
YAML
"$STAMPEDE" run "$TMP/errors.yaml" --results "$TMP/errors" >"$TMP/errors.out" 2>"$TMP/errors.err" ||
  fail "errors run exited $? ($(tail -n 2 "$TMP/errors.err"))"
s=$TMP/errors/summary.json
read -r ok fatal other <<<"$(jq -r '.phases[0].ops[0] | "\(.ok) \(.errors.fatal) \(.errors.retryable + .errors.unavailable + .errors.ambiguous)"' "$s")"
expect_eq "$((ok + fatal))" 4000 "inserts ok + duplicate-key errors"
expect_eq "$other" 0 "other insert outcomes"
[ "$fatal" -gt 0 ] || fail "no insert collided"
expect_eq "$(psql_bench -c 'SELECT count(*) FROM pp')" "$ok" "rows = ok inserts (each committed alone)"
read -r dok dfatal dretry <<<"$(jq -r '.phases[1].ops[0] | "\(.ok) \(.errors.fatal) \(.errors.retryable)"' "$s")"
expect_eq "$((dok + dfatal + dretry))" 4000 "reads ok + failed + not run"
[ "$dfatal" -gt 100 ] && [ "$dretry" -gt 0 ] || fail "division by zero: $dfatal failed, $dretry not run after them"
grep -q "not run: a statement before it in its pipeline failed" "$TMP/errors/report.md" ||
  fail "the report does not say why reads were not run"
pass "errors stay with their own operation: $fatal duplicate inserts failed, $ok rows; $dfatal reads failed, $dretry after them not run"

# The lock: taken once the pipelined inserts are flowing, held 1.5 s. The
# phase lasts at least 4 s (think_time paces each worker's batches).
cat >"$TMP/lock.yaml" <<YAML
name: pg-pipeline-lock
$target
phases:
  - {name: warm, workload: crud, workers: 1, ops: 10, params: {table: pl, reset: true}}
  - {name: insert, workload: crud, workers: 4, ops: 160000, pipeline: 16, think_time: 2ms, timeout: 60s,
     check_writes: true, params: {table: pl}}
expect:
  phases: {insert: ["lost_writes == 0", "unexpected_writes == 0", "missed == 0"]}
YAML
"$STAMPEDE" run "$TMP/lock.yaml" --results "$TMP/lock" >"$TMP/lock.out" 2>"$TMP/lock.err" &
run=$!
for _ in $(seq 200); do
  [ "$(psql_bench -c "SELECT count(*) FROM pl WHERE id >= 1000000000000")" -gt 1000 ] 2>/dev/null && break
  sleep 0.05
done
psql_bench -c "BEGIN" -c "LOCK TABLE pl IN EXCLUSIVE MODE" -c "SELECT pg_sleep(1.5)" -c "COMMIT" >/dev/null ||
  fail "the lock holder's session failed"
rc=0; wait "$run" || rc=$?
expect_eq "$rc" 0 "locked run's exit code ($(tail -n 3 "$TMP/lock.err"))"
s=$TMP/lock/summary.json
expect_accounted_and_read_back "$s" 1 160000
rows=$(psql_bench -c "SELECT count(*) FROM pl WHERE id >= 1000000000000")
expect_eq "$rows" $((acked + committed)) "rows = acknowledged + ambiguous that committed"
pass "a 1.5 s table lock under pipeline 16: $ok ok, $amb ambiguous ($committed committed), $((errors - amb)) other errors, $rows rows"

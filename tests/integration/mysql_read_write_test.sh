#!/usr/bin/env bash
# target.session: read-write on MySQL/MariaDB, for real: two MariaDB servers,
# A writable and B read-only (as a replica is), both listed, B first. Every
# worker is refused by B (@@global.read_only = 1) and writes to A. Mid-phase
# the test fails them over as a primary/replica switch does: A is set
# read-only (its writers get 1290 and leave it), then B writable; the
# workers end on B. No acknowledged insert is lost: rows on A + rows on B
# = acknowledged + ambiguous that committed, and every operation the phase
# owed is accounted for.
source "$(dirname "$0")/../lib.sh"
start_mariadb
A_DIR=$MY_DIR A_PORT=$MY_PORT
MY_DIR=$TMP/mariadb-b MY_PORT=$(free_port)
on_exit "'$ROOT/deploy/local/mariadb.sh' stop '$MY_DIR'"
"$ROOT/deploy/local/mariadb.sh" start "$MY_DIR" "$MY_PORT" "$STAMPEDE_PASSWORD"
B_DIR=$MY_DIR B_PORT=$MY_PORT
root() { mariadb -uroot --socket="$1/mysqld.sock" bench -N -e "$2"; }
root "$B_DIR" "SET GLOBAL read_only = 1"
for d in "$A_DIR" "$B_DIR"; do root "$d" "CREATE TABLE rw (id BIGINT PRIMARY KEY, foo VARCHAR(10))"; done

cat >"$TMP/plan.yaml" <<YAML
name: mysql-read-write
target: {driver: mysql, flavor: mariadb, endpoints: [127.0.0.1:$B_PORT, 127.0.0.1:$A_PORT], user: stampede,
         password_env: STAMPEDE_PASSWORD, database: bench, session: read-write, connect_timeout: 1s,
         op_timeout: 2s}
retry: {max_attempts: 20, backoff: 50ms}
phases:
  - {name: insert, workload: crud, workers: 8, duration: 10s, rate: 800, check_writes: true, params: {table: rw}}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" &
run=$!
wait_for_line "$TMP/run.out" "] insert" 300
sleep 2
[ "$(root "$A_DIR" "SELECT count(*) FROM rw")" -gt 0 ] || fail "nothing written to A, the writable server"
expect_eq "$(root "$B_DIR" "SELECT count(*) FROM rw")" 0 "rows on B while it is read-only"
# The switch: A stops accepting writes, then B starts.
root "$A_DIR" "SET GLOBAL read_only = 1"
sleep 1
root "$B_DIR" "SET GLOBAL read_only = 0"
rc=0; wait "$run" || rc=$?
expect_eq "$rc" 0 "run exit code ($(tail -n 2 "$TMP/run.err"))"
s=$TMP/res/summary.json
read -r ok errors done missed <<<"$(jq -r '.phases[0] | "\(.ops[0].ok) \(.ops[0].errors | add) \(.done) \(.missed)"' "$s")"
expect_eq "$((done + missed))" 8000 "done + missed (800/s x 10 s)"
read -r acked lost committed unchecked <<<"$(jq -r '.phases[0].writes | "\(.acked) \(.lost) \(.ambiguous_committed) \(.unchecked)"' "$s")"
rows_a=$(root "$A_DIR" "SELECT count(*) FROM rw")
rows_b=$(root "$B_DIR" "SELECT count(*) FROM rw")
[ "$rows_b" -gt 1000 ] || fail "only $rows_b rows on B after it became writable"
expect_eq "$acked" "$ok" "inserts the read-back knew as acknowledged"
expect_eq "$unchecked" 0 "inserts the read-back could not check"
expect_eq "$((rows_a + rows_b))" "$((acked + committed))" "rows on A + rows on B = acknowledged + ambiguous that committed"
# The read-back reads from the server that accepts writes (B): A's rows are
# on the old primary, which a real failover would have replicated; here
# they are not, so the read-back reports them lost, exactly A's rows.
expect_eq "$lost" "$rows_a" "acknowledged inserts not on the new primary (A's, never replicated here)"
fb=$(jq --arg e "127.0.0.1:$B_PORT" '.phases[0].endpoints[$e].connect_failures // 0' "$s")
fa=$(jq --arg e "127.0.0.1:$A_PORT" '.phases[0].endpoints[$e].connect_failures // 0' "$s")
[ "$fb" -ge 8 ] || fail "B refused only $fb connections while read-only (8 workers)"
[ "$fa" -ge 1 ] || fail "A refused no connection after it became read-only"
output_has "read-only (@@global.read_only = 1), not the primary (session: read-write)" cat "$TMP/run.err" "$TMP/res/report.md" ||
  fail "no refusal named the read-only server"
pass "session read-write on MariaDB: A then B after the switch; $ok ok, $errors errors, $missed missed; rows A $rows_a + B $rows_b = $acked acknowledged + $committed committed; refused: B $fb, A $fa"

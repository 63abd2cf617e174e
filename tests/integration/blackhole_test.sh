#!/usr/bin/env bash
# A database that stops answering (SIGSTOP of every server process) costs a
# worker at most op_timeout per operation: the op in flight is cut off and
# counted, and the run goes on and finishes on time. PostgreSQL has no
# client-side socket timeout, so this exercises the runner's watchdog.
source "$(dirname "$0")/../lib.sh"
start_postgres
cat >"$TMP/plan.yaml" <<YAML
name: blackhole
target: {driver: postgres, endpoints: [$DB_ENDPOINT], user: stampede, password_env: STAMPEDE_PASSWORD,
         database: bench, op_timeout: 1s, connect_timeout: 2s}
phases:
  - {name: read, workload: kv, workers: 4, duration: 10s, rate: 200, params: {keys: 100, read: 1}}
YAML
start=$(date +%s)
"$STAMPEDE" run "$TMP/plan.yaml" --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" &
run_pid=$!
wait_for_line "$TMP/run.out" "read" 150
pm=$(db_pid postgres)
pids="$pm $(pgrep -P "$pm" | tr '\n' ' ')"
kill -STOP $pids
sleep 4
kill -CONT $pids
rc=0; wait "$run_pid" || rc=$?
elapsed=$(( $(date +%s) - start ))
expect_eq "$rc" 0 "run exit code"
s=$TMP/res/summary.json
unav=$(jq '.phases[0].ops[0].errors.unavailable' "$s")
[ "$unav" -ge 1 ] || fail "no operation was cut off"
grep -q "timed out after 1000 ms (op_timeout)" "$TMP/res/report.md" || fail "report does not say an op timed out"
ok=$(jq '.phases[0].ops[0].ok' "$s")
[ "$ok" -ge 1000 ] || fail "only $ok reads ok: the workers did not move on"
[ "$elapsed" -lt 40 ] || fail "the run took ${elapsed}s"
pass "4 s blackhole with op_timeout 1s: $unav ops cut off, $ok ok, run took ${elapsed}s"

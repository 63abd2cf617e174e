#!/usr/bin/env bash
# Every run ends on time and loses nothing: Redis at 500 ops/s for 10 s with
# op_timeout 1s is SIGSTOPped 3 s in and stays stopped past the run's end.
# The run exits within 13 s of its start; ok + errors + missed = 5000 exactly;
# summary.json, report.md and the coordinator's /metrics agree on missed.
source "$(dirname "$0")/../lib.sh"
start_redis
start_coordinator --http 127.0.0.1:0
start_agent solo
cat >"$TMP/plan.yaml" <<YAML
name: deadline
target: {driver: redis, endpoints: [$DB_ENDPOINT], password_env: STAMPEDE_PASSWORD, op_timeout: 1s}
phases:
  - {name: steady, workload: kv, workers: 8, duration: 10s, rate: 500, params: {keys: 100}}
YAML
pid=$(db_pid redis)
# The server stays stopped after the run: resume it before it is stopped.
on_exit "kill -CONT $pid"
start=$(date +%s%N)
"$STAMPEDE" run "$TMP/plan.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/run.out" 2>"$TMP/run.err" &
run_pid=$!
wait_for_line "$TMP/run.out" "steady" 100
# The first progress line is 1.5 s into the run (0.5 s lead + 1 s).
sleep 1.5
kill -STOP "$pid"
rc=0; wait "$run_pid" || rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expect_eq "$rc" 0 "run exit code"
[ "$elapsed_ms" -le 13000 ] || fail "the 10 s phase took until ${elapsed_ms} ms (want <= 13 s)"
dir=$(summary_of "$COORD_RESULTS")
s=$dir/summary.json
ok=$(jq '[.phases[0].ops[].ok] | add' "$s")
done_=$(jq '[.phases[0].ops[].count] | add' "$s")
missed=$(jq '[.phases[0].ops[].missed] | add' "$s")
expect_eq "$(jq '.phases[0].owed' "$s")" 5000 "owed operations"
expect_eq "$((done_ + missed))" 5000 "ok + errors + missed"
expect_eq "$(jq '.phases[0].missed' "$s")" "$missed" "phase missed = sum of the ops' missed"
[ "$missed" -gt 2000 ] || fail "only $missed missed while the server was stopped for 7 s"
grep -q "^Owed 5000 operations: $done_ done, $missed missed" "$dir/report.md" || fail "report.md: $(grep Owed "$dir/report.md")"
metrics_missed=$(curl -sf "${COORD_HTTP}metrics" | awk '/^stampede_ops_missed_total/ { n += $2 } END { print n + 0 }')
expect_eq "$metrics_missed" "$missed" "stampede_ops_missed_total vs summary.json"
# The run's own progress lines show the misses as they happen, not at the end.
per_second=$(grep -c "missed  *[1-9]" "$TMP/run.out" || true)
[ "$per_second" -ge 3 ] || fail "missed shows in only $per_second progress lines"
pass "server stopped at 3 s: run ended after $elapsed_ms ms; $ok ok + $((done_ - ok)) errors + $missed missed = 5000"

# An ops-bounded phase that cannot finish in its timeout: it ends there, what
# it did not do is missed, and the run ends saying which phase timed out.
cat >"$TMP/slow.yaml" <<YAML
name: phase-timeout
target: {driver: redis, endpoints: [$DB_ENDPOINT], password_env: STAMPEDE_PASSWORD}
phases:
  - {name: endless, workload: kv, workers: 2, ops: 100000000, timeout: 2s, params: {keys: 100}}
  - {name: never, workload: kv, workers: 2, ops: 10, params: {keys: 100}}
YAML
kill -CONT "$pid"
start=$(date +%s%N)
rc=0; "$STAMPEDE" run "$TMP/slow.yaml" --results "$TMP/slow" >"$TMP/slow.out" 2>"$TMP/slow.err" || rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expect_eq "$rc" 1 "exit code of a phase that timed out"
grep -q "^stampede: phase endless timed out after 2s (its timeout)" "$TMP/slow.err" || fail "timeout line: $(tail -n 2 "$TMP/slow.err")"
[ "$elapsed_ms" -le 6000 ] || fail "a 2 s phase timeout ended the run after $elapsed_ms ms"
s=$TMP/slow/summary.json
expect_eq "$(jq '.phases | length' "$s")" 1 "phases run after the timeout"
expect_eq "$(jq '.phases[0].timed_out' "$s")" true "phase marked timed out"
expect_eq "$(($(jq '.phases[0].done' "$s") + $(jq '.phases[0].missed' "$s")))" 100000000 "done + missed = ops"

# The run's own timeout.
cat >"$TMP/long.yaml" <<YAML
name: run-timeout
target: {driver: redis, endpoints: [$DB_ENDPOINT], password_env: STAMPEDE_PASSWORD}
timeout: 2s
phases:
  - {name: endless, workload: kv, workers: 2, ops: 100000000, params: {keys: 100}}
YAML
rc=0; "$STAMPEDE" run "$TMP/long.yaml" --results "$TMP/long" >"$TMP/long.out" 2>"$TMP/long.err" || rc=$?
expect_eq "$rc" 1 "exit code of a run that timed out"
grep -q "^stampede: the run timed out after 2s (its timeout) in phase endless; results so far are kept" "$TMP/long.err" \
  || fail "run timeout line: $(tail -n 2 "$TMP/long.err")"
[ "$(jq '.phases[0].done' "$TMP/long/summary.json")" -gt 0 ] || fail "nothing kept of the run that timed out"
pass "phase timeout: ended after $elapsed_ms ms, done + missed = ops; run timeout: ended with its results"

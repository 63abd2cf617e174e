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

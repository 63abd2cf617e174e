#!/usr/bin/env bash
# Faults are undone when a run ends before its plan did. A plan pauses Redis
# at p+2s and resumes it at p+8s; the run is aborted at about 3 s, first by
# SIGTERM to `stampede run`, then by shutting down a coordinator daemon.
# Either way Redis answers again right after, and the report lists the
# resume among the faults undone.
source "$(dirname "$0")/../lib.sh"
start_redis
pid=$(db_pid redis)
on_exit "kill -CONT $pid"
cat >"$TMP/agent.yaml" <<YAML
nodes:
  redis1: {process: {pidfile: $RD_DIR/redis.pid}}
YAML
cat >"$TMP/plan.yaml" <<YAML
name: abort-undo
$(target_yaml redis)
agents: {min: 1}
phases:
  - {name: p, workload: kv, workers: 4, duration: 12s, rate: 200, params: {keys: 100}}
faults:
  - {at: p+2s, action: pause, node: redis1}
  - {at: p+8s, action: resume, node: redis1}
YAML
answers() { timeout 2 redis-cli -p "$RD_PORT" -a "$STAMPEDE_PASSWORD" --no-auth-warning ping 2>/dev/null | grep -q PONG; }
state() { awk '{print $3}' "/proc/$pid/stat"; }

# 1. SIGTERM to the embedded run.
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res1" \
  >"$TMP/run1.out" 2>"$TMP/run1.err" &
run=$!
wait_for_line "$TMP/run1.err" "fault 0 done: pause" 150
expect_eq "$(state)" T "redis state after the pause"
kill -TERM "$run"
rc=0; wait "$run" || rc=$?
expect_eq "$rc" 1 "exit code of an aborted run"
answers || fail "redis does not answer after the aborted run (state $(state))"
grep -q "^- resume redis1 (agent local-1) at .* s: done" "$TMP/res1/report.md" \
  || fail "report.md does not list the resume: $(sed -n '/Undone/,$p' "$TMP/res1/report.md")"
expect_eq "$(jq -r '.undone[0].action + " " + .undone[0].node + " " + (.undone[0].ok | tostring)' "$TMP/res1/summary.json")" \
  "resume redis1 true" "summary.json undone"
pass "SIGTERM at ~3 s: redis resumed ($(grep -o 'undo: resume redis1[^)]*)' "$TMP/run1.err" | head -n 1))"

# 2. A coordinator daemon shut down mid-run, its agent still up.
start_coordinator
start_agent owner --config "$TMP/agent.yaml"
"$STAMPEDE" run "$TMP/plan.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/run2.out" 2>"$TMP/run2.err" &
run=$!
wait_for_line "$TMP/run2.err" "fault 0 done: pause" 150
expect_eq "$(state)" T "redis state after the second pause"
kill -TERM "$COORD_PID"
rc=0; wait "$run" || rc=$?
[ "$rc" -ne 0 ] || fail "the run ended 0 although its coordinator shut down"
for _ in $(seq 1 50); do answers && break; sleep 0.1; done
answers || fail "redis does not answer after the coordinator shut down (state $(state))"
dir=$(summary_of "$COORD_RESULTS")
expect_eq "$(jq -r '.undone[0].action + " " + (.undone[0].ok | tostring)' "$dir/summary.json")" "resume true" \
  "undone after the coordinator's shutdown"
pass "coordinator shut down at ~3 s: redis resumed, run exited $rc"

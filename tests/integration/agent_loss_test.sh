#!/usr/bin/env bash
# An agent process killed mid-run: with on_loss: abort the run stops at once
# with a clear message, exit 1, and what was measured is on disk; with
# on_loss: continue the other agent finishes the phase.
source "$(dirname "$0")/../lib.sh"
start_redis
start_coordinator
for mode in abort continue; do
  start_agent "x-$mode"
  start_agent "y-$mode"
  cat >"$TMP/$mode.yaml" <<YAML
name: loss-$mode
$(target_yaml redis)
agents: {min: 2, on_loss: $mode}
phases:
  - {name: steady, workload: kv, workers: 4, duration: 6s, rate: 400, params: {keys: 100}}
YAML
  "$STAMPEDE" run "$TMP/$mode.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/$mode.out" 2>"$TMP/$mode.err" &
  pid=$!
  wait_for_line "$TMP/$mode.out" "steady" 150
  eval kill -9 "\$AGENT_PID_y_$mode"
  rc=0; wait "$pid" || rc=$?
  dir=$(summary_of "$COORD_RESULTS")
  if [ $mode = abort ]; then
    expect_eq "$rc" 1 "exit code with on_loss: abort"
    grep -q "^stampede: lost agent y-abort (agents.on_loss: abort)" "$TMP/$mode.err" || fail "abort message: $(cat "$TMP/$mode.err")"
    [ "$(jq '.phases[0].ops[0].count' "$dir/summary.json")" -gt 0 ] || fail "measurements before the loss were not kept"
  else
    expect_eq "$rc" 0 "exit code with on_loss: continue"
    expect_eq "$(jq '.phases[0].completed' "$dir/summary.json")" true "phase completed without the lost agent"
  fi
  eval kill -9 "\$AGENT_PID_x_$mode" 2>/dev/null || true
  sleep 0.5
done
pass "agent loss: abort stops with a clear line and keeps results; continue finishes"

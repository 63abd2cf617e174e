#!/usr/bin/env bash
# An agent process killed mid-run: with on_loss: abort the run stops at once
# with a clear message, exit 1, and what was measured is on disk; with
# on_loss: continue the other agent finishes the phase (exit 3: degraded).
# A hung agent (SIGSTOP) is lost after 3 s of silence, not when TCP gives
# up; resumed, it comes back with its runner and its seconds count again.
# With on_loss: redistribute the other agent takes the lost share over.
# (That a lost lead hands setup and cleanup on is the run controller's
# logic: coordinator/run_controller_test.cc checks it without servers.)
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
    expect_eq "$rc" 3 "exit code with on_loss: continue (degraded: an agent was lost)"
    expect_eq "$(jq '.phases[0].completed' "$dir/summary.json")" true "phase completed without the lost agent"
  fi
  eval kill -9 "\$AGENT_PID_x_$mode" 2>/dev/null || true
  sleep 0.5
done
pass "agent loss: abort stops with a clear line and keeps results; continue finishes"

# A hung agent: stopped 1.5 s into a 12 s phase for 6 s.
start_agent x-hung
start_agent y-hung
cat >"$TMP/hung.yaml" <<YAML
name: loss-hung
$(target_yaml redis)
agents: {min: 2, on_loss: continue}
phases:
  - {name: steady, workload: kv, workers: 4, duration: 12s, rate: 400, params: {keys: 100}}
YAML
"$STAMPEDE" run "$TMP/hung.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/hung.out" 2>"$TMP/hung.err" &
pid=$!
wait_for_line "$TMP/hung.out" "steady" 150
kill -STOP "$AGENT_PID_y_hung"
stopped=$(date +%s%N)
wait_for_line "$TMP/coordinator.log" "lost agent y-hung" 80
lag_ms=$((($(date +%s%N) - stopped) / 1000000))
[ "$lag_ms" -le 4000 ] || fail "a hung agent was declared lost $lag_ms ms after it stopped"
sleep $(((6000 - lag_ms) / 1000))
kill -CONT "$AGENT_PID_y_hung"
rc=0; wait "$pid" || rc=$?
expect_eq "$rc" 3 "exit code with a hung agent (degraded)"
dir=$(summary_of "$COORD_RESULTS")
grep '"event":"back"' "$dir/journal.jsonl" | jq -e 'select(.agent == "y-hung") | .how | test("runner went on")' >/dev/null \
  || fail "y-hung did not come back with its runner: $(grep '"type":"agent"' "$dir/journal.jsonl")"
s=$dir/summary.json
expect_eq "$(($(jq '.phases[0].done' "$s") + $(jq '.phases[0].missed' "$s") + $(jq '.phases[0].unaccounted' "$s")))" \
  "$(jq '.phases[0].owed' "$s")" "done + missed + unaccounted = owed"
pass "hung agent lost after $lag_ms ms; back after SIGCONT with its runner; $(jq '.phases[0].missed' "$s") missed while it was stopped"
kill -9 "$AGENT_PID_x_hung" "$AGENT_PID_y_hung"
sleep 0.5

# redistribute: the lost agent's share moves to the other agent mid-phase.
# Its inserts are read back by the agent that took it over; what the lost
# agent inserted before it went is known to no one, and the read-back says
# so (lost_writes is then not measured).
start_agent x-red
start_agent y-red
cat >"$TMP/red.yaml" <<YAML
name: loss-redistribute
$(target_yaml redis)
agents: {min: 2, on_loss: redistribute}
phases:
  - {name: steady, workload: crud, workers: 4, duration: 12s, rate: 400, check_writes: true, params: {table: red}}
YAML
"$STAMPEDE" run "$TMP/red.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/red.out" 2>"$TMP/red.err" &
pid=$!
wait_for_line "$TMP/red.out" "steady" 150
kill -9 "$AGENT_PID_y_red"
rc=0; wait "$pid" || rc=$?
expect_eq "$rc" 3 "exit code with a redistributed share (degraded)"
dir=$(summary_of "$COORD_RESULTS")
s=$dir/summary.json
adopted=$(jq '.phases[0].agent_ops["x-red+y-red"] // 0' "$s")
[ "$adopted" -gt 1000 ] || fail "x-red ran only $adopted operations of y-red's share"
unacc=$(jq '.phases[0].unaccounted' "$s")
[ "$unacc" -le 800 ] || fail "$unacc operations unaccounted: the share moved too late"
expect_eq "$(($(jq '.phases[0].done' "$s") + $(jq '.phases[0].missed' "$s") + unacc))" 4800 "done + missed + unaccounted"
# x-red read back its own inserts and those of the share it took over.
own=$(jq '.phases[0].agent_ops["x-red"]' "$s")
expect_eq "$(jq '.phases[0].ops[0].errors | add' "$s")" 0 "insert errors"
expect_eq "$(jq '.phases[0].writes.acked' "$s")" $((own + adopted)) "inserts read back: x-red's and the share it took over"
expect_eq "$(jq '.phases[0].writes.lost' "$s")" 0 "acknowledged inserts lost"
expect_eq "$(jq -c '.phases[0].writes.agents_missing' "$s")" '["y-red (lost during the phase)"]' "agents whose inserts were not read back"
grep -q "no answer from y-red (lost during the phase)" "$dir/report.md" ||
  fail "report.md does not say y-red's inserts were not read back: $(grep 'Acknowledged' "$dir/report.md")"
pass "redistribute: x-red took y-red's share over ($adopted ops) and read its inserts back ($((own + adopted)) in all), $unacc unaccounted"
kill -9 "$AGENT_PID_x_red"

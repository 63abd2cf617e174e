#!/usr/bin/env bash
# A coordinator that never comes back. The plan pauses Redis 2 s into a
# 10 s phase (and would resume it at 9 s); the coordinator is SIGKILLed at
# about 3 s. The agent that paused Redis resumes it after its
# coordinator_lost.resume_paused_after (2 s), finishes its phase, stops the
# run after stop_run_after (10 s) and keeps its spool; `stampede report DIR
# --spool FILE` merges what the agents kept into the run's results. Both
# agents generate load (agents.load: all), so both spools hold seconds.
source "$(dirname "$0")/../lib.sh"
start_redis
pid=$(db_pid redis)
on_exit "kill -CONT $pid"
start_coordinator
cat >"$TMP/owner.yaml" <<YAML
nodes:
  redis1: {process: {pidfile: $RD_DIR/redis.pid}}
coordinator_lost: {resume_paused_after: 2s, stop_run_after: 10s}
spool: {dir: $TMP/spool-owner}
YAML
cat >"$TMP/other.yaml" <<YAML
coordinator_lost: {resume_paused_after: 2s, stop_run_after: 10s}
spool: {dir: $TMP/spool-other}
YAML
start_agent owner --config "$TMP/owner.yaml"
start_agent other --config "$TMP/other.yaml"
cat >"$TMP/plan.yaml" <<YAML
name: coordinator-lost
$(target_yaml redis)
agents: {min: 2, load: all}
phases:
  - {name: p, workload: kv, workers: 4, duration: 10s, rate: 200, params: {keys: 100}}
faults:
  - {at: p+2s, action: pause, node: redis1}
  - {at: p+9s, action: resume, node: redis1}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --coordinator "127.0.0.1:$COORD_PORT" --follow-for 1s >"$TMP/run.out" 2>"$TMP/run.err" &
run=$!
wait_for_line "$TMP/coordinator.log" "fault 0 done: pause" 150
sleep 0.5
kill -9 "$COORD_PID"
killed=$(date +%s%N)
rc=0; wait "$run" || rc=$?
expect_eq "$rc" 1 "submitter exit code when the coordinator never came back"
wait_for_line "$TMP/agent-owner.log" "undo: resume redis1" 60
resumed_ms=$((($(date +%s%N) - killed) / 1000000))
for _ in $(seq 1 30); do
  timeout 2 redis-cli -p "$RD_PORT" -a "$STAMPEDE_PASSWORD" --no-auth-warning ping 2>/dev/null | grep -q PONG && break
  sleep 0.1
done
timeout 2 redis-cli -p "$RD_PORT" -a "$STAMPEDE_PASSWORD" --no-auth-warning ping 2>/dev/null | grep -q PONG \
  || fail "redis was not resumed by its agent"
[ "$resumed_ms" -le 5000 ] || fail "the paused node was resumed only $resumed_ms ms after the coordinator died"
wait_for_line "$TMP/agent-owner.log" "the spool of run .* is kept in" 150
wait_for_line "$TMP/agent-other.log" "the spool of run .* is kept in" 150
dir=$(summary_of "$COORD_RESULTS")
run_id=$(basename "$dir")
before=$(grep -c '"type":"second"' "$dir/journal.jsonl")
"$STAMPEDE" report "$dir" --spool "$TMP/spool-owner/owner.$run_id.spool" "$TMP/spool-other/other.$run_id.spool" \
  >"$TMP/report.out" 2>"$TMP/report.err" || fail "report --spool exited $?: $(cat "$TMP/report.err")"
after=$(grep -c '"type":"second"' "$dir/journal.jsonl")
[ "$after" -gt "$before" ] || fail "the spools added no seconds ($before before, $after after)"
for a in owner other; do
  seqs=$(jq -s --arg a "$a" '[.[] | select(.type == "second" and ((.from // []) | index($a))) | .seq] | unique | length' "$dir/journal.jsonl")
  [ "$seqs" -ge 10 ] || fail "agent $a: only $seqs of the phase's seconds after merging its spool"
done
done_=$(jq '.phases[0].done' "$dir/summary.json")
missed=$(jq '.phases[0].missed' "$dir/summary.json")
expect_eq "$((done_ + missed))" 2000 "done + missed after merging the spools (200/s x 10 s)"
pass "coordinator killed at ~3 s, never back: redis resumed by its agent after $resumed_ms ms; spools merged: $before -> $after seconds, $done_ done + $missed missed = 2000"

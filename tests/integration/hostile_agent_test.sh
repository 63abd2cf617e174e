#!/usr/bin/env bash
# A hostile gRPC client against a coordinator with a run in progress: 1,000
# agent sessions at once, a running agent's name claimed, a message over the
# size limit, a snapshot in another agent's name, a corrupt histogram, a
# snapshot of a run that does not exist. Each is refused (or ignored) with a
# logged reason, and the run goes on undisturbed: every insert reported ok
# is in Redis, and ok + errors + missed = the ops the schedule called for.
source "$(dirname "$0")/../lib.sh"
HOSTILE=${HOSTILE_AGENT:-$(dirname "$STAMPEDE")/tests/hostile_agent}
[ -x "$HOSTILE" ] || fail "hostile_agent not built ($HOSTILE)"
# 1,000 sessions hold a descriptor each on the coordinator and the client.
[ "$(ulimit -n)" -ge 4096 ] || ulimit -n 4096
start_db redis
start_coordinator
start_agent a1
start_agent a2

cat >"$TMP/plan.yaml" <<YAML
name: hostile
seed: 5
$(target_yaml redis)
agents: {min: 2, wait: 30s}
phases:
  - name: insert
    workload: crud
    workers: 8
    duration: 25s
    rate: 200
    params: {reset: true, table: it_hostile}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/run.out" 2>"$TMP/run.err" &
run_pid=$!
wait_for_line "$TMP/coordinator.log" "phase insert"
sleep 1
"$HOSTILE" --coordinator "127.0.0.1:$COORD_PORT" --victim a1 --streams 1000 >"$TMP/hostile.out" 2>&1 \
  || { cat "$TMP/hostile.out"; fail "the coordinator accepted something it must refuse"; }
cat "$TMP/hostile.out"
grep -q "^flood: 1000 sessions opened, 1000 welcomed" "$TMP/hostile.out" || fail "the flood was not taken in"
grep -q "^impersonation: ALREADY_EXISTS" "$TMP/hostile.out" || fail "impersonation not refused as ALREADY_EXISTS"
grep -q "sent a snapshot in the name of agent 'a1'; disconnecting it" "$TMP/coordinator.log" \
  || fail "no log line for the snapshot in another agent's name"
grep -q "agent hostile-hist sent a snapshot in which op insert has a histogram bucket 1073741824 out of range; disconnecting it" \
  "$TMP/coordinator.log" || fail "no log line for the corrupt histogram"
kill -0 "$run_pid" 2>/dev/null || fail "the run ended before the hostile client was done"
wait "$run_pid" || { cat "$TMP/run.err"; fail "run exited $?"; }

s=$(summary_of "$COORD_RESULTS")/summary.json
expect_eq "$(jq '.ok' "$s")" true "run ok"
expect_eq "$(jq '.agents | length' "$s")" 2 "agents in the run (the hostile sessions are not)"
ok=$(jq '[.phases[0].ops[].ok] | add' "$s")
done_=$(jq '[.phases[0].ops[].count] | add' "$s")
missed=$(jq '[.phases[0].ops[].missed] | add' "$s")
rows=$(db_count redis it_hostile | tr -d ' ')
expect_eq "$rows" "$ok" "keys in Redis vs insert ok"
expect_eq "$(jq '.phases[0].owed' "$s")" 5000 "owed operations (200/s x 25 s)"
expect_eq "$((done_ + missed))" 5000 "ok + errors + missed"
grep -q "flood-\|hostile-" "$(dirname "$s")/journal.jsonl" && fail "a hostile session reached the journal"

stop_daemon "$AGENT_PID_a1" "agent a1"
stop_daemon "$AGENT_PID_a2" "agent a2"
stop_daemon "$COORD_PID" coordinator
pass "hostile client refused on every count; run undisturbed: $ok inserts ok = $rows keys, $done_ done + $missed missed = 5000"

#!/usr/bin/env bash
# pipeline: N on Redis for real. A closed-loop crud phase sends 16 inserts
# back to back per connection; the plan pauses Redis (SIGSTOP) for 1.5 s in
# the middle, so op_timeout cuts every batch in flight. Checked: every
# operation is accounted for (ok + errors = owed, none missed), the cut
# batches' inserts count as ambiguous one by one, and the read-back finds
# keys = acknowledged + ambiguous that committed, no acknowledged insert
# lost and no failed one present. Then kv pipelined and one at a time
# on the same server (2 s each): pipelined must do more.
source "$(dirname "$0")/../lib.sh"
start_redis
cat >"$TMP/agent.yaml" <<YAML
nodes:
  redis1: {process: {pidfile: $RD_DIR/redis.pid}}
YAML
# think_time caps each worker at 16 inserts per ~1 ms: the phase lasts at
# least 2.6 s, so the pause (1 s to 2.5 s) lands inside it on any machine.
cat >"$TMP/plan.yaml" <<YAML
name: redis-pipeline
$(target_yaml redis | sed 's/}$/, op_timeout: 300ms, connect_timeout: 300ms}/')
phases:
  - {name: insert, workload: crud, workers: 8, ops: 300000, pipeline: 16, think_time: 1ms, timeout: 60s,
     check_writes: true, params: {table: pl}}
  - {name: p16, workload: kv, workers: 8, duration: 2s, pipeline: 16, params: {keys: 10000}}
  - {name: p1, workload: kv, workers: 8, duration: 2s, params: {keys: 10000}}
faults:
  - {at: insert+1s, action: pause, node: redis1}
  - {at: insert+2500ms, action: resume, node: redis1}
expect:
  phases: {insert: ["lost_writes == 0", "unexpected_writes == 0", "missed == 0"]}
YAML
rc=0
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" >"$TMP/run.out" \
  2>"$TMP/run.err" || rc=$?
expect_eq "$rc" 0 "run exit code ($(tail -n 3 "$TMP/run.err"))"
s=$TMP/res/summary.json
expect_eq "$(jq -c '[.faults[0:2][] | [.action, .ok]]' "$s")" '[["pause",true],["resume",true]]' "faults"
expect_eq "$(jq '.phases[0].pipeline' "$s")" 16 "the phase's pipeline in summary.json"
expect_accounted_and_read_back "$s" 0 300000
keys=$(db_count redis pl)
expect_eq "$keys" $((acked + committed)) "keys = acknowledged + ambiguous that committed"
grep -q "^## Phase insert (.*, 8 workers, pipeline 16)" "$TMP/res/report.md" ||
  fail "report.md does not show the pipeline: $(grep '^## Phase insert' "$TMP/res/report.md")"
p16=$(jq '[.phases[1].ops[].count] | add' "$s")
p1=$(jq '[.phases[2].ops[].count] | add' "$s")
[ "$p16" -gt "$p1" ] || fail "pipeline 16 did $p16 operations in 2 s, one at a time did $p1"
pass "pipeline 16 through a 1.5 s pause: $ok ok, $amb ambiguous ($committed committed), $((errors - amb)) other errors, $keys keys; kv $((p16 / 2)) ops/s pipelined vs $((p1 / 2)) one at a time"

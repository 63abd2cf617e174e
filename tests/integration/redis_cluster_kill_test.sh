#!/usr/bin/env bash
# crud inserts into a real 6-node Redis Cluster (3 masters, 3 replicas);
# one master is SIGKILLed mid-run. The run finishes (exit 0), errors are
# counted while the replica takes over, writes resume afterwards, and the
# keys in the cluster match what was acknowledged. Redis replicates
# asynchronously, so a killed master can lose its last acknowledged writes:
# the agents' read-back (check_writes) counts them, the keys left agree with
# it exactly, and the test allows a few.
source "$(dirname "$0")/../lib.sh"
start_redis_cluster
masters=$("$ROOT/deploy/local/redis-cluster.sh" masters "$RC_DIR")
victim=${masters%%$'\n'*}  # the first line (no pipe into head: see output_has in lib.sh)
[ -n "$victim" ] || fail "no master found"
cat >"$TMP/plan.yaml" <<YAML
name: redis-cluster-kill
target: {driver: redis, flavor: redis-cluster, endpoints: [$RC_ENDPOINTS], password_env: STAMPEDE_PASSWORD,
         op_timeout: 1s, connect_timeout: 1s}
retry: {max_attempts: 5, backoff: 50ms}
phases:
  - {name: insert, workload: crud, workers: 8, duration: 16s, rate: 800, check_writes: true,
     params: {reset: true, table: rk}}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" &
run_pid=$!
wait_for_line "$TMP/run.out" "insert" 150
sleep 2
"$ROOT/deploy/local/redis-cluster.sh" kill "$RC_DIR" "$victim"
rc=0; wait "$run_pid" || rc=$?
expect_eq "$rc" 0 "run exit code"
s=$TMP/res/summary.json
ok=$(jq '.phases[0].ops[0].ok' "$s")
errors=$(jq '[.phases[0].ops[0].errors[]] | add' "$s")
amb=$(jq '.phases[0].ops[0].errors.ambiguous' "$s")
keys=$(redis_cluster_count rk)
[ "$errors" -gt 0 ] || fail "the kill produced no errors"
# Writes resumed: the last seconds of the run were all ok.
last=$(grep '"type":"second"' "$TMP/res/journal.jsonl" | tail -n 4 | sed -n 1,3p)
tail_ok=$(echo "$last" | jq -s '[.[].ops.insert.outcomes[0] // 0] | add')
tail_err=$(echo "$last" | jq -s '[.[].ops.insert.outcomes // [0] | .[1:] | add // 0] | add')
[ "$tail_ok" -gt 1500 ] && [ "$tail_err" = 0 ] || fail "writes did not resume: last seconds ok=$tail_ok errors=$tail_err"
[ "$keys" -le $((ok + amb)) ] || fail "$keys keys > $ok ok + $amb ambiguous"
read -r acked lost committed unchecked failed found <<<"$(jq -r '.phases[0].writes | "\(.acked) \(.lost) \(.ambiguous_committed) \(.unchecked) \(.failed // 0) \(.failed_found // 0)"' "$s")"
expect_eq "$found" 0 "failed inserts found in the database (of $failed read back): rows beyond acknowledged + ambiguous"
expect_eq "$acked" "$ok" "inserts the read-back knew as acknowledged"
expect_eq "$unchecked" 0 "inserts the read-back could not check"
expect_eq "$keys" $((acked - lost + committed)) "keys = acknowledged - lost + ambiguous that committed"
[ "$lost" -le 200 ] || fail "$lost acknowledged writes lost"
"$ROOT/deploy/local/redis-cluster.sh" info "$RC_DIR" $((RC_BASE + 1)) | grep -q "cluster_state:ok" || fail "cluster not ok"
cat "$TMP/res/report.md"
pass "redis cluster master $victim killed: $ok ok, $errors errors, $keys keys ($lost acknowledged writes lost in the failover, $committed of $amb ambiguous committed), writes resumed"

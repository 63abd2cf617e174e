#!/usr/bin/env bash
# pipeline: 16 on a real 6-node Redis Cluster (3 masters, 3 replicas): each
# round's commands go to the masters of their slots. One master is SIGKILLed
# mid-phase: every operation the phase owed is accounted for (ok + errors =
# owed, none missed), the commands cut with the master's connections count
# as ambiguous one by one, the replica takes over and writes resume, and the
# keys in the cluster are exactly acknowledged - lost + ambiguous that
# committed (Redis replicates asynchronously: a killed master may take its
# last acknowledged writes with it; the read-back counts them, a few are
# allowed).
source "$(dirname "$0")/../lib.sh"
start_redis_cluster
masters=$("$ROOT/deploy/local/redis-cluster.sh" masters "$RC_DIR")
victim=${masters%%$'\n'*}
[ -n "$victim" ] || fail "no master found"
owed=80000
cat >"$TMP/plan.yaml" <<YAML
name: redis-cluster-pipeline
target: {driver: redis, flavor: redis-cluster, endpoints: [$RC_ENDPOINTS], password_env: STAMPEDE_PASSWORD,
         op_timeout: 1s, connect_timeout: 1s}
phases:
  - {name: kv, workload: kv, workers: 4, ops: 20000, pipeline: 16, params: {keys: 1000, read: 0.5}}
  - {name: insert, workload: crud, workers: 8, ops: $owed, pipeline: 16, think_time: 20ms, timeout: 60s,
     check_writes: true, params: {reset: true, table: rp}}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" &
run_pid=$!
wait_for_line "$TMP/run.out" "] insert" 300
sleep 2
"$ROOT/deploy/local/redis-cluster.sh" kill "$RC_DIR" "$victim"
rc=0; wait "$run_pid" || rc=$?
expect_eq "$rc" 0 "run exit code ($(tail -n 2 "$TMP/run.err"))"
s=$TMP/res/summary.json
expect_eq "$(jq '.phases[0].ops | map(.ok) | add' "$s")" 20000 "healthy cluster: kv gets and sets ok"
read -r ok amb errors done missed <<<"$(jq -r '.phases[1] | "\(.ops[0].ok) \(.ops[0].errors.ambiguous) \(.ops[0].errors | add) \(.done) \(.missed)"' "$s")"
expect_eq "$((ok + errors))" "$owed" "ok + errors"
expect_eq "$done" "$owed" "operations done"
expect_eq "$missed" 0 "operations missed"
[ "$errors" -gt 0 ] || fail "the kill produced no errors"
read -r acked lost committed unchecked failed found <<<"$(jq -r '.phases[1].writes | "\(.acked) \(.lost) \(.ambiguous_committed) \(.unchecked) \(.failed // 0) \(.failed_found // 0)"' "$s")"
keys=$(redis_cluster_count rp)
expect_eq "$acked" "$ok" "inserts the read-back knew as acknowledged"
expect_eq "$unchecked" 0 "inserts the read-back could not check"
expect_eq "$found" 0 "failed inserts found in the cluster (of $failed read back)"
expect_eq "$keys" $((acked - lost + committed)) "keys = acknowledged - lost + ambiguous that committed"
[ "$lost" -le 200 ] || fail "$lost acknowledged writes lost"
# Writes resumed after the failover: the last full seconds were all ok.
last=$(grep '"type":"second"' "$TMP/res/journal.jsonl" | grep '"phase":"insert"' | tail -n 3 | sed -n 1,2p)
tail_ok=$(echo "$last" | jq -s '[.[].ops.insert.outcomes[0] // 0] | add')
tail_err=$(echo "$last" | jq -s '[.[].ops.insert.outcomes // [0] | .[1:] | add // 0] | add')
[ "$tail_ok" -gt 1000 ] && [ "$tail_err" = 0 ] || fail "writes did not resume: last seconds ok=$tail_ok errors=$tail_err"
pass "redis cluster master $victim killed during pipeline 16: $owed owed = $ok ok + $errors errors ($amb ambiguous, $committed committed), 0 missed; $keys keys = $acked acknowledged - $lost lost + $committed"

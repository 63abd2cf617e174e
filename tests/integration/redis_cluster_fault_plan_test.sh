#!/usr/bin/env bash
# The node-kill scenario from a plan on a real 6-node Redis Cluster:
# rebalance2021 paced at 800 ops/s (8 s per step); the plan kills a master
# 4 s into InsertOne; the agent owning it does it; the health probe (CLUSTER INFO)
# sees the cluster fail and become healthy again after the replica's
# promotion, and summary.json has the recovery numbers.
source "$(dirname "$0")/../lib.sh"
start_redis_cluster
masters=$("$ROOT/deploy/local/redis-cluster.sh" masters "$RC_DIR")
victim=${masters%%$'\n'*}  # the first line (no pipe into head: see output_has in lib.sh)
[ -n "$victim" ] || fail "no master found"
survivor=$((RC_BASE + 5))
[ "$survivor" = "$victim" ] && survivor=$((RC_BASE + 4))
cat >"$TMP/agent.yaml" <<YAML
nodes:
  master-a:
    process: {pidfile: $RC_DIR/$victim/redis.pid}
YAML
cat >"$TMP/plan.yaml" <<YAML
name: redis-cluster-fault
target: {driver: redis, flavor: redis-cluster, endpoints: [127.0.0.1:$survivor, $RC_ENDPOINTS],
         password_env: STAMPEDE_PASSWORD, op_timeout: 1s, connect_timeout: 1s,
         health: {kind: redis-cluster, consecutive: 2}}
retry: {max_attempts: 5, backoff: 50ms}
recovery: {baseline: 3s, hold: 3s}
phases:
  - {name: insert, workload: rebalance2021, workers: 8, rate: 800, params: {records_per_worker: 800, table: rf}}
faults:
  - {at: insert+4s, action: kill, node: master-a}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" \
  >"$TMP/run.out" 2>"$TMP/run.err" || fail "run exited $?"
s=$TMP/res/summary.json
expect_eq "$(jq '.faults[0].ok' "$s")" true "kill took effect"
kill -0 "$(cat "$RC_DIR/$victim/redis.pid")" 2>/dev/null && fail "the master is still running"
for k in unavailability_s throughput_dip time_to_recovered_s time_to_healthy_s; do
  [ "$(jq ".faults[0].$k" "$s")" != null ] || fail "faults[0].$k is not filled"
done
th=$(jq '.faults[0].time_to_healthy_s' "$s")
awk -v h="$th" 'BEGIN { exit !(h > 0 && h <= 60) }' || fail "time to healthy $th s"
errs=$(jq '[.faults[0].errors[]] | add' "$s")
[ "$errs" -gt 0 ] || fail "the kill produced no errors"
expect_eq "$(jq '[.groups[0].steps[] | select(.completed)] | length' "$s")" 5 "completed rebalance2021 steps"
# Redis replicates asynchronously: a few acknowledged writes may be lost
# with the master; compare what the cluster kept with what was acknowledged.
ok=$(jq '.phases[0].ops[0].ok' "$s")
amb=$(jq '.phases[0].ops[0].errors.ambiguous' "$s")
keys=$(redis_cluster_count rf)
[ "$keys" -le $((ok + amb)) ] || fail "$keys keys > $ok acknowledged + $amb ambiguous inserts"
[ "$keys" -ge $((ok - 200)) ] || fail "$keys keys: more than 200 of $ok acknowledged inserts lost"
sed -n '/## Faults and recovery/,/## Notes/p' "$TMP/res/report.md"
pass "redis cluster master $victim killed from the plan: $errs errors, $ok inserts ok, $keys keys, recovered after $(jq .faults[0].time_to_recovered_s "$s") s, healthy after $th s"

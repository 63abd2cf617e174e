#!/usr/bin/env bash
# Redis with Sentinel for real (deploy/local/redis-sentinel.sh: a master,
# two replicas, three sentinels, down after 1 s). The workers list all three
# data nodes with session: read-write: a replica refuses them (ROLE), so
# they write to the master and follow the sentinels' promotion when the
# plan kills it; the old master, started again, comes back as a replica.
# Redis replicates asynchronously: an insert the old master acknowledged
# and had not yet sent on is lost in the failover. The read-back
# (check_writes) counts such losses; the test checks its numbers against
# the keys the new master holds (keys = acknowledged - lost + ambiguous
# that committed) and prints them.
source "$(dirname "$0")/../lib.sh"
RS_DIR=$TMP/sentinel; RS_BASE=$(free_port_base 0 1 2 10 11 12)
on_exit "'$ROOT/deploy/local/redis-sentinel.sh' stop '$RS_DIR'"
"$ROOT/deploy/local/redis-sentinel.sh" start "$RS_DIR" "$RS_BASE" "$STAMPEDE_PASSWORD"
expect_eq "$("$ROOT/deploy/local/redis-sentinel.sh" master "$RS_DIR")" "$RS_BASE" "master before the run"
cat >"$TMP/agent.yaml" <<YAML
nodes:
  redis1:
    process:
      pidfile: $RS_DIR/$RS_BASE/redis.pid
      start: [$ROOT/deploy/local/redis-sentinel.sh, start-node, $RS_DIR, "$RS_BASE"]
YAML
cat >"$TMP/plan.yaml" <<YAML
name: redis-sentinel-failover
target: {driver: redis, session: read-write, password_env: STAMPEDE_PASSWORD, op_timeout: 2s, connect_timeout: 1s,
         endpoints: [127.0.0.1:$RS_BASE, 127.0.0.1:$((RS_BASE + 1)), 127.0.0.1:$((RS_BASE + 2))],
         health: {kind: redis}}
recovery: {baseline: 2s, recovered_fraction: 0.9, hold: 2s}
phases:
  - {name: insert, workload: crud, workers: 8, duration: 14s, rate: 1000, check_writes: true, params: {table: st}}
faults:
  - {at: insert+3s, action: kill, node: redis1}
  - {at: insert+9s, action: start, node: redis1}
YAML
rc=0
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" \
  >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
expect_eq "$rc" 0 "run exit code"
s=$TMP/res/summary.json
expect_eq "$(jq -c '[.faults[0:2][] | [.action, .node, .ok]]' "$s")" '[["kill","redis1",true],["start","redis1",true]]' "faults"
master=$("$ROOT/deploy/local/redis-sentinel.sh" master "$RS_DIR") || fail "the sentinels name no master"
[ "$master" != "$RS_BASE" ] || fail "the killed master is the master again: no failover happened"
unav=$(jq '.faults[0].unavailability_s' "$s")
# Down after 1 s, then the sentinels' vote and the promotion.
awk -v v="$unav" 'BEGIN { exit !(v >= 0.5 && v <= 10) }' || fail "unavailability $unav s"
"$ROOT/deploy/local/redis-sentinel.sh" wait-replicas "$RS_DIR" 2 || fail "the old master did not come back as a replica"
ok=$(jq '.phases[0].ops[0].ok' "$s")
read -r acked wlost committed unchecked failed found <<<"$(jq -r '.phases[0].writes | "\(.acked) \(.lost) \(.ambiguous_committed) \(.unchecked) \(.failed // 0) \(.failed_found // 0)"' "$s")"
expect_eq "$found" 0 "failed inserts found in the database (of $failed read back): rows beyond acknowledged + ambiguous"
expect_eq "$acked" "$ok" "inserts the read-back knew as acknowledged"
expect_eq "$unchecked" 0 "inserts the read-back could not check"
keys=$(redis-cli -p "$master" -a "$STAMPEDE_PASSWORD" --no-auth-warning --scan --pattern 'st:*' | sort -u | wc -l)
expect_eq "$keys" $((acked - wlost + committed)) "keys on the new master = acknowledged - lost + ambiguous that committed"
[ "$(jq '[.phases[0].endpoints[] | .reconnects] | add' "$s")" -gt 0 ] || fail "no worker moved to the new master"
pass "master killed, $master promoted by the sentinels: unavailability $unav s; $acked acknowledged inserts, $wlost lost in the failover (asynchronous replication), $committed ambiguous committed, $keys keys"

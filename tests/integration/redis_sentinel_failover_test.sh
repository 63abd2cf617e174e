#!/usr/bin/env bash
# Redis with Sentinel for real (deploy/local/redis-sentinel.sh: a master,
# two replicas, three sentinels, down after 1 s, every one behind the
# password: the sentinels' too, target.sentinel.password_env). The workers list all three
# data nodes with session: read-write and the sentinels (target.sentinel):
# a worker connects only to the node the sentinels name master, and a
# replica refuses it (ROLE), so the workers write to the master and follow
# the sentinels' promotion when the plan kills it; the old master, started
# again, comes back as a replica. Redis replicates asynchronously: an
# insert a master acknowledged and had not yet sent on is lost in a
# failover. The read-back (check_writes) counts such losses; the test
# checks its numbers against the keys the last master holds (keys =
# acknowledged - lost + ambiguous that committed) and prints them.
#
# Then the promoted master is paused for 2.5 s, longer than the sentinels'
# down-after, shorter than op_timeout: the sentinels fail over again, to
# the other replica, and the paused master, resumed, does not know. It
# still says master to ROLE, so the workers connected to it go on writing
# there until the sentinels reconfigure it seconds later, and every insert
# it acknowledged after its deposition is lost when it turns replica. (CI
# once met this without the pause: on a loaded machine a sentinel judged
# the newly promoted master down and the sentinels failed over twice.) The
# read-back asks the sentinels, so it reads the master they name and must
# count those inserts lost.
source "$(dirname "$0")/../lib.sh"
RS_DIR=$TMP/sentinel; RS_BASE=$(free_port_base 0 1 2 10 11 12)
on_exit "'$ROOT/deploy/local/redis-sentinel.sh' stop '$RS_DIR'"
# Kept with the test's logs if it fails: what the sentinels decided.
on_exit "grep -h -E 'switch-master|sdown master|odown|elected-leader|convert-to-slave' '$RS_DIR'/*/server.log >'$TMP/sentinels.log'"
"$ROOT/deploy/local/redis-sentinel.sh" start "$RS_DIR" "$RS_BASE" "$STAMPEDE_PASSWORD"
expect_eq "$("$ROOT/deploy/local/redis-sentinel.sh" master "$RS_DIR")" "$RS_BASE" "master before the run"
A=$((RS_BASE + 1)) B=$((RS_BASE + 2))
# The sentinels promote the replica of lowest priority first: A, then B.
for p in "$A 10" "$B 100"; do
  set -- $p
  redis-cli -p "$1" -a "$STAMPEDE_PASSWORD" --no-auth-warning config set replica-priority "$2" >/dev/null
done
cat >"$TMP/agent.yaml" <<YAML
nodes:
  redis1:
    process:
      pidfile: $RS_DIR/$RS_BASE/redis.pid
      start: [$ROOT/deploy/local/redis-sentinel.sh, start-node, $RS_DIR, "$RS_BASE"]
  redisA:
    process:
      pidfile: $RS_DIR/$A/redis.pid
YAML
cat >"$TMP/plan.yaml" <<YAML
name: redis-sentinel-failover
target: {driver: redis, session: read-write, password_env: STAMPEDE_PASSWORD, op_timeout: 4s, connect_timeout: 1s,
         endpoints: [127.0.0.1:$RS_BASE, 127.0.0.1:$A, 127.0.0.1:$B],
         sentinel: {master: stampede, password_env: STAMPEDE_PASSWORD,
                    endpoints: [127.0.0.1:$((RS_BASE + 10)), 127.0.0.1:$((RS_BASE + 11)), 127.0.0.1:$((RS_BASE + 12))]},
         health: {kind: redis}}
recovery: {baseline: 2s, recovered_fraction: 0.9, hold: 2s}
phases:
  - {name: insert, workload: crud, workers: 8, duration: 15s, rate: 1000, check_writes: true, params: {table: st}}
faults:
  - {at: insert+3s, action: kill, node: redis1}
  - {at: insert+7.5s, action: pause, node: redisA}
  - {at: insert+10s, action: resume, node: redisA}
  - {at: insert+11.5s, action: start, node: redis1}
YAML
rc=0
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" \
  >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
expect_eq "$rc" 0 "run exit code"
s=$TMP/res/summary.json
expect_eq "$(jq -c '[.faults[0:4][] | [.action, .node, .ok]]' "$s")" \
  '[["kill","redis1",true],["pause","redisA",true],["resume","redisA",true],["start","redis1",true]]' "faults"
unav=$(jq '.faults[0].unavailability_s' "$s")
# Down after 1 s, then the sentinels' vote and the promotion.
awk -v v="$unav" 'BEGIN { exit !(v >= 0.5 && v <= 10) }' || fail "unavailability $unav s"
# The most failovers one sentinel saw. Not the first sentinel's count: a
# sentinel whose own promotion was overtaken (a busy machine: its leader
# election came late) learns the newest master from the others' hello
# messages and logs one switch from the first master to the last.
failovers=0
for sp in $((RS_BASE + 10)) $((RS_BASE + 11)) $((RS_BASE + 12)); do
  n=$(grep -c '+switch-master' "$RS_DIR/$sp/server.log" || true)
  [ "$n" -gt "$failovers" ] && failovers=$n
done
expect_eq "$failovers" 2 "failovers a sentinel saw (the kill's, then the pause's)"
master=$("$ROOT/deploy/local/redis-sentinel.sh" master "$RS_DIR") || fail "the sentinels name no master"
expect_eq "$master" "$B" "the master after the second failover"
"$ROOT/deploy/local/redis-sentinel.sh" wait-replicas "$RS_DIR" 2 || fail "the old masters did not come back as replicas"
ok=$(jq '.phases[0].ops[0].ok' "$s")
read -r acked wlost committed unchecked failed found <<<"$(jq -r '.phases[0].writes | "\(.acked) \(.lost) \(.ambiguous_committed) \(.unchecked) \(.failed // 0) \(.failed_found // 0)"' "$s")"
expect_eq "$found" 0 "failed inserts found in the database (of $failed read back): rows beyond acknowledged + ambiguous"
expect_eq "$acked" "$ok" "inserts the read-back knew as acknowledged"
expect_eq "$unchecked" 0 "inserts the read-back could not check"
# Writes went on at 1,000/s to the deposed master for seconds.
[ "$wlost" -gt 500 ] || fail "only $wlost acknowledged inserts counted lost: the read-back did not read the master the sentinels name"
keys=$(redis-cli -p "$master" -a "$STAMPEDE_PASSWORD" --no-auth-warning --scan --pattern 'st:*' | sort -u | wc -l)
expect_eq "$keys" $((acked - wlost + committed)) "keys on the last master = acknowledged - lost + ambiguous that committed"
[ "$(jq '[.phases[0].endpoints[] | .reconnects] | add' "$s")" -gt 0 ] || fail "no worker moved to the new master"
pass "master killed, $A promoted, paused, $B promoted: unavailability $unav s; $acked acknowledged inserts, $wlost lost (written to the deposed master, or not yet replicated), $committed ambiguous committed, $keys keys"

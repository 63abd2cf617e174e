#!/usr/bin/env bash
# A blackholed master on a real 6-node Redis Cluster, each node on a host of
# its own (network namespaces 1-6; host 7 runs the coordinator and the load
# agent). The agent on the first master's host drops every packet to or from
# the cluster's ports (the nodes' client and bus ports: its own, and its
# peers' that it connects to) with nftables 3 s into a 16 s kv phase, and
# heals it at 11 s; its own link to the coordinator, on another port, stays
# up. The cluster must fail the master over to its
# replica (cluster-node-timeout 3 s), and the healed master rejoin as a
# replica. (A partition, which leaves the clients' way open, is tested on
# Galera in integration.multihost_node_kill.)
source "$(dirname "$0")/../lib.sh"
source "$ROOT/deploy/local/netns.sh"
if ! netns_available; then
  echo "SKIP: network namespaces are not available here (needs root and iproute2)"
  exit 77
fi
net_create 7
RC_DIR=$TMP/redis-cluster; RC_BASE=7000
hosts=""; spaces=""; endpoints=""
for i in 1 2 3 4 5 6; do
  hosts+="$(host_ip "$i") "; spaces+="$(host_ns "$i") "
  endpoints+="${endpoints:+, }$(host_ip "$i"):$((RC_BASE + i - 1))"
done
on_exit "'$ROOT/deploy/local/redis-cluster.sh' stop '$RC_DIR'"
REDIS_HOSTS=$hosts REDIS_NETNS=$spaces "$ROOT/deploy/local/redis-cluster.sh" start "$RC_DIR" "$RC_BASE" "$STAMPEDE_PASSWORD"
masters=$("$ROOT/deploy/local/redis-cluster.sh" masters "$RC_DIR")
victim=${masters%%$'\n'*}  # the first line (no pipe into head: see output_has in lib.sh)
[ -n "$victim" ] || fail "no master found"
vh=$((victim - RC_BASE + 1))
ports=$(for i in 0 1 2 3 4 5; do printf '%s, %s, ' $((RC_BASE + i)) $((RC_BASE + 10000 + i)); done)
cat >"$TMP/owner.yaml" <<YAML
nodes:
  master-a:
    network: {ports: [${ports%, }]}
YAML

coord=$(host_ip 7):7878
ip netns exec "$(host_ns 7)" "$STAMPEDE" coordinator --listen "$coord" --insecure --results "$TMP/results" \
  >"$TMP/coordinator.out" 2>"$TMP/coordinator.log" &
on_exit "kill -9 $!"
wait_for_line "$TMP/coordinator.log" "listening on"
start_agent() {  # HOST NAME [CONFIG]
  local extra=()
  [ -n "${3:-}" ] && extra=(--config "$3")
  ip netns exec "$(host_ns "$1")" "$STAMPEDE" agent --coordinator "$coord" --insecure --name "$2" "${extra[@]}" \
    >"$TMP/agent-$2.out" 2>"$TMP/agent-$2.log" &
  on_exit "kill -9 $!"
  wait_for_line "$TMP/agent-$2.log" "connected to coordinator"
}
start_agent 7 load
start_agent "$vh" owner "$TMP/owner.yaml"

cat >"$TMP/plan.yaml" <<YAML
name: redis-cluster-blackhole
target: {driver: redis, flavor: redis-cluster, endpoints: [$endpoints], password_env: STAMPEDE_PASSWORD,
         op_timeout: 1s, connect_timeout: 1s, health: {kind: redis-cluster, consecutive: 2}}
agents: {min: 2, wait: 30s}
retry: {max_attempts: 3, backoff: 50ms}
recovery: {baseline: 2s, hold: 2s}
phases:
  - {name: run, workload: kv, workers: 8, rate: 600, duration: 16s, params: {read: 0.5, keys: 5000}}
faults:
  - {at: run+3s, action: blackhole, node: master-a}
  - {at: run+11s, action: heal, node: master-a}
YAML
on_host 7 "$STAMPEDE" run "$TMP/plan.yaml" --coordinator "$coord" --insecure \
  >"$TMP/run.out" 2>"$TMP/run.err" || fail "run exited $?"
dir=$(summary_of "$TMP/results")
s=$dir/summary.json
expect_eq "$(jq -c '[.faults[] | [.action, .agent, .ok]]' "$s")" '[["blackhole","owner",true],["heal","owner",true]]' \
  "blackhole and heal"
# Failed over: the old master is a replica now (it may take a moment after
# the heal to learn of its replica's promotion).
role=
for _ in $(seq 40); do
  role=$(on_host "$vh" redis-cli -h "$(host_ip "$vh")" -p "$victim" -a "$STAMPEDE_PASSWORD" --no-auth-warning role |
    head -n 1)
  [ "$role" = slave ] && break
  sleep 0.25
done
expect_eq "$role" slave "role of the blackholed master after the heal"
grep -q "FAIL message received from .* about" "$RC_DIR/$victim/server.log" ||
  grep -q "Cluster state changed: fail" "$RC_DIR/$victim/server.log" ||
  fail "the blackholed master never saw itself cut off: $(tail -n 5 "$RC_DIR/$victim/server.log")"
ok=$(jq '[.phases[0].ops[].ok] | add' "$s")
errs=$(jq '[.phases[0].ops[].errors[]] | add' "$s")
missed=$(jq '[.phases[0].ops[].missed] | add' "$s")
[ "$ok" -gt 0 ] || fail "no operation succeeded"
# Clients time out on the master at once; the throughput comes back when
# the replica has taken over (after the cluster's node timeout).
ff=$(jq '.faults[0].time_to_first_failure_s' "$s")
rec=$(jq '.faults[0].time_to_recovered_s' "$s")
awk -v f="$ff" -v r="$rec" 'BEGIN { exit !(f != "null" && r != "null" && r + 0 > f + 0) }' ||
  fail "time to recovered throughput ($rec s) should come after the first failure ($ff s)"
expect_eq "$(on_host 7 nft list tables | grep -c stampede_ || true)" 0 "tables on the load host"
expect_eq "$(on_host "$vh" nft list tables | grep -c stampede_ || true)" 0 "tables left on the blackholed host"
sed -n '/## Faults and recovery/,/### heal/p' "$dir/report.md"
pass "redis cluster master $victim blackholed (the cluster's ports): first failure after $(printf %.1f "$ff") s, throughput back after $(printf %.1f "$rec") s (failed over), rejoined as a replica after the heal; $ok ok, $errs errors, $missed missed"

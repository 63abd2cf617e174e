#!/usr/bin/env bash
# A partitioned PostgreSQL primary, across hosts: network namespaces on a
# bridge; host 1 runs the coordinator (mutual TLS), host 2 the client agent,
# hosts 3-5 one Patroni node and one etcd member each (synchronous
# replication), with host 3's agent owning node1, the leader. The plan cuts
# node1 off from the other two nodes (nftables: its Patroni and etcd member
# lose the quorum; the clients still reach it) and heals it later. Patroni
# demotes node1 and promotes the synchronous standby once the leader key
# expires; the workers (session: read-write) follow. Writes node1 took
# while cut off wait for a synchronous standby it cannot reach: they time
# out as ambiguous, never acknowledged, and must not be counted as
# committed once node1 has rejoined (pg_rewind throws them away). Checked:
# a new leader, no acknowledged insert lost, rows = acknowledged +
# ambiguous that committed, node1 back as a replica, nothing left in
# nftables. A known Patroni 3.0.2 quirk (below) can make node1 the leader
# again after the heal, throwing the new leader's acknowledged writes away:
# the test then checks that the run counted exactly what was lost.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/deploy/local/netns.sh"
if ! netns_available; then
  echo "SKIP: network namespaces are not available here (needs root and iproute2)"
  exit 77
fi
net_create 5
certs=$TMP/certs
make_certs "$certs" "$(host_ip 1)" client-1 db1
tls_of() { echo --tls-cert "$certs/$1.pem" --tls-key "$certs/$1.key" --tls-ca "$certs/ca.pem"; }

PT_DIR=$TMP/patroni; PT_BASE=5432
export PATRONI_HOSTS="$(host_ip 3) $(host_ip 4) $(host_ip 5)" PATRONI_NETNS="$(host_ns 3) $(host_ns 4) $(host_ns 5)"
on_exit "'$ROOT/deploy/local/patroni.sh' stop '$PT_DIR'"
"$ROOT/deploy/local/patroni.sh" start "$PT_DIR" "$PT_BASE" "$STAMPEDE_PASSWORD"
expect_eq "$("$ROOT/deploy/local/patroni.sh" leader "$PT_DIR")" 1 "leader before the run"

coord=$(host_ip 1):7878
read -ra tls <<<"$(tls_of coordinator)"
ip netns exec "$(host_ns 1)" "$STAMPEDE" coordinator --listen "$coord" --results "$TMP/results" "${tls[@]}" \
  >"$TMP/coordinator.out" 2>"$TMP/coordinator.log" &
on_exit "kill -9 $!"
wait_for_line "$TMP/coordinator.log" "listening on .*(mutual TLS)"
read -ra tls <<<"$(tls_of client-1)"
ip netns exec "$(host_ns 2)" "$STAMPEDE" agent --coordinator "$coord" --name client-1 "${tls[@]}" \
  >"$TMP/agent-client-1.out" 2>"$TMP/agent-client-1.log" &
on_exit "kill -9 $!"
cat >"$TMP/db1.yaml" <<YAML
nodes:
  node1:
    command:
      kill: [$ROOT/deploy/local/patroni.sh, kill-node, $PT_DIR, "1"]
      start: [$ROOT/deploy/local/patroni.sh, start-node, $PT_DIR, "1"]
    network: {peers: [$(host_ip 4), $(host_ip 5)], interface: eth0}
YAML
read -ra tls <<<"$(tls_of db1)"
ip netns exec "$(host_ns 3)" "$STAMPEDE" agent --coordinator "$coord" --name db1 --config "$TMP/db1.yaml" "${tls[@]}" \
  >"$TMP/agent-db1.out" 2>"$TMP/agent-db1.log" &
on_exit "kill -9 $!"
wait_for_line "$TMP/agent-client-1.log" "connected to coordinator"
wait_for_line "$TMP/agent-db1.log" "connected to coordinator"

urls=$(for n in 1 2 3; do printf 'http://%s:%d, ' "$(host_ip $((n + 2)))" $((PT_BASE + 10 + n)); done)
cat >"$TMP/plan.yaml" <<YAML
name: multihost-patroni-partition
target: {driver: postgres, session: read-write, user: stampede, password_env: STAMPEDE_PASSWORD, database: bench,
         endpoints: [$(host_ip 3):$PT_BASE, $(host_ip 4):$((PT_BASE + 1)), $(host_ip 5):$((PT_BASE + 2))],
         op_timeout: 3s, connect_timeout: 2s, health: {kind: patroni, urls: [${urls%, }], consecutive: 2}}
agents: {min: 2, wait: 30s}
recovery: {baseline: 2s, recovered_fraction: 0.9, hold: 2s}
phases:
  - {name: insert, workload: crud, workers: 8, duration: 30s, rate: 300, check_writes: true,
     params: {reset: true, table: pp}}
faults:
  - {at: insert+3s, action: partition, node: node1}
  - {at: insert+20s, action: heal, node: node1}
YAML
rc=0
on_host 1 "$STAMPEDE" run "$TMP/plan.yaml" --coordinator "$coord" $(tls_of submitter) --token-file none \
  >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
expect_eq "$rc" 0 "run exit code"
s=$(summary_of "$TMP/results")/summary.json
expect_eq "$(jq -c '[.faults[0:2][] | [.action, .node, .ok]]' "$s")" '[["partition","node1",true],["heal","node1",true]]' "faults"
grep -q "promoted self to leader" "$PT_DIR/node2/patroni.log" "$PT_DIR/node3/patroni.log" ||
  fail "neither standby was promoted while node1 was cut off"
# The known Patroni 3.0.2 quirk (etcd 3.4; seen in about one run of four
# here): after the heal the new leader could not reach etcd for its
# retry_timeout while etcd re-formed, demoted itself, and node1, still
# finishing its own demotion from the partition, wrote the leader key
# ("updated leader lock during demoting self because DCS is not
# accessible"). Then either node1 promotes itself with its old data (what
# the other leader acknowledged is gone: the run must count it lost), or it
# holds the key while demoting and the cluster has no leader for a while
# (the read-back then cannot read: it must say so). Patroni's bug, not
# stampede's: handled here, with the numbers printed.
quirk=0
grep -q "updated leader lock during demoting self" "$PT_DIR/node1/patroni.log" && quirk=1
leader=""
for _ in $(seq 1 $((quirk ? 120 : 1))); do
  leader=$("$ROOT/deploy/local/patroni.sh" leader "$PT_DIR") && break
  sleep 0.5
done
[ -n "$leader" ] || [ "$quirk" = 1 ] || fail "no leader after the run"
[ "$leader" != 1 ] || [ "$quirk" = 1 ] ||
  fail "node1 leads again without the known Patroni quirk: $(grep -E 'promoted|demot' "$PT_DIR/node1/patroni.log" | tail -3)"
unav=$(jq '.faults[0].unavailability_s' "$s")
awk -v v="$unav" 'BEGIN { exit !(v >= 3 && v <= 27) }' || fail "unavailability $unav s"
ok=$(jq '.phases[0].ops[0].ok' "$s")
amb=$(jq '.phases[0].ops[0].errors.ambiguous' "$s")
read -r acked wlost committed unchecked failed found <<<"$(jq -r '.phases[0].writes | "\(.acked) \(.lost) \(.ambiguous_committed) \(.unchecked) \(.failed // 0) \(.failed_found // 0)"' "$s")"
[ "$quirk" = 1 ] || expect_eq "$found" 0 "failed inserts found in the database (of $failed read back): rows beyond acknowledged + ambiguous"
expect_eq "$acked" "$ok" "inserts the read-back knew as acknowledged"
[ "$quirk" = 1 ] || expect_eq "$wlost" 0 "acknowledged inserts lost"
[ "$amb" -gt 0 ] || fail "no write was left hanging on the partitioned primary"
expect_eq "$(on_host 3 nft list tables | grep -c stampede_ || true)" 0 "stampede tables left on node1's host"
if [ "$quirk" = 1 ] && [ "$unchecked" -gt 0 ]; then
  # The read-back ran while the cluster had no leader: it says how many it
  # could not read, and why; rows cannot be compared with partial evidence.
  [ "$(jq -r '.phases[0].writes.note' "$s")" != "" ] || fail "unchecked inserts without a reason"
  echo "KNOWN PATRONI QUIRK: node1 held the leader key while demoting itself after the heal (leader now: ${leader:-none}); the read-back read $((acked + amb + failed - unchecked)) inserts, $wlost lost, and counted $unchecked it could not read: $(jq -r '.phases[0].writes.note' "$s")"
  pass "node1 partitioned from its peers: unavailability $unav s; $acked acknowledged inserts; the read-back said what it could not check"
  exit 0
fi
expect_eq "$unchecked" 0 "inserts the read-back could not check"
"$ROOT/deploy/local/patroni.sh" wait-members "$PT_DIR" 3 || fail "node1 did not rejoin: $("$ROOT/deploy/local/patroni.sh" status "$PT_DIR" | head -c 600)"
rows=$(patroni_sql "SELECT count(*) FROM pp")
expect_eq "$rows" $((acked - wlost + committed)) "rows on the leader = acknowledged - lost + ambiguous that committed"
[ "$quirk" = 0 ] ||
  echo "KNOWN PATRONI QUIRK: node1 took the leader key back after the heal; the run counted $wlost of $acked acknowledged inserts lost, and the rows agree"
pass "node1 partitioned from its peers: unavailability $unav s; leader after the heal node $leader; $acked acknowledged inserts, $wlost lost, $committed of $amb ambiguous committed = $rows rows"

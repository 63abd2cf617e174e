#!/usr/bin/env bash
# PostgreSQL high availability for real: configs/patroni-failover.yaml on a
# 3-node Patroni cluster (Debian's patroni and etcd-server; synchronous
# replication). The agent kills the leader (Patroni and its PostgreSQL)
# 2.5 s into InsertOne; Patroni promotes the synchronous standby once the
# leader key expires (ttl 10 s); the workers, connecting only to a server
# that accepts writes (session: read-write), follow it; the old leader is
# started again and rejoins (pg_rewind). Checked: the failover measured
# (unavailability about the ttl), time to healthy once all three run again,
# no acknowledged insert lost (the read-back and a count on the new leader:
# rows = acknowledged + ambiguous that committed), the verdict met (exit 0).
source "$(dirname "$0")/../lib.sh"
start_patroni
expect_eq "$("$ROOT/deploy/local/patroni.sh" leader "$PT_DIR")" 1 "leader before the run"
cat >"$TMP/agent.yaml" <<YAML
nodes:
  pg1:
    command:
      kill: [$ROOT/deploy/local/patroni.sh, kill-node, $PT_DIR, "1"]
      start: [$ROOT/deploy/local/patroni.sh, start-node, $PT_DIR, "1"]
YAML
sed -e "s/127.0.0.1:5440/127.0.0.1:$PT_BASE/; s/127.0.0.1:5441/127.0.0.1:$((PT_BASE + 1))/; s/127.0.0.1:5442/127.0.0.1:$((PT_BASE + 2))/" \
  -e "s/127.0.0.1:5451/127.0.0.1:$((PT_BASE + 11))/; s/127.0.0.1:5452/127.0.0.1:$((PT_BASE + 12))/; s/127.0.0.1:5453/127.0.0.1:$((PT_BASE + 13))/" \
  "$ROOT/configs/patroni-failover.yaml" >"$TMP/plan.yaml"
grep -q ":544[0-9]\|:545[0-9]" "$TMP/plan.yaml" && fail "ports left unreplaced in the plan: $(grep -n ':54[45]' "$TMP/plan.yaml")"
rc=0
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" \
  >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
s=$TMP/res/summary.json
[ -f "$s" ] || fail "no summary.json (exit $rc): $(tail -3 "$TMP/run.err")"
verdict_of "$TMP/res/report.md"
expect_eq "$rc" 0 "exit code (the plan's verdict)"
expect_eq "$(jq -c '[.faults[0:2][] | [.action, .node, .ok]]' "$s")" '[["kill","pg1",true],["start","pg1",true]]' "faults"
leader=$("$ROOT/deploy/local/patroni.sh" leader "$PT_DIR") || fail "no leader after the run"
[ "$leader" != 1 ] || fail "node 1 is the leader again: no failover happened"
unav=$(jq '.faults[0].unavailability_s' "$s")
# The leader key lives 10 s (loop_wait 1 s): the failover takes about that.
awk -v v="$unav" 'BEGIN { exit !(v >= 5 && v <= 30) }' || fail "unavailability $unav s (the leader key's ttl is 10 s)"
[ "$(jq '.faults[0].time_to_healthy_s' "$s")" != null ] || fail "never healthy again: $(grep -i 'cluster' "$TMP/run.err" | tail -3)"
"$ROOT/deploy/local/patroni.sh" wait-members "$PT_DIR" 3 || fail "node 1 did not rejoin: $("$ROOT/deploy/local/patroni.sh" status "$PT_DIR" | head -c 600)"
# Every worker wrote to the leader only: the standbys refused each
# connection (target_session_attrs=read-write), so every operation of the
# standby that stayed one was refused or never sent there.
standby=$((5 - leader))  # of nodes 2 and 3, the one that was not promoted
[ "$standby" = 2 ] || [ "$standby" = 3 ] || fail "leader $leader"
expect_eq "$(jq "[.phases[].endpoints[\"127.0.0.1:$((PT_BASE + standby - 1))\"].reconnects // 0] | add" "$s")" 0 \
  "connections a standby accepted"
ok=$(jq '.phases[0].ops[0].ok' "$s")
amb=$(jq '.phases[0].ops[0].errors.ambiguous' "$s")
read -r acked wlost committed unchecked failed found <<<"$(jq -r '.phases[0].writes | "\(.acked) \(.lost) \(.ambiguous_committed) \(.unchecked) \(.failed // 0) \(.failed_found // 0)"' "$s")"
expect_eq "$found" 0 "failed inserts found in the database (of $failed read back): rows beyond acknowledged + ambiguous"
rows=$(patroni_sql "SELECT count(*) FROM failover")
expect_eq "$acked" "$ok" "inserts the read-back knew as acknowledged"
expect_eq "$wlost" 0 "acknowledged inserts lost (synchronous replication)"
expect_eq "$unchecked" 0 "inserts the read-back could not check"
expect_eq "$rows" $((acked + committed)) "rows on the new leader = acknowledged + ambiguous that committed"
[ "$rows" -le $((ok + amb)) ] || fail "$rows rows > $ok ok + $amb ambiguous"
grep -q "Count = $rows " "$TMP/res/report.md" || fail "the Count step: $(grep 'Count =' "$TMP/res/report.md")"
pass "leader killed, node $leader promoted: unavailability $unav s, healthy after $(jq .faults[0].time_to_healthy_s "$s") s; $acked acknowledged inserts, 0 lost, $committed of $amb ambiguous committed = $rows rows"

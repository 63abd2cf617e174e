#!/usr/bin/env bash
# A crud insert run through all three endpoints of a real 3-node Galera
# cluster; node 3 is SIGKILLed out-of-band mid-run. The run finishes (exit 0),
# the report shows the errors and the reconnects away from node 3, and every
# insert reported ok is in the table, as the agents' read-back
# (check_writes) also finds. Then the cluster loses its primary
# component: a plan kills node 2 of the two left, node 1 alone is
# non-primary and refuses every write; the run still ends on time, counts
# what it missed, and reports the fault as not recovered within the run.
source "$(dirname "$0")/../lib.sh"
start_galera
node3=127.0.0.1:$((GA_BASE + 2))
cat >"$TMP/plan.yaml" <<YAML
name: galera-kill
target: {driver: mysql, flavor: galera, endpoints: [$GA_ENDPOINTS], user: stampede,
         password_env: STAMPEDE_PASSWORD, database: bench, op_timeout: 3s, connect_timeout: 2s}
phases:
  - {name: insert, workload: crud, workers: 12, duration: 12s, rate: 600, check_writes: true,
     params: {reset: true, table: gk}}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --local-agents 2 --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" &
run_pid=$!
wait_for_line "$TMP/run.out" "insert" 150
sleep 2
"$ROOT/deploy/local/galera.sh" kill "$GA_DIR" 3
rc=0; wait "$run_pid" || rc=$?
expect_eq "$rc" 0 "run exit code"
s=$TMP/res/summary.json
ok=$(jq '.phases[0].ops[0].ok' "$s")
amb=$(jq '.phases[0].ops[0].errors.ambiguous' "$s")
unav=$(jq '.phases[0].ops[0].errors.unavailable' "$s")
expect_eq "$(($(jq '.phases[0].done' "$s") + $(jq '.phases[0].missed' "$s")))" 7200 "done + missed (600/s x 12 s)"
quirk=0
if "$ROOT/deploy/local/galera.sh" status "$GA_DIR" 1 | grep -q "non-Primary"; then
  # Known Galera behaviour on a starved 2-core machine: the two survivors'
  # membership round after the kill times out ("install timer expired" in
  # node1/server.log) and both leave the primary component, so the cluster
  # refuses every write for the rest of the run. The run must still end on
  # time with every operation accounted for (checked above and below); the
  # node is bootstrapped again to count the rows.
  echo "KNOWN GALERA QUIRK: both survivors of the kill left the primary component ($(grep -c 'install timer expired' "$GA_DIR/node1/server.log") 'install timer expired' in node1/server.log); bootstrapping node 1 to count rows"
  "$ROOT/deploy/local/galera.sh" bootstrap "$GA_DIR" 1
  quirk=1
fi
rows=$(galera_count gk)
[ "$quirk" = 1 ] || [ "$ok" -gt 3000 ] || fail "only $ok inserts ok"
[ $((amb + unav)) -gt 0 ] || fail "the kill produced no errors"
[ "$rows" -ge "$ok" ] || fail "acknowledged inserts missing: $rows rows < $ok ok"
[ "$rows" -le $((ok + amb)) ] || fail "$rows rows > $ok ok + $amb ambiguous"
read -r acked wlost committed unchecked failed found <<<"$(jq -r '.phases[0].writes | "\(.acked) \(.lost) \(.ambiguous_committed) \(.unchecked) \(.failed // 0) \(.failed_found // 0)"' "$s")"
expect_eq "$found" 0 "failed inserts found in the database (of $failed read back): rows beyond acknowledged + ambiguous"
expect_eq "$acked" "$ok" "inserts the read-back knew as acknowledged"
expect_eq "$wlost" 0 "acknowledged inserts the read-back found lost"
if [ "$quirk" = 1 ]; then
  # A non-primary cluster answers no read: the read-back says so.
  [ "$unchecked" -gt 0 ] || fail "the read-back checked every insert of a non-primary cluster"
  echo "KNOWN GALERA QUIRK: the read-back could not check $unchecked inserts: $(jq -r '.phases[0].writes.note' "$s")"
else
  expect_eq "$unchecked" 0 "inserts the read-back could not check"
  expect_eq "$rows" $((acked + committed)) "rows = acknowledged + ambiguous that committed"
fi
lost=$(jq --arg e "$node3" '.phases[0].endpoints[$e].lost // 0' "$s")
reconn=$(jq '[.phases[0].endpoints[].reconnects] | add' "$s")
[ "$lost" -gt 0 ] || fail "no lost connections recorded for $node3"
[ "$reconn" -ge "$lost" ] || fail "reconnects $reconn < lost $lost"
grep -Eq "^\| $node3 \| [0-9]+ \| [^|]* \| $lost \|" "$TMP/res/report.md" || fail "report has no endpoint row for $node3 with $lost lost"
cat "$TMP/res/report.md"
pass "galera node 3 killed: $ok ok, $amb ambiguous, $unav unavailable, $rows rows; $lost connections lost on node 3, $reconn reconnects"

# --- quorum loss: 2 nodes left, the plan kills node 2 -----------------------
for _ in $(seq 1 40); do
  "$ROOT/deploy/local/galera.sh" status "$GA_DIR" 2 | grep -qP "wsrep_cluster_status\tPrimary" && break
  sleep 0.25
done
cat >"$TMP/node2.yaml" <<YAML
nodes:
  node2: {process: {pidfile: $GA_DIR/node2/mysqld.pid}}
YAML
cat >"$TMP/quorum.yaml" <<YAML
name: galera-quorum-loss
target: {driver: mysql, flavor: galera, endpoints: [127.0.0.1:$GA_BASE, 127.0.0.1:$((GA_BASE + 1))],
         user: stampede, password_env: STAMPEDE_PASSWORD, database: bench, op_timeout: 3s, connect_timeout: 2s,
         health: {kind: galera, nodes: 2, consecutive: 2}}
recovery: {baseline: 2s, hold: 2s}
phases:
  - {name: insert, workload: crud, workers: 12, duration: 12s, rate: 600, params: {reset: true, table: gq}}
faults:
  - {at: insert+3s, action: kill, node: node2}
YAML
start=$(date +%s%N)
rc=0
"$STAMPEDE" run "$TMP/quorum.yaml" --agent-config "$TMP/node2.yaml" --results "$TMP/quorum" \
  >"$TMP/quorum.out" 2>"$TMP/quorum.err" || rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expect_eq "$rc" 0 "quorum-loss run exit code (the run itself went as planned)"
# 12 s phase + 3 s op_timeout + 1 s, plus connecting and the start lead.
[ "$elapsed_ms" -le 20000 ] || fail "the 12 s phase ended after $elapsed_ms ms"
q=$TMP/quorum/summary.json
done_=$(jq '.phases[0].done' "$q")
missed=$(jq '.phases[0].missed' "$q")
qok=$(jq '.phases[0].ops[0].ok' "$q")
qamb=$(jq '.phases[0].ops[0].errors.ambiguous' "$q")
expect_eq "$((done_ + missed))" 7200 "ok + errors + missed (600/s x 12 s)"
expect_eq "$(jq '.faults[0].ok' "$q")" true "node2 killed"
expect_eq "$(jq '.faults[0].recovered' "$q")" false "throughput recovered after losing quorum"
expect_eq "$(jq '.faults[0].healthy' "$q")" false "cluster healthy after losing quorum"
grep -q "time to healthy (health probe) | not recovered within the run" "$TMP/quorum/report.md" \
  || fail "report.md does not say the cluster did not recover: $(grep 'time to' "$TMP/quorum/report.md")"
grep -qi "non-primary\|Primary" "$TMP/quorum.err" || fail "the run did not say the cluster lost its primary component"
qrows=$(mariadb -uroot --socket="$GA_DIR/node1/mysqld.sock" bench -N -e "SELECT count(*) FROM gq" 2>/dev/null) \
  || qrows=$(mariadb -uroot --socket="$GA_DIR/node1/mysqld.sock" -N -e "SET SESSION wsrep_dirty_reads=1; SELECT count(*) FROM bench.gq")
[ "$qrows" -ge "$qok" ] || fail "acknowledged inserts missing: $qrows rows < $qok ok"
[ "$qrows" -le $((qok + qamb)) ] || fail "$qrows rows > $qok ok + $qamb ambiguous"
sed -n "/## Faults and recovery/,\$p" "$TMP/quorum/report.md"
"$ROOT/deploy/local/galera.sh" stop "$GA_DIR"
left=$(pgrep -f "$GA_DIR" || true)
[ -z "$left" ] || fail "processes left after stopping the cluster: $left"
pass "quorum lost at 3 s: run ended after $elapsed_ms ms; $qok ok, $((done_ - qok)) errors, $missed missed of 7200; $qrows rows; not recovered within the run"

#!/usr/bin/env bash
# The node-kill scenario from a plan, on a real 3-node Galera (loopback):
# rebalance2021 paced at 600 ops/s (about 8 s per step); the plan kills
# node3 at insert+2s (InsertOne) and starts it at insert+10s (UpdateOne,
# whose workers start on the two live nodes); the agent
# that owns node3 (declared in its local config) does it. The run exits 0,
# summary.json has both faults with their recovery numbers, no acknowledged
# insert is missing, and the cluster is whole again. A plan naming a node no
# agent declares fails before anything runs. The agent samples node3's data
# directory, memory and CPU: the report shows its disk usage at the start
# and end (and under the steps' recap), Prometheus its gauges.
source "$(dirname "$0")/../lib.sh"
start_galera
start_coordinator
cat >"$TMP/db-agent.yaml" <<YAML
nodes:
  node3:
    process:
      pidfile: $GA_DIR/node3/mysqld.pid
      start: [$ROOT/deploy/local/galera.sh, start-node, $GA_DIR, "3"]
    data_dir: $GA_DIR/node3/data
YAML
"$STAMPEDE" agent --coordinator "127.0.0.1:$COORD_PORT" --name db3-host --config "$TMP/db-agent.yaml" \
  >"$TMP/agent-db3.out" 2>"$TMP/agent-db3.log" &
on_exit "kill -9 $!"
wait_for_line "$TMP/agent-db3.log" "connected to coordinator"
start_agent client-1

# The target both plans run against.
galera_target() {
  cat <<YAML
target: {driver: mysql, flavor: galera, endpoints: [$GA_ENDPOINTS], user: stampede,
         password_env: STAMPEDE_PASSWORD, database: bench, op_timeout: 3s, connect_timeout: 2s,
         health: {kind: galera, nodes: 3, consecutive: 2}}
YAML
}

plan() {  # NODE
  cat <<YAML
name: galera-node-kill
$(galera_target)
agents: {min: 2, wait: 20s}
recovery: {baseline: 3s, recovered_fraction: 0.9, hold: 2s}
phases:
  - {name: insert, workload: rebalance2021, workers: 12, rate: 600, params: {records_per_worker: 400, table: gf}}
faults:
  - {at: insert+2s, action: kill, node: $1}
  - {at: insert+10s, action: start, node: $1}
YAML
}

# A node nobody declares: refused before the run touches the database.
plan node9 >"$TMP/bad.yaml"
rc=0; "$STAMPEDE" run "$TMP/bad.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/bad.out" 2>"$TMP/bad.err" || rc=$?
expect_eq "$rc" 2 "undeclared node exit code"
grep -q "faults\[0\].node: 'node9' is not declared by any connected agent (client-1: none; db3-host: node3)" "$TMP/bad.err" \
  || fail "undeclared node message: $(cat "$TMP/bad.err")"

plan node3 >"$TMP/plan.yaml"
"$STAMPEDE" run "$TMP/plan.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/run.out" 2>"$TMP/run.err" \
  || fail "run exited $?"
dir=$(summary_of "$COORD_RESULTS")
s=$dir/summary.json
expect_eq "$(jq '.faults | length' "$s")" 2 "faults in summary"
expect_eq "$(jq '.faults[0].ok' "$s")" true "kill took effect"
expect_eq "$(jq '.faults[1].ok' "$s")" true "start took effect"
for k in baseline_ops_per_s unavailability_s error_window_s throughput_dip time_to_recovered_s time_to_healthy_s; do
  v=$(jq ".faults[0].$k" "$s")
  [ "$v" != null ] || fail "faults[0].$k is not filled"
done
un=$(jq '.faults[0].unavailability_s' "$s")
th=$(jq '.faults[0].time_to_healthy_s' "$s")
awk -v h="$th" 'BEGIN { exit !(h > 0 && h <= 60) }' || fail "time to healthy $th s"
last_health=$(grep '"type":"health"' "$dir/journal.jsonl" | tail -n 1)
echo "$last_health" | jq -e '.healthy and (.detail | test("size 3, Primary, Synced"))' >/dev/null \
  || fail "the probe did not see the cluster whole again: $last_health"
grep '"type":"health"' "$dir/journal.jsonl" | jq -s -e 'any(.[]; .healthy == false)' >/dev/null \
  || fail "the probe never saw the cluster unhealthy"
awk -v u="$un" 'BEGIN { exit !(u >= 0 && u <= 60) }' || fail "unavailability $un s"
expect_eq "$(jq -r '.phases[0].name' "$s")" insert/InsertOne "first phase"
ok=$(jq '.phases[0].ops[0].ok' "$s")
amb=$(jq '.phases[0].ops[0].errors.ambiguous' "$s")
expect_eq "$(jq '.groups[0].steps | length' "$s")" 5 "rebalance2021 steps"
[ "$(jq '.faults[1].phase' "$s")" = '"insert"' ] || fail "the start fault is not scheduled on the plan phase"
[ "$(jq '[.groups[0].steps[] | select(.completed)] | length' "$s")" -eq 5 ] || fail "a step did not complete"

rows=$(galera_count gf)
[ "$rows" -ge "$ok" ] || fail "acknowledged inserts missing: $rows rows < $ok ok"
[ "$rows" -le $((ok + amb)) ] || fail "$rows rows > $ok ok + $amb ambiguous"
status=$("$ROOT/deploy/local/galera.sh" status "$GA_DIR" 1)
echo "$status" | grep -q "wsrep_cluster_size.3" || fail "cluster size after restart: $status"
echo "$status" | grep -q "Synced" || fail "node 1 not Synced: $status"
grep -q "## Faults and recovery" "$dir/report.md" || fail "report has no recovery section"
sed -n '/## Faults and recovery/,$p' "$dir/report.md"
# node3's resources, sampled by db3-host: killed, then running again.
read -r dstart dend samples running <<<"$(jq -r '.nodes[] | select(.node == "node3") | "\(.disk_bytes_start) \(.disk_bytes_end) \(.samples) \(.running_at_end)"' "$s")"
[ "${dstart:-null}" != null ] && [ "$dstart" -gt 1000000 ] && [ "$dend" -gt 1000000 ] ||
  fail "node3's disk usage not sampled: $(jq -c .nodes "$s")"
[ "$samples" -ge 20 ] || fail "only $samples samples of node3 over a run of about 30 s"
expect_eq "$running" true "node3 running at the end"
grep '"type":"node"' "$dir/journal.jsonl" | jq -s -e 'any(.[]; .running == false)' >/dev/null ||
  fail "no sample saw node3 down while it was killed"
output_has "^| node3 | db3-host | [0-9.]* | [0-9.]* | -*[0-9.]* | [0-9.]* | [0-9.]* | yes |" cat "$dir/report.md" ||
  fail "report.md has no node row: $(grep -A4 '## Nodes' "$dir/report.md")"
output_has "^Disk usage (MB, start -> end of the run): node3 " cat "$dir/report.md" || fail "the steps' recap has no disk row"
output_has '^stampede_node_disk_bytes{node="node3"} [0-9]' curl -sf "${COORD_HTTP}metrics" ||
  fail "Prometheus has no node3 disk gauge"
pass "galera node3 killed and restarted from the plan: $ok ok, $rows rows, unavailability $un s, recovered after $(jq .faults[0].time_to_recovered_s "$s") s, healthy after $th s"

# Repeated cycles: node3 killed three times (repeat: 3, every: 15s) and
# started 6 s after each kill. The report gathers the three kills (and the
# three starts) into one distribution, with a row per cycle.
cat >"$TMP/cycles.yaml" <<YAML
name: galera-kill-cycles
$(galera_target)
agents: {min: 2, wait: 20s}
recovery: {baseline: 3s, recovered_fraction: 0.8, hold: 2s}
phases:
  - {name: cycles, workload: crud, workers: 8, duration: 46s, rate: 300, params: {reset: true, table: gc}}
faults:
  - {at: cycles+3s, action: kill, node: node3, repeat: 3, every: 15s}
  - {at: cycles+9s, action: start, node: node3, repeat: 3, every: 15s}
expect:
  faults: {kill: ["unavailability < 30s"]}
YAML
"$STAMPEDE" run "$TMP/cycles.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/cycles.out" 2>"$TMP/cycles.err" \
  || fail "cycles run exited $?: $(tail -n 3 "$TMP/cycles.err")"
dir=$(summary_of "$COORD_RESULTS")
s=$dir/summary.json
expect_eq "$(jq -r '.plan_name' "$s")" galera-kill-cycles "the cycles run's summary"
expect_eq "$(jq '[.faults[] | select(.ok)] | length' "$s")" 6 "faults that took effect"
expect_eq "$(jq '.fault_cycles | length' "$s")" 2 "distributions (kill node3, start node3)"
expect_eq "$(jq -c '[.verdict.passed, (.verdict.checks | length)]' "$s")" '[true,3]' "verdict (one check per kill)"
kill=$(jq -c '.fault_cycles[] | select(.action == "kill")' "$s")
expect_eq "$(echo "$kill" | jq '.count')" 3 "kill cycles"
expect_eq "$(echo "$kill" | jq --argjson f "$(jq -c .faults "$s")" '[.faults[] | $f[.].action] | unique')" \
  '[
  "kill"
]' "the kill cycles' faults"
echo "$kill" | jq -e '.unavailability_s | .n == 3 and .min <= .median and .median <= .p90 and .p90 <= .max' >/dev/null \
  || fail "unavailability distribution: $kill"
echo "$kill" | jq -e '.time_to_healthy_s.n >= 1' >/dev/null || fail "no cycle became healthy: $kill"
grep -q "^### kill node3 x3 (3 took effect" "$dir/report.md" || fail "report.md has no kill distribution"
rows=$(sed -n '/^### kill node3 x3/,/^###/p' "$dir/report.md" | grep -cE '^\| [123] \| ')
expect_eq "$rows" 3 "per-cycle rows in report.md"
sed -n '/## Repeated faults/,$p' "$dir/report.md"
status=$("$ROOT/deploy/local/galera.sh" status "$GA_DIR" 3)
echo "$status" | grep -q "Synced" || fail "node 3 not back after the cycles: $status"
pass "three kill/start cycles of node3: unavailability $(echo "$kill" | jq -c '.unavailability_s'), healthy $(echo "$kill" | jq -c '.time_to_healthy_s')"

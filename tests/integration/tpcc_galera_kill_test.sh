#!/usr/bin/env bash
# TPC-C on a real 3-node Galera cluster with node 3 killed mid-run and
# started again (configs/tpcc-node-kill.yaml: W = 2, a 20 s run): the run ends on
# time, each fault has its recovery numbers for the run and for New-Order
# alone (tpmC's throughput), and conditions 1-5, 8 and 9 hold after the
# load and after the run: no acknowledged New-Order, Payment or Delivery
# was half-applied by the kill.
source "$(dirname "$0")/../lib.sh"
start_galera
galera_agent_yaml 3 >"$TMP/agent.yaml"
cat >"$TMP/plan.yaml" <<YAML
name: tpcc-galera-kill
target: {driver: mysql, flavor: galera, endpoints: [$GA_ENDPOINTS], user: stampede,
         password_env: STAMPEDE_PASSWORD, database: bench, op_timeout: 10s, connect_timeout: 2s,
         health: {kind: galera, nodes: 3}}
recovery: {baseline: 3s, hold: 3s}
phases:
  - {name: load, workload: tpcc, workers: 4, params: {warehouses: 2, run: false}}
  - {name: tpcc, workload: tpcc, workers: 8, duration: 20s, params: {warehouses: 2, load: false}}
faults:
  - {at: tpcc+7s, action: kill, node: node3}
  - {at: tpcc+12s, action: start, node: node3}
expect:
  phases: {load: ["anomalies == 0"], tpcc: ["anomalies == 0"]}
YAML
rc=0
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" >"$TMP/run.out" \
  2>"$TMP/run.err" || rc=$?
s=$TMP/res/summary.json
expect_eq "$(jq -c '[.faults[] | [.action, .ok]]' "$s")" '[["kill",true],["start",true]]' "faults"
expect_eq "$(jq -c '[.phases[].step]' "$s")" '["load","check","check","run","check"]' "steps"
checks=$(grep -c "TPC-C conditions 1 to 5, 8 and 9 hold in every district" "$TMP/res/report.md" || true)
if [ "$checks" != 3 ] && "$ROOT/deploy/local/galera.sh" status "$GA_DIR" 1 | grep -q "non-Primary"; then
  # Known Galera behaviour on a starved 2-core machine (galera_kill_test):
  # the survivors' membership round after the kill times out and both leave
  # the primary component, so the last check cannot run. The run must still
  # end on time with its numbers; the conditions are checked once node 1 is
  # primary again.
  echo "KNOWN GALERA QUIRK: the survivors of the kill left the primary component; bootstrapping node 1 to check"
  "$ROOT/deploy/local/galera.sh" bootstrap "$GA_DIR" 1
  sed 's/run: false/run: false, load: false/' "$TMP/plan.yaml" | sed '/name: tpcc, workload/d;/faults:/,/start, node/d' \
    >"$TMP/check.yaml"
  "$STAMPEDE" run "$TMP/check.yaml" --results "$TMP/check" >"$TMP/check.out" 2>&1 || fail "check after bootstrap: $?"
  grep -q "hold in every district" "$TMP/check/report.md" || fail "conditions after bootstrap: $(grep -i condition "$TMP/check/report.md")"
else
  expect_eq "$rc" 0 "exit code ($(tail -n 3 "$TMP/run.err"))"
  expect_eq "$checks" 3 "conditions hold after the load, before the run and after it"
fi
# New-Order's own recovery numbers, one row per fault, beside the run's.
expect_eq "$(jq '.new_order_faults | length' "$s")" 2 "New-Order's faults"
base=$(jq '.new_order_faults[0].baseline_ops_per_s' "$s")
awk -v b="$base" 'BEGIN { exit !(b > 1) }' || fail "New-Order baseline $base/s"
grep -q "^## Faults and recovery, New-Order alone" "$TMP/res/report.md" || fail "report.md: no New-Order section"
row=$(grep -A8 "^## Faults and recovery, New-Order alone" "$TMP/res/report.md" | grep "^| kill node3")
[ -n "$row" ] || fail "report.md: no kill row for New-Order"
tpmc=$(jq '.phases[3].tpmc | round' "$s")
[ "$tpmc" -gt 0 ] || fail "tpmC $tpmc"
pass "tpcc on Galera with node 3 killed and started: tpmC $tpmc, New-Order $row; conditions 1-5, 8, 9 hold"

#!/usr/bin/env bash
# bank (docs/consistency.md) through all three endpoints of a real 3-node
# Galera cluster, node 3 killed mid-run and started again by the plan:
# transfers on different nodes that touch the same account conflict at
# certification (a deadlock error, retried), and none may change the total.
# 0 anomalies, the final read and the table's sum the starting total.
source "$(dirname "$0")/../lib.sh"
start_galera
galera_agent_yaml 3 >"$TMP/agent.yaml"
cat >"$TMP/plan.yaml" <<YAML
name: galera-bank
target: {driver: mysql, flavor: galera, endpoints: [$GA_ENDPOINTS], user: stampede, password_env: STAMPEDE_PASSWORD,
         database: bench, op_timeout: 3s, connect_timeout: 2s}
expect:
  phases: {"*": ["anomalies == 0"]}
phases:
  - {name: bank, workload: bank, workers: 12, rate: 300, duration: 14s, params: {accounts: 50, balance: 1000, max_transfer: 50}}
faults:
  - {at: bank+4s, action: kill, node: node3}
  - {at: bank+7s, action: start, node: node3}
YAML
rc=0
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
s=$TMP/res/summary.json
if "$ROOT/deploy/local/galera.sh" status "$GA_DIR" 1 | grep -q "non-Primary"; then
  # Known Galera behaviour on a starved 2-core machine (see
  # galera_kill_test.sh): both survivors of the kill leave the primary
  # component and refuse every statement; nothing could be transferred or
  # read after it. The total is still checked in the table.
  echo "KNOWN GALERA QUIRK: the survivors of the kill left the primary component; bootstrapping node 1 to read the table"
  "$ROOT/deploy/local/galera.sh" bootstrap "$GA_DIR" 1
else
  expect_eq "$rc" 0 "run exit code"
  if ! grep -q "phase bank: bank: final read: total 50000 as expected" "$TMP/res/report.md"; then
    # A node rejoining after the kill makes the cluster refuse reads for a
    # while (1047 "WSREP has not yet prepared node for application use",
    # seen once beside another test): the final read tries every endpoint
    # for 10 s and then says it failed. The table's sum is checked below.
    failed=$(grep -o "the final read after the phase failed: .*" "$TMP/res/report.md") || fail "no final read of 50000"
    echo "KNOWN GALERA BEHAVIOUR: $failed"
  fi
fi
expect_eq "$(jq -c '[.faults[] | [.action, .ok]]' "$s")" '[["kill",true],["start",true]]' "faults"
expect_eq "$(jq '.anomalies.total' "$s")" 0 "anomalies"
transfers=$(jq '.phases[0].ops[] | select(.name == "transfer") | .ok' "$s")
[ "$transfers" -gt 500 ] || fail "only $transfers transfers"
retried=$(jq '.phases[0].ops[] | select(.name == "transfer") | .retries' "$s")
table=$(mariadb -h 127.0.0.1 -P "$GA_BASE" -u stampede -p"$STAMPEDE_PASSWORD" bench -N -e "SELECT SUM(balance) FROM stampede_bank")
expect_eq "$table" 50000 "the table's total"
pass "galera bank through a kill of node3: $transfers transfers ($retried retries), $(jq '.phases[0].ops[] | select(.name == "read") | .ok' "$s") reads, 0 anomalies, total 50000"

#!/usr/bin/env bash
# A crud insert run through all three endpoints of a real 3-node Galera
# cluster; node 3 is SIGKILLed out-of-band mid-run. The run finishes (exit 0),
# the report shows the errors and the reconnects away from node 3, and every
# insert reported ok is in the table.
source "$(dirname "$0")/../lib.sh"
start_galera
node3=127.0.0.1:$((GA_BASE + 2))
cat >"$TMP/plan.yaml" <<YAML
name: galera-kill
target: {driver: mysql, flavor: galera, endpoints: [$GA_ENDPOINTS], user: stampede,
         password_env: STAMPEDE_PASSWORD, database: bench, op_timeout: 3s, connect_timeout: 2s}
phases:
  - {name: insert, workload: crud, workers: 12, duration: 12s, rate: 600, params: {reset: true, table: gk}}
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
rows=$(galera_count gk)
[ "$ok" -gt 3000 ] || fail "only $ok inserts ok"
[ $((amb + unav)) -gt 0 ] || fail "the kill produced no errors"
[ "$rows" -ge "$ok" ] || fail "acknowledged inserts missing: $rows rows < $ok ok"
[ "$rows" -le $((ok + amb)) ] || fail "$rows rows > $ok ok + $amb ambiguous"
lost=$(jq --arg e "$node3" '.phases[0].endpoints[$e].lost // 0' "$s")
reconn=$(jq '[.phases[0].endpoints[].reconnects] | add' "$s")
[ "$lost" -gt 0 ] || fail "no lost connections recorded for $node3"
[ "$reconn" -ge "$lost" ] || fail "reconnects $reconn < lost $lost"
grep -q "| $node3 | $lost |" "$TMP/res/report.md" || fail "report has no endpoint row for $node3"
cat "$TMP/res/report.md"
pass "galera node 3 killed: $ok ok, $amb ambiguous, $unav unavailable, $rows rows; $lost connections lost on node 3, $reconn reconnects"

#!/usr/bin/env bash
# batch: N on a real server: one statement (a multi-row INSERT; Redis: one
# MSET) writes N rows, so rows = ok statements x N exactly, and every row is
# read back (check_writes) with its statement's outcome. On PostgreSQL and
# Redis a batched phase is also pipelined. `galera`: node 3 of a 3-node
# Galera cluster is killed by the plan during a batched insert phase; rows
# stay within [ok x N, (ok + ambiguous) x N] and no acknowledged row is lost.
source "$(dirname "$0")/../lib.sh"
mode=${1:?postgres|mysql|redis|galera}

rows_of() {  # TABLE
  if [ "$mode" = galera ]; then galera_count "$1"; else db_count "$mode" "$1" | tr -d ' '; fi
}

if [ "$mode" = galera ]; then
  start_galera
  cat >"$TMP/node3.yaml" <<YAML
nodes:
  node3: {process: {pidfile: $GA_DIR/node3/mysqld.pid}}
YAML
  cat >"$TMP/plan.yaml" <<YAML
name: galera-batch-kill
target: {driver: mysql, flavor: galera, endpoints: [$GA_ENDPOINTS], user: stampede,
         password_env: STAMPEDE_PASSWORD, database: bench, op_timeout: 3s, connect_timeout: 2s}
phases:
  - {name: insert, workload: crud, workers: 6, duration: 10s, rate: 80, batch: 100, check_writes: true,
     params: {reset: true, table: gb}}
faults:
  - {at: insert+3s, action: kill, node: node3}
YAML
  rc=0
  "$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/node3.yaml" --results "$TMP/res" >"$TMP/run.out" \
    2>"$TMP/run.err" || rc=$?
  expect_eq "$rc" 0 "run exit code ($(tail -n 2 "$TMP/run.err"))"
  s=$TMP/res/summary.json
  expect_eq "$(jq '.faults[0].ok' "$s")" true "node3 killed"
  read -r ok amb <<<"$(jq -r '.phases[0].ops[0] | "\(.ok) \(.errors.ambiguous)"' "$s")"
  expect_eq "$(($(jq '.phases[0].done' "$s") + $(jq '.phases[0].missed' "$s")))" 800 "done + missed (80/s x 10 s)"
  quirk=0
  if "$ROOT/deploy/local/galera.sh" status "$GA_DIR" 1 | grep -q "non-Primary"; then
    # The Galera quirk of integration.galera_kill: on a starved machine both
    # survivors' membership round can time out, leaving no primary component.
    echo "KNOWN GALERA QUIRK: both survivors of the kill left the primary component; bootstrapping node 1 to count rows"
    "$ROOT/deploy/local/galera.sh" bootstrap "$GA_DIR" 1
    quirk=1
  fi
  rows=$(rows_of gb)
  [ "$quirk" = 1 ] || [ "$ok" -gt 300 ] || fail "only $ok batched statements ok"
  [ "$rows" -ge $((ok * 100)) ] || fail "acknowledged rows missing: $rows rows < $ok ok x 100"
  [ "$rows" -le $(((ok + amb) * 100)) ] || fail "$rows rows > ($ok ok + $amb ambiguous) x 100"
  expect_eq "$((rows % 100))" 0 "rows modulo 100 (a statement's rows commit together)"
  read -r acked lost committed unchecked <<<"$(jq -r '.phases[0].writes | "\(.acked) \(.lost) \(.ambiguous_committed) \(.unchecked)"' "$s")"
  expect_eq "$acked" $((ok * 100)) "rows the read-back knew as acknowledged"
  expect_eq "$lost" 0 "acknowledged rows the read-back found lost"
  if [ "$quirk" = 0 ]; then
    expect_eq "$unchecked" 0 "rows the read-back could not check"
    expect_eq "$rows" $((acked + committed)) "rows = acknowledged + ambiguous rows that committed"
  fi
  pass "galera node 3 killed during batch 100 inserts: $ok statements ok, $amb ambiguous, $rows rows in [$((ok * 100)), $(((ok + amb) * 100))]"
  exit 0
fi

start_db "$mode"
pipelined=""
[ "$mode" = mysql ] || pipelined="
  - {name: pipelined, workload: crud, workers: 4, ops: 2000, batch: 10, pipeline: 8, check_writes: true,
     params: {table: bt2, reset: true}}"
cat >"$TMP/plan.yaml" <<YAML
name: batch-$mode
$(target_yaml "$mode")
phases:
  - {name: single, workload: crud, workers: 4, ops: 4000, params: {table: bt1, reset: true}}
  - {name: batched, workload: crud, workers: 4, ops: 400, batch: 100, check_writes: true,
     params: {table: bt1}}$pipelined
expect:
  phases: {batched: ["lost_writes == 0", "errors == 0"]}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" ||
  fail "run exited $? ($(tail -n 2 "$TMP/run.err"))"
s=$TMP/res/summary.json
expect_eq "$(jq '.phases[1].ops[0].ok' "$s")" 400 "batched statements ok"
expect_eq "$(jq '.phases[1].rows.rows_ok' "$s")" 40000 "rows_ok in summary.json"
expect_eq "$(rows_of bt1)" 44000 "rows: 4000 single + 400 statements x 100"
expect_eq "$(jq -c '.phases[1].writes | [.acked, .lost, .unchecked]' "$s")" "[40000,0,0]" \
  "read-back of the batched rows: acknowledged, lost, unchecked"
grep -q "^## Phase batched (.*, batch 100" "$TMP/res/report.md" || fail "report heading does not say batch 100"
output_has "Batched inserts, 100 rows per statement: 400 statements ok = 40000 rows" cat "$TMP/res/report.md" ||
  fail "report does not count rows: $(grep -i batched "$TMP/res/report.md")"
single=$(jq '.phases[0].ops[0].ok / .phases[0].duration_s' "$s")
batched=$(jq '.phases[1].rows.rows_per_s' "$s")
echo "rows/s: one per statement $single, 100 per statement $batched"
if [ -n "$pipelined" ]; then
  expect_eq "$(jq '.phases[2].ops[0].ok' "$s")" 2000 "pipelined batched statements ok"
  expect_eq "$(rows_of bt2)" 20000 "rows: 2000 statements x 10, pipelined 8 deep"
  expect_eq "$(jq -c '.phases[2].writes | [.acked, .lost]' "$s")" "[20000,0]" "pipelined read-back"
fi
pass "$mode: batch 100 wrote exactly 100 rows per statement (40000 rows, all read back)${pipelined:+; batch 10 x pipeline 8: 20000 rows}"

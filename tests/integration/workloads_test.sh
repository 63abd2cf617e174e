#!/usr/bin/env bash
# The built-in workloads on a real database, two local agents each:
# rebalance2021's five steps with exact counts, and the row counts the
# database ends with.
source "$(dirname "$0")/../lib.sh"
driver=${1:?postgres|mysql|redis}
start_db "$driver"
results=$TMP/results

run_plan() {  # NAME: runs $TMP/NAME.yaml with 2 local agents, sets $dir and $s
  "$STAMPEDE" validate "$TMP/$1.yaml" >/dev/null || fail "$1: validate"
  "$STAMPEDE" run "$TMP/$1.yaml" --local-agents 2 --results "$results/$1" \
    >"$TMP/$1.out" 2>"$TMP/$1.err" || { cat "$TMP/$1.err" >&2; fail "$1: run exited $?"; }
  dir=$results/$1
  s=$dir/summary.json
  expect_eq "$(jq .ok "$s")" true "$1: run ok"
}

# --- rebalance2021: 50 workers x 20 records --------------------------------
cat >"$TMP/rebalance.yaml" <<YAML
name: rebalance-$driver
seed: 7
$(target_yaml "$driver")
agents: {min: 2}
phases:
  - name: insert
    workload: rebalance2021
    workers: 50
    params: {records_per_worker: 20, table: it_bar1}
YAML
run_plan rebalance
step() { jq -r --arg s "$1" --arg f "$2" '[.groups[0].steps[] | select(.step==$s)][0][$f]' "$s"; }
for st in InsertOne UpdateOne SelectOne; do
  expect_eq "$(step $st ok)" 1000 "rebalance $st ok"
  expect_eq "$(step $st errors)" 0 "rebalance $st errors"
done
expect_eq "$(jq '[.groups[0].steps[] | select(.step=="Count")] | length' "$s")" 2 "two Count steps"
expect_eq "$(jq '[.notes[] | select(test("Count = 1000 \\(expected 1000\\)"))] | length' "$s")" 2 \
  "both Count steps returned 1000"
expect_eq "$(db_count "$driver" it_bar1 | tr -d ' ')" 1000 "rows in it_bar1"
grep -q "| Total |" "$dir/report.md" || fail "report.md has no Total row"
expect_eq "$(jq -c '[.phases[0].agent_ops[]]' "$s")" "[500,500]" "InsertOne operations per agent"
total=$(jq .groups[0].total_s "$s")
pass "rebalance2021 on $driver: 3 x 1000 ok, Count = 1000 twice, total ${total}s"

#!/usr/bin/env bash
# tpcc on a real server: the loader fills the nine tables for 2 warehouses
# with the specification's cardinalities, conditions 1 to 5, 8 and 9 hold after it,
# the five transactions run 15 s in the specification's mix (each share
# within a point of it), and the conditions hold after them (exit 0).
# Then the data is broken as a lost update would break it, once per
# condition, and a check-only run finds each: exit 4, the district and
# the values named.
source "$(dirname "$0")/../lib.sh"
driver=${1:?postgres|mysql}
start_db "$driver"
plan() {  # LOAD RUN
  cat <<YAML
name: tpcc-$driver
$(target_yaml "$driver")
expect:
  phases: {tpcc: ["anomalies == 0"]$([ "$2" = true ] && echo ', tpcc/run: ["tpmc > 1000"]')}
phases:
  - {name: tpcc, workload: tpcc, workers: 4, $([ "$2" = true ] && echo "duration: 15s, ")params: {warehouses: 2, load: $1, run: $2}}
YAML
}
plan true true >"$TMP/load.yaml"
plan false false >"$TMP/check.yaml"
rc=0
"$STAMPEDE" run "$TMP/load.yaml" --results "$TMP/load" >"$TMP/load.out" 2>"$TMP/load.err" || rc=$?
expect_eq "$rc" 0 "load, check, run, check: exit code ($(tail -3 "$TMP/load.err"))"
s=$TMP/load/summary.json
expect_eq "$(jq -c '[.phases[].step]' "$s")" '["load","check","run","check"]' "steps"
expect_eq "$(jq '[.phases[] | .ops[] | .errors | add] | add' "$s")" 0 "errors"
run=$(jq -c '.phases[2].ops | map({(.name): .ok}) | add' "$s")
total=$(jq '[.phases[2].ops[].ok] | add' "$s")
[ "$total" -gt 2000 ] || fail "only $total transactions in 15 s: $run"
for t in new_order:45 payment:43 order_status:4 delivery:4 stock_level:4; do
  share=$(jq --arg t "${t%%:*}" '.phases[2].ops[] | select(.name == $t) | .ok * 100' "$s")
  awk -v s="$share" -v n="$total" -v want="${t##*:}" 'BEGIN { d = s / n - want; exit !(d < 1 && d > -1) }' \
    || fail "${t%%:*}: $(awk -v s="$share" -v n="$total" 'BEGIN { printf "%.2f", s / n }')% of $total, expected ${t##*:}% +- 1"
done
# tpmC: New-Orders done a minute, a number of its own (and an expectation).
tpmc=$(jq '.phases[2].tpmc | round' "$s")
expect_eq "$tpmc" "$(jq '.phases[2] as $p | $p.ops[] | select(.name == "new_order") | .ok * 60 / $p.duration_s | round' "$s")" "tpmc"
expect_eq "$(jq '[.phases[] | has("tpmc")]' -c "$s")" '[false,false,true,false]' "tpmc on the run step alone"
grep -q "^tpmC $tpmc (New-Orders a minute" "$TMP/load/report.md" || fail "report.md: no tpmC line"
grep -q "tpmc > 1000 | phase tpcc/run | $tpmc | pass" "$TMP/load/report.md" ||
  fail "report.md: $(sed -n '/## Verdict/,/^$/p' "$TMP/load/report.md")"
# Each transaction's p90, the percentile the specification reports.
grep -q "^| op | count | total time | ops/s | mean | p50 | p90 | p99 |" "$TMP/load/report.md" || fail "report.md: no p90 column"
# 1% of New-Orders name an unused item and roll back (counted ok); the
# other transactions never do.
new_orders=$(jq '.phases[2].ops[] | select(.name == "new_order") | .ok' "$s")
rollbacks=$(jq '.phases[2].ops[] | select(.name == "new_order") | .rollbacks' "$s")
awk -v r="$rollbacks" -v n="$new_orders" 'BEGIN { exit !(r > 0 && r / n > 0.003 && r / n < 0.02) }' \
  || fail "$rollbacks New-Order rollbacks of $new_orders, expected about 1%"
expect_eq "$(jq '[.phases[2].ops[] | select(.name != "new_order") | .rollbacks] | add' "$s")" 0 "other rollbacks"
grep -Eq "^\| new_order \| .* \| $rollbacks \|$" "$TMP/load/report.md" || fail "report.md has no rollbacks for new_order"
# The tables the transactions do not add rows to, and the others at least
# as loaded (New-Order adds orders, Payment history, Delivery removes new
# orders).
for t in "item 100000" "warehouse 2" "district 20" "customer 60000" "stock 200000"; do
  set -- $t
  expect_eq "$(db_count "$driver" "$1")" "$2" "rows of $1"
done
for t in "history 60000" "orders 60000"; do
  set -- $t
  [ "$(db_count "$driver" "$1")" -gt "$2" ] || fail "rows of $1: $(db_count "$driver" "$1"), loaded $2"
done
lines=$(db_count "$driver" order_line)
[ "$lines" -gt 500000 ] || fail "order_line: $lines rows (5 to 15 per order)"
expect_eq "$(db_sql "$driver" "SELECT count(*) FROM item WHERE i_data LIKE '%ORIGINAL%'" | awk '{print ($1 > 9000 && $1 < 11000)}')" 1 "items with ORIGINAL (10%)"
expect_eq "$(db_sql "$driver" "SELECT count(DISTINCT c_last) FROM customer WHERE c_id <= 1000")" 1000 "the first 1,000 last names"
expect_eq "$(db_sql "$driver" "SELECT c_last FROM customer WHERE c_id = 372 LIMIT 1")" "PRICALLYOUGHT" "customer 372's name (number 371: syllables 3, 7, 1)"
load_s=$(jq '.phases[0].duration_s' "$s")
# The load's rows: every table's, as loaded (orders, history and order
# lines counted before the run added to them).
loaded=$(grep -o "TPC-C load: [0-9]* rows in [0-9.]* s ([0-9]* rows/s)" "$TMP/load/report.md") || fail "report.md: no load rows"
rows=$(echo "$loaded" | awk '{print $3}')
[ "$rows" -gt $((100000 + 2 * 199011 + 2 * 30000 * 5)) ] && [ "$rows" -lt $((100000 + 2 * 199011 + 2 * 30000 * 15)) ] ||
  fail "$loaded: not W = 2's rows"
expect_eq "$(grep -c "TPC-C conditions 1 to 5, 8 and 9 hold in every district" "$TMP/load/report.md")" 2 \
  "report: the conditions hold after the load and after the run"

# With keying and think times (a hundredth of the specification's, 10
# terminals a warehouse), tpmC nears its most, 12.86 x 2 / 0.01 = 2572;
# the efficiency is its share. PostgreSQL only: the pacing is the
# runner's, not the dialect's.
eff=n/a
if [ "$driver" = postgres ]; then
  cat >"$TMP/wait.yaml" <<YAML
name: tpcc-wait
$(target_yaml "$driver")
expect:
  phases: {tpcc/run: ["tpmc_efficiency > 70%"]}
phases:
  - {name: tpcc, workload: tpcc, workers: 20, duration: 10s, params: {warehouses: 2, load: false, wait: 0.01}}
YAML
  rc=0
  "$STAMPEDE" run "$TMP/wait.yaml" --results "$TMP/wait" >"$TMP/wait.out" 2>"$TMP/wait.err" || rc=$?
  expect_eq "$rc" 0 "wait: exit code ($(tail -3 "$TMP/wait.err"))"
  eff=$(jq '.phases[1].tpmc_efficiency * 100 | round' "$TMP/wait/summary.json")
  [ "$eff" -le 105 ] || fail "efficiency $eff% with waits: above what the terminals can do"
  grep -q "^tpmC [0-9]*, efficiency [0-9.]*% (New-Orders a minute, with keying and think times scaled by 0.01" \
    "$TMP/wait/report.md" || fail "report.md: $(grep '^tpmC' "$TMP/wait/report.md")"
  eff="$eff%"
fi

# Each condition broken once.
db_sql "$driver" "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 2" >/dev/null
db_sql "$driver" "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 4" >/dev/null
# A new order between the oldest and the newest (deliveries moved the oldest).
range="FROM new_order WHERE no_w_id = 2 AND no_d_id = 7"
mid=$(db_sql "$driver" "SELECT FLOOR((MIN(no_o_id) + MAX(no_o_id)) / 2) $range")
span=$(db_sql "$driver" "SELECT MAX(no_o_id) - MIN(no_o_id) + 1 $range")
db_sql "$driver" "DELETE $range AND no_o_id = $mid" >/dev/null
db_sql "$driver" "DELETE FROM order_line WHERE ol_w_id = 2 AND ol_d_id = 3 AND ol_o_id = 10 AND ol_number = 1" >/dev/null
# A payment's history row changed: district 1/5's and warehouse 1's YTD no
# longer add up to it (conditions 9 and 8).
db_sql "$driver" "UPDATE history SET h_amount = h_amount + 1 WHERE h_w_id = 1 AND h_d_id = 5 AND h_c_id = 17" >/dev/null
rc=0
"$STAMPEDE" run "$TMP/check.yaml" --results "$TMP/check" >"$TMP/check.out" 2>"$TMP/check.err" || rc=$?
expect_eq "$rc" 4 "check after breaking: exit code (the verdict)"
s=$TMP/check/summary.json
expect_eq "$(jq -c '.phases[0].anomalies.by_kind' "$s")" \
  '{"tpcc_history":2,"tpcc_new_orders":1,"tpcc_order_ids":2,"tpcc_order_lines":1,"tpcc_undelivered":1,"tpcc_ytd":1}' \
  "anomalies by kind (district 1/4 fails both forms of condition 2; the new order deleted, 3 and 5; w_ytd, 1 and 8)"
for line in "condition 1 (W_YTD = sum(D_YTD)) fails in warehouse 2: " \
  "condition 2 (D_NEXT_O_ID - 1 = max(O_ID)) fails in warehouse 1 district 4: " \
  "condition 3 (rows of NEW_ORDER = max(NO_O_ID) - min(NO_O_ID) + 1) fails in warehouse 2 district 7: $span and $((span - 1)) " \
  "condition 4 (sum(O_OL_CNT) = rows of ORDER_LINE) fails in warehouse 2 district 3" \
  "condition 5 (orders without O_CARRIER_ID = rows of NEW_ORDER) fails in warehouse 2 district 7: " \
  "condition 8 (W_YTD = sum(H_AMOUNT)) fails in warehouse 1: " \
  "condition 9 (D_YTD = sum(H_AMOUNT)) fails in warehouse 1 district 5: "; do
  grep -qF "$line" "$TMP/check/report.md" || fail "report.md lacks: $line"
done
pass "tpcc on $driver: 2 warehouses loaded in $load_s s ($loaded; $lines order lines); 15 s of $total transactions ($run), about $tpmc New-Orders a minute unwaited, $rollbacks rolled back; efficiency with waits $eff; conditions 1-5, 8 and 9 hold after both; each broken, each found (exit 4)"

#!/usr/bin/env bash
# Open loop: rate 2000 for 5 s completes 10,000 +- 3% operations; and a
# database stopped (SIGSTOP) for 1 s during a 500 ops/s run shows in the
# latency (p99 >= 500 ms): latency counts from each op's intended start.
# Runs the embedded mode (in-process coordinator and agents).
source "$(dirname "$0")/../lib.sh"
start_redis

cat >"$TMP/rate.yaml" <<YAML
name: rate
$(target_yaml redis)
phases:
  - {name: steady, workload: kv, workers: 8, duration: 5s, rate: 2000, params: {keys: 1000}}
YAML
"$STAMPEDE" run "$TMP/rate.yaml" --local-agents 2 --results "$TMP/rate" >"$TMP/rate.out" 2>"$TMP/rate.err" \
  || fail "rate run exited $?"
total=$(jq '[.phases[0].ops[].count] | add' "$TMP/rate/summary.json")
[ "$total" -ge 9700 ] && [ "$total" -le 10300 ] || fail "rate 2000 x 5 s gave $total ops (want 10000 +- 3%)"
pass "open loop rate 2000 for 5 s: $total ops"

cat >"$TMP/stall.yaml" <<YAML
name: stall
$(target_yaml redis)
phases:
  - {name: steady, workload: kv, workers: 4, duration: 6s, rate: 500, params: {keys: 1000}}
YAML
"$STAMPEDE" run "$TMP/stall.yaml" --results "$TMP/stall" >"$TMP/stall.out" 2>"$TMP/stall.err" &
run_pid=$!
wait_for_line "$TMP/stall.out" "steady" 100
pid=$(db_pid redis)
kill -STOP "$pid"
sleep 1
kill -CONT "$pid"
wait "$run_pid" || fail "stall run exited $?"
p99=$(jq '[.phases[0].ops[].latency_us.p99] | max' "$TMP/stall/summary.json")
count=$(jq '[.phases[0].ops[].count] | add' "$TMP/stall/summary.json")
awk -v p="$p99" 'BEGIN { exit !(p >= 500000) }' || fail "p99 $p99 us after a 1 s stall (want >= 500 ms)"
[ "$count" -ge 2900 ] || fail "only $count ops in the stalled run (the schedule should catch up)"
pass "1 s SIGSTOP at 500 ops/s: p99 = $p99 us over $count ops"

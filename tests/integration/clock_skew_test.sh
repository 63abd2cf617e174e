#!/usr/bin/env bash
# Agents whose clocks differ, as real hosts' always do (hosts in network
# namespaces share one kernel clock, so the agent's is made to differ:
# --test-clock-skew / --test-clock-drift-ppm, common/clock.h). Two load
# agents split an open-loop kv phase on Redis; a third owns the server and
# pauses it for 1.5 s. Three runs: a2's clock true, 3 s ahead, and drifting
# 1 ms a second. Each time both agents' operations land in every second of
# the phase, and the unavailability measured from when operations ended
# matches the pause within 20 ms: each agent's times were mapped to the
# coordinator's clock.
source "$(dirname "$0")/../lib.sh"
start_db redis
start_coordinator
cat >"$TMP/owner.yaml" <<YAML
nodes:
  redis1:
    process: {pidfile: $RD_DIR/redis.pid}
YAML
start_agent owner --config "$TMP/owner.yaml"
start_agent a1
cat >"$TMP/plan.yaml" <<YAML
name: clock-skew
target: {driver: redis, endpoints: [$DB_ENDPOINT], password_env: STAMPEDE_PASSWORD, op_timeout: 5s}
agents: {min: 3}
recovery: {baseline: 2s, hold: 1s}
phases:
  - {name: p, workload: kv, workers: 16, rate: 1000, duration: 8s, params: {keys: 10000}}
faults:
  - {at: p+3s, action: pause, node: redis1}
  - {at: p+4500ms, action: resume, node: redis1}
YAML
results=""
for clock in "" "--test-clock-skew 3s" "--test-clock-drift-ppm 1000"; do
  # shellcheck disable=SC2086
  start_agent a2 $clock
  "$STAMPEDE" run "$TMP/plan.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/run.out" 2>"$TMP/run.err" ||
    fail "run (a2 ${clock:-true clock}) exited $?"
  dir=$(summary_of "$COORD_RESULTS")
  s=$dir/summary.json
  # Both agents' operations in every whole second of the phase with load in
  # it (100 or more of the 1,000 due): not the sliver at its end, nor the
  # second the pause began in. There, a few operations end in the last
  # milliseconds before it, and which agent's they are is a matter of the
  # drifting clock's few milliseconds (once: a1 0, a2 7). A skewed agent
  # whose operations landed in the wrong seconds would be missing from
  # seconds with hundreds.
  whole='select(.type == "second" and .phase == "p" and .interval_s >= 0.9 and ([.agent_ops[]] | add // 0) >= 100)'
  seconds=$(jq -s "[.[] | $whole] | length" "$dir/journal.jsonl")
  both=$(jq -s "[.[] | $whole | select((.agent_ops.a1 // 0) > 0 and (.agent_ops.a2 // 0) > 0)] | length" \
    "$dir/journal.jsonl")
  [ "$both" -eq "$seconds" ] && [ "$seconds" -ge 6 ] ||
    fail "a2 ${clock:-true clock}: both agents in $both of $seconds seconds with operations"
  paused=$(jq '.faults[1].t_s - .faults[0].t_s' "$s")
  unavail=$(jq '.faults[0].unavailability_s' "$s")
  expect_eq "$(jq '.faults[0].sub_second' "$s")" true "sub-second numbers (a2 ${clock:-true clock})"
  awk -v u="$unavail" -v p="$paused" 'BEGIN { d = u - p; if (d < 0) d = -d; exit !(d <= 0.02) }' ||
    fail "a2 ${clock:-true clock}: unavailability $unavail s for a pause of $paused s"
  results+="; a2 ${clock:-with a true clock}: pause $(printf %.3f "$paused") s, unavailability $(printf %.3f "$unavail") s"
  stop_daemon "$AGENT_PID_a2" "agent a2"
done
pass "clock skew and drift${results}"

#!/usr/bin/env bash
# A rolling restart of a 3-node Galera cluster under load, sized as
# roachtest sizes its perturbations: first a closed-loop run measures what
# the cluster carries, then an open-loop run at two thirds of it restarts
# node1, node2 and node3 in turn (each waits until the cluster is healthy
# again: its health probe, 3 polls in a row). Each restart gets its own
# row, the roll one as a whole (duration, lowest throughput against the
# baseline); the plan's expectations on the floor are judged as measured
# and set the exit code (a 99% floor is broken: exit 4).
# The load phase lasts 80 s: a restart takes 14-17 s here, but one took 32 s
# in CI beside another test (rsync's state-transfer script, CPU-starved), and
# a step not asked for before the phase ends is not sent (counted, not run).
source "$(dirname "$0")/../lib.sh"
start_galera
galera_agent_yaml 1 2 3 >"$TMP/agent.yaml"
target="target: {driver: mysql, flavor: galera, endpoints: [$GA_ENDPOINTS], user: stampede,
         password_env: STAMPEDE_PASSWORD, database: bench, op_timeout: 3s, health: {kind: galera, nodes: 3}}"
cat >"$TMP/capacity.yaml" <<YAML
name: galera-capacity
$target
phases:
  - {name: measure, workload: crud, workers: 16, duration: 6s, params: {insert: 1, select: 3, table: roll, reset: true}}
YAML
"$STAMPEDE" run "$TMP/capacity.yaml" --results "$TMP/capacity" >"$TMP/capacity.out" 2>&1 || fail "capacity run exited $?"
capacity=$(jq '([.phases[0].ops[].ok] | add) / .phases[0].duration_s' "$TMP/capacity/summary.json")
rate=$(awk -v c="$capacity" 'BEGIN { printf "%d", c * 2 / 3 }')
[ "$rate" -ge 100 ] || fail "the cluster carried only $capacity ops/s"
cat >"$TMP/roll.yaml" <<YAML
name: galera-rolling-restart
$target
recovery: {baseline: 3s, hold: 2s}
phases:
  - {name: load, workload: crud, workers: 16, rate: $rate, duration: 80s, params: {insert: 1, select: 3, table: roll}}
faults:
  - {at: load+4s, action: rolling-restart, nodes: [node1, node2, node3], max_wait: 30s, throughput_floor: 0.01}
expect:
  faults: {rolling-restart: ["lowest_throughput >= 1%", "lowest_throughput >= 99%"]}
YAML
rc=0
"$STAMPEDE" run "$TMP/roll.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" >"$TMP/run.out" \
  2>"$TMP/run.err" || rc=$?
s=$TMP/res/summary.json
expect_eq "$(jq -c '[.faults[] | [.action, .node, .ok]]' "$s")" \
  '[["restart","node1",true],["restart","node2",true],["restart","node3",true]]' "the roll's steps"
expect_eq "$(jq '.rolls[0].steps_done' "$s")" 3 "steps done"
# Each step started once the one before had taken effect and the cluster
# was healthy again (3 polls, a second apart).
for k in 1 2; do
  prev_done=$(jq ".faults[$((k - 1))].done_t_s" "$s")
  asked=$(jq ".faults[$k].requested_t_s" "$s")
  awk -v d="$prev_done" -v a="$asked" 'BEGIN { exit !(a >= d + 2) }' ||
    fail "step $k asked for at $asked s, step $((k - 1)) done at $prev_done s: it did not wait for healthy polls"
done
duration=$(jq '.rolls[0].duration_s' "$s")
lowest=$(jq '.rolls[0].lowest_throughput' "$s")
[ "$duration" != null ] && [ "$lowest" != null ] || fail "roll: $(jq -c '.rolls[0]' "$s")"
grep -q "^## Rolling restarts" "$TMP/res/report.md" || fail "report.md has no rolling restarts section"
# The verdict is what was measured: no roll keeps 99% of its baseline in
# every second, so the run exits 4; the 1% floor holds unless a second had
# no successful operation at all.
expect_eq "$rc" 4 "exit code (a 99% floor)"
grep -q "lowest_throughput >= 99% .*FAIL" "$TMP/res/report.md" || fail "verdict: $(verdict_of "$TMP/res/report.md")"
if awk -v l="$lowest" 'BEGIN { exit !(l >= 0.01) }'; then
  grep -q "lowest_throughput >= 1% .*pass" "$TMP/res/report.md" || fail "verdict: $(verdict_of "$TMP/res/report.md")"
  expect_eq "$(jq '.rolls[0].floor_held' "$s")" true "the 1% floor held (lowest $lowest)"
else
  expect_eq "$(jq '.rolls[0].floor_held' "$s")" false "the 1% floor held (lowest $lowest)"
fi
sed -n '/## Rolling restarts/,+5p' "$TMP/res/report.md"
pass "rolling restart of 3 Galera nodes at $rate ops/s (2/3 of $(printf %.0f "$capacity")): $duration s, lowest throughput $lowest of baseline; the verdict on a 99% floor fails the run (exit 4)"

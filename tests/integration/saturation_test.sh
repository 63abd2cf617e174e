#!/usr/bin/env bash
# Client saturation: an agent held to a quarter of one core (taskset -c 0
# and a CPU cgroup's quota) drives Redis open loop at 50,000 ops/s, far
# more than it can carry. The report flags the seconds it was the
# bottleneck (its CPU, its event loops' timer lag), the live line says so,
# Prometheus has it, and `client_saturated_s == 0` fails the run with exit
# code 4. The same agent at 200 ops/s stays far below its budget and, on
# a quiet host, reports no saturated second and passes.
source "$(dirname "$0")/../lib.sh"
# A CPU cgroup: v1's cpu controller (this machine), or v2's cpu.max.
cg=""
if [ -w /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_period_us ]; then
  cg=/sys/fs/cgroup/cpu/stampede-test-$$
  mkdir "$cg" && echo 25000 >"$cg/cpu.cfs_quota_us" && echo 100000 >"$cg/cpu.cfs_period_us"
elif [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
  cg=/sys/fs/cgroup/stampede-test-$$
  mkdir "$cg" && echo "25000 100000" >"$cg/cpu.max"
else
  echo "SKIP: no writable CPU cgroup here (needs root and a cgroup v1 cpu or v2 cpu controller)" >&2
  exit 77
fi
echo "$cg" >>"$TMP/.cgroups"
on_exit "for _ in \$(seq 1 50); do rmdir '$cg' 2>/dev/null && break; sleep 0.1; done"
start_db redis
start_coordinator
# The agent joins the cgroup, then runs pinned to CPU 0.
sh -c 'echo $$ >"$1"; shift; exec "$@"' _ "$cg/$( [ -f "$cg/tasks" ] && echo tasks || echo cgroup.procs)" \
  taskset -c 0 "$STAMPEDE" agent --coordinator "127.0.0.1:$COORD_PORT" --name held --threads 1 \
  >"$TMP/agent-held.out" 2>"$TMP/agent-held.log" &
agent=$!
on_exit "kill -9 $agent"
wait_for_line "$TMP/agent-held.log" "connected to coordinator"

plan() {  # RATE
  cat <<YAML
name: saturation-$1
$(target_yaml redis)
agents: {min: 1}
phases:
  - {name: kv, workload: kv, workers: 32, rate: $1, duration: 6s, params: {keys: 10000}}
expect:
  phases: {"*": ["client_saturated_s == 0"]}
YAML
}
run_at() {  # RATE: sets rc, dir, s
  plan "$1" >"$TMP/plan-$1.yaml"
  rc=0
  "$STAMPEDE" run "$TMP/plan-$1.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/run-$1.out" \
    2>"$TMP/run-$1.err" || rc=$?
  dir=$(summary_of "$COORD_RESULTS")
  s=$dir/summary.json
}

run_at 50000
expect_eq "$rc" 4 "exit code of the overdriven run (its expectation fails)"
sat=$(jq '.phases[0].client_saturated_s' "$s")
measured=$(jq '.phases[0].client_load_measured_s' "$s")
awk -v s="$sat" 'BEGIN { exit !(s >= 3) }' || fail "only $sat of $measured s flagged as saturated"
grep -q "Client saturated in .* (held " "$dir/report.md" || fail "report.md: no saturation line"
grep -q "CLIENT SATURATED: held" "$TMP/run-50000.out" || fail "the live line never said so"
grep -q "client_saturated_s == 0 .*FAIL" "$dir/report.md" ||
  fail "verdict: $(verdict_of "$dir/report.md")"
cpu=$(jq -s '[.[] | select(.type == "second") | .agent_load.held.cpu // empty] | max' "$dir/journal.jsonl")
lag=$(jq -s '[.[] | select(.type == "second") | .agent_load.held.lag_p99_ms // empty] | max' "$dir/journal.jsonl")
output_has 'stampede_client_saturated{agent="held"}' curl -s "${COORD_HTTP}metrics" ||
  fail "no stampede_client_saturated in /metrics"

run_at 200
awk -v m="$(jq '.phases[0].client_load_measured_s' "$s")" 'BEGIN { exit !(m >= 5) }' || fail "load not measured"
# Its own load never comes near its budget. A second may still be flagged
# when the host stalls the agent (another process on CPU 0, a hypervisor's
# steal: CI saw one second with timers 10+ ms late at the p99): its
# latencies that second include the stall, so the flag is right. Such a
# second has high lag at low CPU; it is printed, and the run's exit 4 is
# then the expectation doing its job. Late timers in most seconds would be
# a stall of the agent's own (a blocking call on a loop): that fails.
load=$(jq -c 'select(.type == "second") | .agent_load.held // empty' "$dir/journal.jsonl" | tr "\n" " ")
jq -se 'all(.cpu < 0.5)' <<<"$load" >/dev/null || fail "the agent used half its budget at 200 ops/s: $load"
host=$(jq -se '[.[] | select(.lag_p99_ms > 10)] | length' <<<"$load")
if [ "$host" -eq 0 ]; then
  expect_eq "$rc" 0 "exit code of the run the agent can carry"
  expect_eq "$(jq '.phases[0].client_saturated_s' "$s")" 0 "saturated seconds at 200 ops/s"
  grep -q "Client saturated" "$dir/report.md" && fail "report.md flags saturation at 200 ops/s"
else
  echo "NOTE: the host stalled the agent in $host s at 200 ops/s (timers late at low CPU: $load); those seconds are flagged, rightly" >&2
  [ "$host" -le 3 ] || fail "timers late in $host of 6 s at low CPU: a stall of its own, or a host too noisy to tell"
  expect_eq "$rc" 4 "exit code with a host-stalled second"
fi
pass "$(awk -v s="$sat" -v m="$measured" -v c="$cpu" -v l="$lag" 'BEGIN { printf "a quarter-core agent at 50,000 ops/s: saturated in %.1f of %.1f s (CPU up to %.0f%% of its budget, loop lag p99 up to %.1f ms), exit 4", s, m, c * 100, l }'); at 200 ops/s: CPU under half its budget, $host s stalled by the host, exit $rc"

#!/usr/bin/env bash
# Fault timing from the plan: PHASE+DURATION lands within a tick of its time,
# PHASE@PERCENT once that share of the phase's operations is done, repeat /
# every cycles; `command` actions run their argv on the owning agent.
source "$(dirname "$0")/../lib.sh"
start_redis
cat >"$TMP/agent.yaml" <<YAML
nodes:
  fake: {command: {pause: [touch, $TMP/paused], resume: [rm, -f, $TMP/paused]}}
YAML
cat >"$TMP/plan.yaml" <<YAML
name: fault-timing
$(target_yaml redis)
phases:
  - {name: load, workload: kv, workers: 4, ops: 4000, rate: 1000, params: {keys: 100}}
  - {name: cycle, workload: kv, workers: 2, duration: 7s, rate: 200, params: {keys: 100}}
faults:
  - {at: load@50%, action: pause, node: fake}
  - {at: cycle+1s, action: resume, node: fake, repeat: 3, every: 2s}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" \
  || fail "run exited $?"
s=$TMP/res/summary.json
expect_eq "$(jq '.faults | length' "$s")" 4 "faults run"
expect_eq "$(jq '[.faults[].ok] | all' "$s")" true "every fault took effect"
[ -e "$TMP/paused" ] && fail "the resume command did not run"
j=$TMP/res/journal.jsonl
load_start=$(jq -s '.[] | select(.type=="phase_start" and .phase=="load") | .t' "$j")
cycle_start=$(jq -s '.[] | select(.type=="phase_start" and .phase=="cycle") | .t' "$j")
t0=$(jq -s '.[] | select(.type=="fault" and .index==0) | .requested_t' "$j")
awk -v t="$t0" -v s="$load_start" 'BEGIN { d = t - s; exit !(d >= 1.5 && d <= 4) }' \
  || fail "load@50% fault at $t0 s, phase started at $load_start s (expected about 2 s in)"
for k in 1 2 3; do
  tk=$(jq -s ".[] | select(.type==\"fault\" and .index==$k) | .requested_t" "$j")
  want=$((1 + 2 * (k - 1)))
  awk -v t="$tk" -v s="$cycle_start" -v w="$want" 'BEGIN { d = t - s - w; exit !(d >= 0 && d < 0.5) }' \
    || fail "fault $k at $tk s, expected cycle+${want}s (cycle started at $cycle_start s)"
done
echo "load@50% fired $(awk -v t="$t0" -v s="$load_start" 'BEGIN { printf "%.2f", t - s }') s into the phase; cycle+1s, +3s, +5s on time"

# A fault action still running when the run's last phase ends (a start that
# waits for its node to sync): the run waits for it (bounded by the agents'
# fault_timeout) and reports how it went, instead of a result-less fault.
cat >"$TMP/slow.yaml" <<YAML
nodes:
  slow: {command: {kill: ["true"], start: [sh, -c, "sleep 4 && touch $TMP/started"]}}
YAML
cat >"$TMP/slow-plan.yaml" <<YAML
name: slow-start
$(target_yaml redis)
phases:
  - {name: p, workload: kv, workers: 2, duration: 2s, rate: 100, params: {keys: 100}}
faults:
  - {at: p+0.5s, action: kill, node: slow}
  - {at: p+1.5s, action: start, node: slow}
YAML
"$STAMPEDE" run "$TMP/slow-plan.yaml" --agent-config "$TMP/slow.yaml" --results "$TMP/slow-res" >"$TMP/slow.out" \
  2>"$TMP/slow.err" || fail "slow-start run exited $?"
[ -e "$TMP/started" ] || fail "the start command did not finish"
expect_eq "$(jq '.faults[1].ok' "$TMP/slow-res/summary.json")" true "the slow start's result"
grep -q "waiting for fault 1 (start slow, agent local-1) to finish" "$TMP/slow.err" \
  || fail "the run does not say what it waits for: $(grep -i waiting "$TMP/slow.err")"
pass "a start still running at the run's end: waited for and reported ok"

# Expectations: met ones exit 0; one deliberately unmet exits 4 and names
# what it expected and what was measured, in report.md, summary.json and
# on stderr.
verdict_plan() {  # P50
  cat <<YAML
name: verdict
$(target_yaml redis)
phases:
  - {name: p, workload: kv, workers: 2, duration: 2s, rate: 200, params: {keys: 100}}
faults:
  - {at: p+0.5s, action: pause, node: fake}
  - {at: p+1s, action: resume, node: fake}
expect:
  phases:
    "*": ["errors.fatal == 0", "count > 100"]
    p: ["p50 < $1", "read.p99 < 5s"]
  faults:
    resume: ["errors == 0"]
YAML
}
verdict_plan 5s >"$TMP/met.yaml"
"$STAMPEDE" run "$TMP/met.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/met" >"$TMP/met.out" 2>"$TMP/met.err" \
  || fail "a run whose expectations are met exited $?: $(tail -n 2 "$TMP/met.err")"
expect_eq "$(jq '.verdict | [.passed, .failed, (.checks | length)]' -c "$TMP/met/summary.json")" '[true,0,5]' "verdict"
grep -q "## Verdict: PASSED (5 of 5 checks met)" "$TMP/met/report.md" || fail "report.md: $(grep Verdict "$TMP/met/report.md")"
verdict_plan 1ns >"$TMP/unmet.yaml"
rc=0
"$STAMPEDE" run "$TMP/unmet.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/unmet" >"$TMP/unmet.out" \
  2>"$TMP/unmet.err" || rc=$?
expect_eq "$rc" 4 "exit code of a run whose expectation is not met"
grep -q "stampede: expectations not met: 1 of 5 checks failed: p50 < 1ns (phase p: " "$TMP/unmet.err" \
  || fail "stderr: $(grep -i expect "$TMP/unmet.err")"
grep -qE '^\| p50 < 1ns \| phase p \| [0-9.]+ (ms|s) \| \*\*FAIL\*\* \|$' "$TMP/unmet/report.md" \
  || fail "report.md: $(sed -n '/## Verdict/,/^$/p' "$TMP/unmet/report.md")"
expect_eq "$(jq -r '.verdict.checks[] | select(.pass | not) | .expect' "$TMP/unmet/summary.json")" "p50 < 1ns" "failed check"
rc=0; "$STAMPEDE" report "$TMP/unmet" >/dev/null 2>"$TMP/report.err" || rc=$?
expect_eq "$rc" 4 "stampede report's exit code for the same run"
"$STAMPEDE" report "$TMP/met" >/dev/null || fail "stampede report of the met run exited $?"
verdict_of "$TMP/unmet/report.md"
pass "expectations: met -> exit 0, 'p50 < 1ns' unmet -> exit 4 with its measured value"

# A fault the owning agent cannot do (a partition of a node whose config
# declares no network:) is refused before anything starts, at its line.
cat >"$TMP/cannot.yaml" <<YAML
name: cannot
$(target_yaml redis)
phases:
  - {name: p, workload: kv, workers: 1, duration: 2s, params: {keys: 100}}
faults:
  - {at: p+1s, action: partition, node: fake}
YAML
rc=0
"$STAMPEDE" run "$TMP/cannot.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/cannot" >"$TMP/cannot.out" \
  2>"$TMP/cannot.err" || rc=$?
expect_eq "$rc" 2 "a run with a fault its agent cannot do"
grep -q "cannot.yaml:[0-9]*:[0-9]*: faults\[0\].action: .*agent.yaml: node 'fake' declares no network: in this agent's config" \
  "$TMP/cannot.err" || fail "stderr: $(tail -n 3 "$TMP/cannot.err")"
[ -e "$TMP/cannot" ] && fail "a refused plan left a results directory"
pass "a partition of a node without network: in its agent's config: refused at its line, exit 2, nothing started"

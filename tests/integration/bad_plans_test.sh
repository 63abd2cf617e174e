#!/usr/bin/env bash
# Every broken plan in tests/plans/bad gives exit 2 and its FILE:LINE:COL
# message (first line of each file: "# expect: <message prefix>"), from both
# `validate` and `run`, without touching any target.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT/tests/plans/bad"
n=0
for f in *.yaml; do
  expect=$(head -n 1 "$f" | sed 's/^# expect: //')
  for cmd in validate run; do
    rc=0
    "$STAMPEDE" $cmd "$f" >"$TMP/out" 2>"$TMP/err" || rc=$?
    expect_eq "$rc" 2 "$cmd $f exit code"
    grep -qF -- "$expect" "$TMP/err" || fail "$cmd $f: expected '$expect', got: $(cat "$TMP/err")"
  done
  grep -q hunter2 "$TMP/err" && fail "$f: a password was echoed"
  n=$((n + 1))
done
# And the good example plans validate.
for f in "$ROOT"/configs/*.yaml; do
  "$STAMPEDE" validate "$f" >/dev/null || fail "$f does not validate"
done
rc=0; "$STAMPEDE" validate "$TMP/does-not-exist.yaml" 2>"$TMP/err" || rc=$?
expect_eq "$rc" 2 "missing plan file exit code"
grep -q "cannot open plan file" "$TMP/err" || fail "missing file message: $(cat "$TMP/err")"
# A 5 MB plan and an endless one are refused without being read whole.
{ printf 'name: '; head -c 5242880 /dev/zero | tr '\0' a; echo; } >"$TMP/big.yaml"
for f in "$TMP/big.yaml" /dev/zero; do
  rc=0; timeout 10 "$STAMPEDE" validate "$f" 2>"$TMP/err" || rc=$?
  expect_eq "$rc" 2 "$f exit code"
  grep -qF "$f:1:1: plan: the plan is larger than the limit of 1048576 bytes (1 MiB)" "$TMP/err" \
    || fail "$f: $(head -c 300 "$TMP/err")"
done
# A plan the agent's allow list refuses fails at validate time, not at run
# time; a config with several problems names them all.
cat >"$TMP/agent.yaml" <<'YAML'
allow:
  targets: [{endpoints: [10.0.0.0/24], password_env: [DB_PASSWORD]}]
YAML
rc=0; "$STAMPEDE" validate "$ROOT/configs/quickstart.yaml" --agent-config "$TMP/agent.yaml" 2>"$TMP/err" || rc=$?
expect_eq "$rc" 2 "validate against an allow list that refuses the plan"
grep -qF "is not listed; add it" "$TMP/err" || fail "allow list refusal: $(cat "$TMP/err")"
printf 'nodes:\n  db1: {proces: {pidfile: /x}}\nfault_timout: 10s\nnodes: {}\n' >"$TMP/bad-agent.yaml"
rc=0; "$STAMPEDE" validate --agent-config "$TMP/bad-agent.yaml" 2>"$TMP/err" || rc=$?
expect_eq "$rc" 2 "a bad agent config"
expect_eq "$(grep -c "bad-agent.yaml:" "$TMP/err")" 3 "problems reported in the agent config"
grep -qF "did you mean 'fault_timeout'?" "$TMP/err" || fail "no suggestion: $(cat "$TMP/err")"
rc=0; "$STAMPEDE" agent --capacity -3 --coordinator 127.0.0.1:1 2>"$TMP/err" || rc=$?
expect_eq "$rc" 2 "agent --capacity -3"
grep -qF -- "--capacity: expected 0 to 100000, found -3" "$TMP/err" || fail "capacity: $(cat "$TMP/err")"
# An agent config given as a plan, and a plan as an agent config: each says
# which it is and what checks it.
rc=0; "$STAMPEDE" validate "$ROOT/configs/agents/galera-local.yaml" 2>"$TMP/err" || rc=$?
expect_eq "$rc" 2 "an agent config as a plan"
grep -q "galera-local.yaml:[0-9]*:[0-9]*: plan: this is an agent's config (it has nodes:, no phases:), not a plan:" "$TMP/err" ||
  fail "agent config as a plan: $(cat "$TMP/err")"
rc=0; "$STAMPEDE" validate --agent-config "$ROOT/configs/quickstart.yaml" 2>"$TMP/err" || rc=$?
expect_eq "$rc" 2 "a plan as an agent config"
grep -qF "quickstart.yaml:1:1: this is a plan (it has phases:, no nodes:), not an agent's config" "$TMP/err" ||
  fail "plan as an agent config: $(cat "$TMP/err")"
# Words mistyped: a command, a workload, a flag's prefix (never guessed).
rc=0; "$STAMPEDE" valdate x.yaml 2>"$TMP/err" || rc=$?
expect_eq "$rc" 2 "stampede valdate"
grep -qF "unknown command 'valdate' (did you mean 'validate'?)" "$TMP/err" || fail "valdate: $(head -n 1 "$TMP/err")"
rc=0; "$STAMPEDE" workloads tpc-c 2>"$TMP/err" || rc=$?
expect_eq "$rc" 2 "stampede workloads tpc-c"
grep -qF "unknown workload 'tpc-c' (did you mean 'tpcc'?)" "$TMP/err" || fail "tpc-c: $(cat "$TMP/err")"
rc=0; "$STAMPEDE" validate "$ROOT/configs/quickstart.yaml" --agent "$ROOT/configs/agents/galera-local.yaml" \
  2>"$TMP/err" || rc=$?
expect_eq "$rc" 2 "a flag's prefix (--agent for --agent-config)"
grep -qF "unrecognised option '--agent'" "$TMP/err" || fail "--agent: $(head -n 1 "$TMP/err")"
# `stampede check` on a run with nothing to check is not a pass.
mkdir -p "$TMP/empty-run"
rc=0; "$STAMPEDE" check "$TMP/empty-run" 2>"$TMP/err" || rc=$?
expect_eq "$rc" 2 "stampede check with no history"
grep -qF "nothing to check in $TMP/empty-run" "$TMP/err" || fail "check: $(cat "$TMP/err")"
pass "$n broken plans rejected with file:line:col (numbers at 2^64, alias bombs, deep nesting included), 5 MB and endless plans refused; configs/*.yaml valid"

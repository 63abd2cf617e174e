#!/usr/bin/env bash
# Every example plan in configs/ passes `stampede validate`, and there is one
# for every built-in workload and every fault action. A plan with faults
# names its example agent config (configs/agents/), and `validate` is the
# pre-flight: with that config it passes, with the fault's node taken out
# of it it fails at the fault's line (exit 2), and without any it passes
# with a note of what an agent must declare.
source "$(dirname "$0")/../lib.sh"
n=0
for f in "$ROOT"/configs/*.yaml; do
  case "$f" in *agent*.yaml) continue ;; esac
  "$STAMPEDE" validate "$f" >"$TMP/validate.out" 2>&1 || fail "$(cat "$TMP/validate.out")"
  n=$((n + 1))
done
for a in kill stop pause resume start restart partition blackhole delay loss bandwidth reset timeout slow-close heal \
  join leave fill slow-disk rolling-restart; do
  grep -lq "action: $a," "$ROOT"/configs/*.yaml || fail "no example plan in configs/ uses action $a"
done
for f in "$ROOT"/configs/agents/*.yaml; do
  "$STAMPEDE" validate --agent-config "$f" >"$TMP/agent.out" 2>&1 || fail "$f: $(cat "$TMP/agent.out")"
done
faulty=0
for f in "$ROOT"/configs/*.yaml; do
  grep -q "^faults:" "$f" || continue
  faulty=$((faulty + 1))
  agent=$(sed -n 's/^# Agent config: //p' "$f")
  [ -n "$agent" ] || fail "$f has faults but names no example agent config (# Agent config: configs/agents/...)"
  out=$("$STAMPEDE" validate "$f" --agent-config "$ROOT/$agent" 2>&1) || fail "$f with $agent: $out"
  grep -q "note:" <<<"$out" && fail "$f with $agent: $out"
  out=$("$STAMPEDE" validate "$f" 2>&1) || fail "$f alone: $out"
  grep -q "note: its faults need an agent whose config declares" <<<"$out" || fail "$f alone, no note: $out"
  node=$(grep -m1 -oE "action: [a-z-]+, (node: |nodes: \[)[a-z0-9-]+" "$f" | sed -E 's/.*(node: |nodes: \[)//')
  sed "s/^  $node:/  $node-gone:/" "$ROOT/$agent" >"$TMP/without.yaml"
  rc=0; "$STAMPEDE" validate "$f" --agent-config "$TMP/without.yaml" >"$TMP/without.out" 2>&1 || rc=$?
  expect_eq "$rc" 2 "$f with $node taken out of its agent config"
  grep -qE "^$f:[0-9]+:[0-9]+: faults[^:]*: node '$node' is not declared" "$TMP/without.out" ||
    fail "$f without $node: $(cat "$TMP/without.out")"
done
for w in $("$STAMPEDE" workloads | cut -f1); do
  grep -lq "workload: $w\b" "$ROOT"/configs/*.yaml || fail "no example plan in configs/ uses workload $w"
done
# The example agent config the package ships, and every command's --help
# (the manual page is made from them; none may need its required flags).
"$STAMPEDE" validate --agent-config "$ROOT/deploy/systemd/agent.yaml.example" >"$TMP/agent.out" 2>&1 \
  || fail "deploy/systemd/agent.yaml.example: $(cat "$TMP/agent.out")"
for c in run validate coordinator agent report check compare workloads version; do
  "$STAMPEDE" "$c" --help >"$TMP/help.out" 2>&1 || fail "stampede $c --help exited $?: $(head -3 "$TMP/help.out")"
  grep -q "^usage: stampede $c" "$TMP/help.out" || fail "stampede $c --help: no usage line"
done
"$STAMPEDE" version | head -n 1 | grep -Eq '^stampede [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]+|unknown), [A-Za-z]+ build\)$' \
  || fail "stampede version: $("$STAMPEDE" version 2>&1 | head -n 1)"
pass "$n example plans validate ($faulty with faults, each with its agent config); every built-in workload and fault action has one; the example agent config validates; every --help"


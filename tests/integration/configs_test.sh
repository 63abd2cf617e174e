#!/usr/bin/env bash
# Every example plan in configs/ passes `stampede validate`, and there is one
# for every built-in workload.
source "$(dirname "$0")/../lib.sh"
n=0
for f in "$ROOT"/configs/*.yaml; do
  case "$f" in *agent*.yaml) continue ;; esac
  "$STAMPEDE" validate "$f" >"$TMP/validate.out" 2>&1 || fail "$(cat "$TMP/validate.out")"
  n=$((n + 1))
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
pass "$n example plans validate; every built-in workload has one; the example agent config validates; every --help"


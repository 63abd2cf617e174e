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
pass "$n example plans validate; every built-in workload has one"

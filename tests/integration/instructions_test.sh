#!/usr/bin/env bash
# The guard on the cost of an operation: bench/instructions --check counts,
# with Callgrind, the instructions stampede's event loops execute per
# operation (Redis GET at 50 connections, PostgreSQL point select at 8) and
# fails if a case is more than 10% above bench/instructions.expected. A
# count, not a time: it does not move with the machine's load (1-4% from
# run to run here, idle or beside two CPU hogs).
source "$(dirname "$0")/../lib.sh"
PG_PORT=$(free_port) REDIS_PORT=$(free_port) "$ROOT/bench/instructions" --check >"$TMP/check.out" 2>"$TMP/check.err" ||
  fail "$(cat "$TMP/check.out" "$TMP/check.err")"
cat "$TMP/check.out"
pass "instructions per operation within 10% of bench/instructions.expected: $(awk 'NR > 1 { printf "%s %s (%s); ", $1, $3, $4 }' "$TMP/check.out")"

#!/usr/bin/env bash
# append's history checks (docs/consistency.md) find a real loss, on one
# PostgreSQL server crashed mid-run (an immediate shutdown, then a start:
# crash recovery replays the WAL that reached the OS).
# The crash: the WAL writer is stopped (SIGSTOP), 300 ms later every
# process of the server is killed (SIGKILL), as a machine's crash would
# stop them, but with the page cache kept (fsync is off here).
# - synchronous_commit off (how deploy/local/postgres.sh runs it, for
#   speed): a commit is acknowledged before its WAL is written (the WAL
#   writer's job), so the crash loses the last 300 ms of them. The check
#   finds those lost appends, and
#   reads from before the crash that the lists after it no longer agree
#   with; the verdict fails (exit 4), `stampede check` says the same.
# - synchronous_commit on (for the stampede role): a commit is
#   acknowledged once its WAL is written; the crash of the server (not of
#   the machine) loses nothing: 0 lost, 0 incompatible orders (exit 0).
source "$(dirname "$0")/../lib.sh"
start_postgres
cat >"$TMP/crash.sh" <<'SH'
#!/usr/bin/env bash
set -eu
pm=$(head -n 1 "$1/data/postmaster.pid")
kids=$(pgrep -P "$pm")
kill -STOP $(pgrep -P "$pm" -f walwriter)
sleep 0.3
kill -9 "$pm" $kids
# Nothing here reaps the killed postmaster (its parent, pg_ctl, is gone):
# as a zombie its pid still answers, and a new postmaster would refuse the
# lock files that name it. Its processes are gone: the files are stale.
for _ in $(seq 1 50); do pgrep -P "$pm" >/dev/null || break; sleep 0.1; done
rm -f "$1/data/postmaster.pid" "$1"/.s.PGSQL.*.lock
SH
chmod +x "$TMP/crash.sh"
cat >"$TMP/agent.yaml" <<YAML
nodes:
  pg1:
    command: {kill: [$TMP/crash.sh, $PG_DIR], start: [$ROOT/deploy/local/postgres.sh, start-node, $PG_DIR, "$PG_PORT"]}
YAML
cat >"$TMP/plan.yaml" <<YAML
name: append-postgres-crash
target: {driver: postgres, endpoints: [$DB_ENDPOINT], user: stampede, password_env: STAMPEDE_PASSWORD, database: bench,
         op_timeout: 2s, connect_timeout: 1s}
expect:
  phases: {append: ["anomalies.lost == 0", "anomalies.incompatible_order == 0"]}
phases:
  - {name: append, workload: append, workers: 8, rate: 2000, duration: 6s}
faults:
  - {at: append+2s, action: kill, node: pg1}
  - {at: append+3s, action: start, node: pg1}
YAML
run() {  # NAME [PLAN AGENT_CONFIG]
  rc=0
  "$STAMPEDE" run "${2:-$TMP/plan.yaml}" --agent-config "${3:-$TMP/agent.yaml}" --results "$TMP/$1" \
    >"$TMP/$1.out" 2>"$TMP/$1.err" || rc=$?
  s=$TMP/$1/summary.json
  [ -f "$s" ] || fail "$1: no summary.json (exit $rc): $(tail -3 "$TMP/$1.err")"
  expect_eq "$(jq -c '[.faults[] | [.action, .ok]]' "$s")" '[["kill",true],["start",true]]' "$1: faults"
  txns=$(jq '.phases[0].anomalies.history.transactions' "$s")
  [ "$txns" -gt 3000 ] || fail "$1: only $txns transactions checked"
  lost=$(jq '.phases[0].anomalies.by_kind.lost // 0' "$s")
  incompatible=$(jq '.phases[0].anomalies.by_kind.incompatible_order // 0' "$s")
  check_rc=0
  "$STAMPEDE" check "$TMP/$1" >"$TMP/$1.check" 2>&1 || check_rc=$?
  grep -q "summary.json: the same" "$TMP/$1.check" || fail "$1: stampede check: $(cat "$TMP/$1.check")"
}
run async_commit
expect_eq "$rc" 4 "synchronous_commit off: exit code (the verdict: appends lost)"
[ "$lost" -gt 0 ] || fail "synchronous_commit off: no lost append in $txns transactions ($(jq -c '.phases[0].anomalies.by_kind' "$s"))"
expect_eq "$check_rc" 4 "stampede check's exit code on the lost appends"
example=$(jq -r '[.phases[0].anomalies.examples[] | select(.kind == "lost")][0].text' "$s")
case "$example" in "key "*": append "*" acknowledged, missing from the final read "*) ;; *) fail "example: $example" ;; esac
grep -q "^\*\*Consistency: [0-9]* anomal" "$TMP/async_commit/report.md" || fail "report.md has no Consistency line"
jq -e 'type == "array"' "$TMP/async_commit/history.json" >/dev/null || fail "history.json is not an array"
result="synchronous_commit off: $txns transactions, $lost lost, $incompatible incompatible orders ($example)"

psql -h "$PG_DIR" -p "$PG_PORT" -U postgres -qAt -c "ALTER ROLE stampede SET synchronous_commit = on" >/dev/null ||
  fail "synchronous_commit could not be turned on"
run sync_commit
expect_eq "$rc" 0 "synchronous_commit on: exit code"
expect_eq "$lost" 0 "synchronous_commit on: lost appends (of $txns transactions)"
expect_eq "$incompatible" 0 "synchronous_commit on: incompatible orders"
result="$result; synchronous_commit on: $txns transactions, $(jq -c '.phases[0].anomalies.by_kind' "$s")"

# The server back only after the phase's hard stop (its end + op_timeout),
# as a failover slower than the phase: the final read reconnects and reads
# within its own 10 s, not stopped by the phase's end.
sed -e 's/append+2s/append+4s/; s/append+3s/append+5s/' "$TMP/plan.yaml" >"$TMP/late.yaml"
cat >"$TMP/late-agent.yaml" <<YAML
nodes:
  pg1:
    command:
      kill: [$TMP/crash.sh, $PG_DIR]
      start: [bash, -c, "(sleep 4; $ROOT/deploy/local/postgres.sh start-node $PG_DIR $PG_PORT) >/dev/null 2>&1 &"]
YAML
run late_start "$TMP/late.yaml" "$TMP/late-agent.yaml"
keys=$(jq '.phases[0].anomalies.history.final_keys' "$s")
[ "$keys" -gt 0 ] || fail "late start: no final read ($(grep 'final read' "$TMP/late_start.err" | tail -2))"
expect_eq "$rc" 0 "late start: exit code"
pass "$result; the server back after the phase: the final read of $keys keys"

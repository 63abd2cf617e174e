#!/usr/bin/env bash
# A phase ends when its last operation is done, and only then do its
# workers' sessions end: a session ending costs the server work (a
# PostgreSQL backend exits) that would slow the operations other workers
# still have in flight, and the phase's last second would show stampede's
# own disconnects as the database's latency. 100 workers insert the
# server's clock_timestamp() and their backend's pid for 3 s, each insert
# after a random sleep of up to 50 ms, so that the operations in flight at
# the deadline end over 50 ms; the server logs each session's end with its
# own clock. Every worker's session ends after the last insert, and the
# phase lasts its 3 s plus at most the slowest operation in flight at its
# deadline.
source "$(dirname "$0")/../lib.sh"
start_postgres
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- psql -h "$PG_DIR" -p "$PG_PORT" -U postgres -qtAX -c "$1"
  else psql -h "$PG_DIR" -p "$PG_PORT" -U postgres -qtAX -c "$1"; fi
}
as_postgres "ALTER SYSTEM SET log_disconnections = on" >/dev/null
as_postgres "ALTER SYSTEM SET log_line_prefix = '%n %p '" >/dev/null
as_postgres "SELECT pg_reload_conf()" >/dev/null
cat >"$TMP/plan.yaml" <<YAML
name: phase-end
$(target_yaml postgres)
setup: ["DROP TABLE IF EXISTS ticks", "CREATE TABLE ticks (at TIMESTAMPTZ, pid INT)"]
phases:
  - {name: run, workload: custom, workers: 100, duration: 3s,
     custom: [{name: tick, sql: "INSERT INTO ticks SELECT clock_timestamp(), pg_backend_pid() FROM pg_sleep(random() * 0.05)"}]}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --results "$TMP/out" >"$TMP/run.out" 2>"$TMP/run.err" ||
  fail "run exited $? ($(tail -n 2 "$TMP/run.err"))"
s=$TMP/out/summary.json
ok=$(jq '.phases[0].ops[0].ok' "$s")
[ "$ok" -gt 100 ] || fail "only $ok inserts"
expect_eq "$(db_count postgres ticks)" "$ok" "rows = inserts ok"
# The server's clock on both sides: the last insert, each worker's session end.
last=$(db_sql postgres "SELECT extract(epoch FROM max(at)) FROM ticks")
db_sql postgres "SELECT DISTINCT pid FROM ticks" | sort >"$TMP/pids"
expect_eq "$(wc -l <"$TMP/pids")" 100 "workers' sessions"
# A backend logs its session's end as it exits, maybe after the run has.
for _ in $(seq 50); do
  awk '/disconnection: session time/ { print $2, $1 }' "$PG_DIR/server.log" | sort >"$TMP/ends"
  join "$TMP/pids" "$TMP/ends" >"$TMP/worker_ends"
  [ "$(wc -l <"$TMP/worker_ends")" -ge 100 ] && break
  sleep 0.1
done
expect_eq "$(wc -l <"$TMP/worker_ends")" 100 "workers' sessions the server saw end"
# The log's stamps are whole milliseconds: 2 ms of slack.
early=$(awk -v last="$last" '$2 < last - 0.002 { n++ } END { print n + 0 }' "$TMP/worker_ends")
first_end=$(sort -k 2 -g "$TMP/worker_ends" | head -n 1 | awk '{ print $2 }')
expect_eq "$early" 0 "sessions that ended before the last insert (at $last; the first ended at $first_end)"
# The phase: 3 s and the slowest operation in flight at the deadline.
read -r duration max_s <<<"$(jq -r '.phases[0] | "\(.duration_s) \(.ops[0].latency_us.max / 1e6)"' "$s")"
awk -v d="$duration" -v m="$max_s" 'BEGIN { exit !(d >= 3 && d <= 3 + m + 0.2) }' ||
  fail "the 3 s phase lasted ${duration} s with its slowest operation ${max_s} s"
pass "$ok inserts by 100 workers; every session ended after the last insert ($last, first end $first_end); the phase lasted ${duration} s (slowest operation ${max_s} s)"

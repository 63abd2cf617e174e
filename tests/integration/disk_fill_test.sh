#!/usr/bin/env bash
# A full disk, for real: the database's data directory on a small tmpfs,
# crud inserts and selects at a fixed rate with rows of 2 KB, so the table
# keeps growing. The agent fills the filesystem (fill: a file beside the
# data directory, allocated until nothing is free); the table cannot grow
# and inserts fail (unavailable) while selects go on: MariaDB's InnoDB with
# 1114 "The table is full", PostgreSQL with 53100 "could not extend file";
# heal removes the file and inserts succeed again. A fill left by an agent
# that died is removed when the next one starts, and none is left after
# the run.
#   disk_fill_test.sh mysql | postgres
source "$(dirname "$0")/../lib.sh"
driver=${1:-mysql}
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: mounting a small tmpfs needs root"
  exit 77
fi
mnt=$TMP/disk
mkdir -p "$mnt"
mount -t tmpfs -o size=400m tmpfs "$mnt"
echo "$mnt" >>"$TMP/.mounts"
on_exit "umount -l '$mnt'"
DB_DIR=$mnt/$driver; DB_PORT=$(free_port)
script=$ROOT/deploy/local/$([ "$driver" = mysql ] && echo mariadb || echo postgres).sh
on_exit "'$script' stop '$DB_DIR'"
"$script" start "$DB_DIR" "$DB_PORT" "$STAMPEDE_PASSWORD"
DB_ENDPOINT=127.0.0.1:$DB_PORT
if [ "$driver" = postgres ]; then
  # PostgreSQL stops (PANIC) when it cannot write WAL: a fresh WAL segment
  # (16 MB, allocated when it is made) holds what the run writes, so only
  # the tables and indexes meet the full disk.
  runuser -u postgres -- psql -h "$DB_DIR" -p "$DB_PORT" -U postgres -qAtc 'SELECT pg_switch_wal()' >/dev/null
  full_error="could not extend file"
else
  full_error="The table .* is full"
fi
fill=$DB_DIR/.stampede-fill
# What an agent killed mid-fill would leave.
fallocate -l 1M "$fill"
cat >"$TMP/agent.yaml" <<YAML
nodes:
  db1: {data_dir: $DB_DIR/data}
YAML
cat >"$TMP/plan.yaml" <<YAML
name: disk-fill
$(target_yaml "$driver")
recovery: {baseline: 3s, hold: 2s}
phases:
  - {name: load, workload: crud, workers: 8, rate: 400, duration: 22s,
     params: {insert: 1, select: 1, table: df, reset: true, value_size: 2000}}
faults:
  - {at: load+6s, action: fill, node: db1}
  - {at: load+14s, action: heal, node: db1}
expect:
  phases: {load: ["insert.disk_full > 100", "select.disk_full == 0"]}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" \
  >"$TMP/run.out" 2>"$TMP/run.err" || fail "run exited $?: $(tail -3 "$TMP/run.err")"
grep -q "removed a disk fill a previous agent left" "$TMP/run.err" ||
  fail "the leftover fill was not reported: $(grep -i fill "$TMP/run.err")"
[ -e "$fill" ] && fail "a fill is left after the run: $(ls -l "$fill")"
s=$TMP/res/summary.json
expect_eq "$(jq -c '[.faults[] | [.action, .ok]]' "$s")" '[["fill",true],["heal",true]]' "faults"
j=$TMP/res/journal.jsonl
# Operations by outcome (the journal's outcomes: ok, retryable,
# unavailable, ambiguous, fatal) in the seconds between the fill and the
# heal, and after the heal (a second's margin either side).
window() {  # FROM TO OP OUTCOME_INDEX
  jq -s --argjson a "$1" --argjson b "$2" --arg op "$3" --argjson o "$4" \
    '[.[] | select(.type == "second" and .t > $a and .t <= $b) | .ops[$op].outcomes[$o] // 0] | add // 0' "$j"
}
t_fill=$(jq '.faults[0].done_t_s' "$s"); t_heal=$(jq '.faults[1].done_t_s' "$s")
t_end=$(jq -s '[.[] | select(.type == "second") | .t] | max' "$j")
full=$(window "$(jq -n "$t_fill + 2")" "$t_heal" insert 2)
[ "$full" -gt 100 ] || fail "inserts refused while the disk was full: $full (journal: $(jq -c 'select(.type == "second") | [.t, .ops.insert.outcomes]' "$j" | tr '\n' ' '))"
reads=$(window "$(jq -n "$t_fill + 2")" "$t_heal" select 0)
[ "$reads" -gt 100 ] || fail "selects while the disk was full: $reads"
after=$(window "$(jq -n "$t_heal + 1")" "$t_end" insert 0)
[ "$after" -gt 100 ] || fail "inserts after the heal: $after"
expect_eq "$(window "$(jq -n "$t_heal + 1")" "$t_end" insert 2)" 0 "inserts refused after the heal"
grep -q "$full_error" "$TMP/res/report.md" || fail "report.md does not give the server's error"
# Every refused insert is counted as refused for a full disk, in
# summary.json and in the report's table.
disk_full=$(jq '.phases[0].ops[] | select(.name == "insert") | .disk_full' "$s")
[ "$disk_full" -ge "$full" ] || fail "disk_full $disk_full < $full inserts refused while full"
grep -q "^| insert |.*(disk full $disk_full)" "$TMP/res/report.md" ||
  fail "report.md's table: $(grep '^| insert |' "$TMP/res/report.md")"
sed -n '/## Faults and recovery/,/## Phases/p' "$TMP/res/report.md" | grep -E "^###|unavailab|lowest|recovered"
# A run aborted (SIGTERM) while its fill is in place undoes it on the way
# out: no fill file is left, and the report lists the heal among the
# faults undone.
cat >"$TMP/abort.yaml" <<YAML
name: disk-fill-abort
$(target_yaml "$driver")
phases:
  - {name: load, workload: crud, workers: 2, rate: 100, duration: 30s, params: {select: 1, table: df}}
faults:
  - {at: load+1s, action: fill, node: db1}
YAML
"$STAMPEDE" run "$TMP/abort.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/abort" >"$TMP/abort.out" \
  2>"$TMP/abort.err" &
run_pid=$!
for _ in $(seq 1 100); do [ -e "$fill" ] && break; sleep 0.1; done
[ -e "$fill" ] || fail "the fill never appeared: $(tail -n 3 "$TMP/abort.err")"
kill -TERM "$run_pid"
wait "$run_pid" || true
[ -e "$fill" ] && fail "an aborted run left its fill: $(ls -l "$fill")"
expect_eq "$(jq -c '[.undone[] | [.action, .ok]]' "$TMP/abort/summary.json")" '[["heal",true]]' "undone at the abort"
pass "fill ($driver): $full inserts refused ($(grep -o "$full_error" "$TMP/res/report.md" | head -n 1)) while $reads selects went on; heal: $after inserts ok after it, none refused; no fill left, nor after an abort"

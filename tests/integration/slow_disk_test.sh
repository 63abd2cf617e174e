#!/usr/bin/env bash
# A slow disk, for real: MariaDB's data directory on a small ext4 the test
# loop-mounts, closed-loop inserts (each commit syncs InnoDB's redo log).
# The agent throttles the node's process on that device to 20 I/O
# operations a second (slow-disk, a cgroup of its own), then heals. Checked
# per phase: throughput falls and insert p99 rises while throttled, and
# both come back after heal; the throttle's cgroup is gone after the run
# and mariadbd is back where it was.
source "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: loop-mounting a filesystem and moving a server between cgroups need root"
  exit 77
fi
img=$TMP/disk.img; mnt=$TMP/disk
truncate -s 1G "$img"
mkfs.ext4 -q "$img"
mkdir -p "$mnt"
mount -o loop "$img" "$mnt"
echo "$mnt" >>"$TMP/.mounts"
on_exit "umount -l '$mnt'"
MY_DIR=$mnt/mariadb; MY_PORT=$(free_port)
on_exit "'$ROOT/deploy/local/mariadb.sh' stop '$MY_DIR'"
MY_FLUSH_AT_COMMIT=1 "$ROOT/deploy/local/mariadb.sh" start "$MY_DIR" "$MY_PORT" "$STAMPEDE_PASSWORD"
DB_ENDPOINT=127.0.0.1:$MY_PORT
cat >"$TMP/agent.yaml" <<YAML
nodes:
  db1: {process: {pidfile: $MY_DIR/mysqld.pid}, data_dir: $MY_DIR/data}
YAML
# Where this kernel keeps its I/O controller: the agent refuses the fault at
# the run's start when there is none, and so does this test, saying why.
cg_before=$(grep -E '^0::|blkio' "/proc/$(cat "$MY_DIR/mysqld.pid")/cgroup" | head -n 1)
load='workload: crud, workers: 4, params: {insert: 1, table: sd, value_size: 200}'
cat >"$TMP/plan.yaml" <<YAML
name: slow-disk
$(target_yaml mysql)
phases:
  - {name: before, $load, duration: 4s}
  - {name: slowed, $load, duration: 5s}
  - {name: after, $load, duration: 4s}
faults:
  - {at: slowed+0s, action: slow-disk, node: db1, iops: 20}
  - {at: after+0s, action: heal, node: db1}
YAML
rc=0
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" >"$TMP/run.out" \
  2>"$TMP/run.err" || rc=$?
if [ "$rc" != 0 ] && grep -q "slow-disk needs cgroup" "$TMP/run.err"; then
  echo "SKIP: the agent refused slow-disk here: $(grep -o 'slow-disk needs cgroup.*' "$TMP/run.err" | head -n 1)"
  exit 77
fi
expect_eq "$rc" 0 "run exit code ($(tail -n 3 "$TMP/run.err"))"
s=$TMP/res/summary.json
expect_eq "$(jq -c '[.faults[] | [.action, .ok]]' "$s")" '[["slow-disk",true],["heal",true]]' \
  "faults ($(jq -c '[.faults[].message]' "$s"))"
p99() { jq --arg p "$1" '.phases[] | select(.name == $p) | .ops[0].latency_us.p99 / 1000 | floor' "$s"; }
n() { jq --arg p "$1" '.phases[] | select(.name == $p) | .ops[0].count' "$s"; }
before=$(($(n before) / 4)); slowed=$(($(n slowed) / 5)); after=$(($(n after) / 4))
echo "inserts/s: before $before (p99 $(p99 before) ms), throttled to 20 iops $slowed (p99 $(p99 slowed) ms), after heal $after (p99 $(p99 after) ms)"
# A synced write of the redo log may commit several workers' inserts at
# once (group commit): 20 I/O a second allow up to 80 of 4 workers.
[ "$slowed" -le 100 ] || fail "throttled to 20 iops, $slowed inserts/s"
[ "$before" -ge $((slowed * 5)) ] || fail "before $before inserts/s, throttled $slowed"
[ "$after" -ge $((slowed * 5)) ] || fail "after heal $after inserts/s, throttled $slowed"
[ "$(p99 slowed)" -gt "$(p99 before)" ] || fail "p99 did not rise"
ls -d /sys/fs/cgroup/*/stampede_db1 /sys/fs/cgroup/stampede_db1 2>/dev/null && fail "the throttle's cgroup is left"
cg_after=$(grep -E '^0::|blkio' "/proc/$(cat "$MY_DIR/mysqld.pid")/cgroup" | head -n 1)
expect_eq "$cg_after" "$cg_before" "mariadbd's cgroup after heal"
pass "slow-disk 20 iops: $before -> $slowed -> $after inserts/s, p99 $(p99 before) -> $(p99 slowed) -> $(p99 after) ms; cgroup removed"

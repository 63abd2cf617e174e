#!/usr/bin/env bash
# register (docs/consistency.md) on a real 3-node Galera cluster, writing
# through node1 and reading through node2: Galera's default
# wsrep_sync_wait=0 lets a read on node2 miss a write node1 has already
# acknowledged (node2 applies it a moment later), and the checker finds
# those stale reads. With wsrep_sync_wait=1 every read waits for what its
# node has received to be applied: the same plan finds none.
# The same for append's history check (half its workers on each node):
# stale reads with wsrep_sync_wait=0, none with 1; no lost append and no
# incompatible order in either; the dependency graph finds the stale reads
# as cycles through real time (G-single-realtime and the like).
# key_appends 2000 keeps every worker on the same two keys for the whole
# phase: at the default 32 the workers drift a generation apart and a read
# on one node rarely meets a key the other is appending to (0 to 17 stale
# reads a run, where this finds about 30).
source "$(dirname "$0")/../lib.sh"
start_galera
cat >"$TMP/plan.yaml" <<YAML
name: galera-stale-read
target: {driver: mysql, flavor: galera, endpoints: [127.0.0.1:$GA_BASE, 127.0.0.1:$((GA_BASE + 1))], user: stampede,
         password_env: STAMPEDE_PASSWORD, database: bench}
phases:
  - {name: register, workload: register, workers: 8, duration: 4s}
  - {name: append, workload: append, workers: 8, duration: 4s, params: {keys: 2, read: 0.5, ops: 2, key_appends: 2000}}
YAML
run() {  # NAME
  "$STAMPEDE" run "$TMP/plan.yaml" --results "$TMP/$1" >"$TMP/$1.out" 2>"$TMP/$1.err" || fail "run ($1) exited $?"
  s=$TMP/$1/summary.json
  reads=$(jq '.phases[0].ops[] | select(.name == "read") | .ok' "$s")
  writes=$(jq '.phases[0].ops[] | select(.name == "write") | .ok' "$s")
  stale=$(jq '.phases[0].anomalies.by_kind.stale_read // 0' "$s")
  [ "$reads" -gt 1000 ] && [ "$writes" -gt 500 ] || fail "$1: only $reads reads and $writes writes"
  txns=$(jq '.phases[1].anomalies.history.transactions' "$s")
  [ "$txns" -gt 1000 ] || fail "$1: only $txns append transactions checked"
  append_stale=$(jq '.phases[1].anomalies.by_kind.stale_read // 0' "$s")
  # Cycles through real time, forbidden or allowed at Galera's default.
  realtime=$(jq '.phases[1].anomalies | [.by_kind, .history.allowed_by_kind] | add | to_entries |
    map(select(.key | endswith("_realtime")) | .value) | add // 0' "$s")
  expect_eq "$(jq '.phases[1].anomalies.by_kind.lost // 0' "$s")" 0 "$1: lost appends"
  expect_eq "$(jq '.phases[1].anomalies.by_kind.incompatible_order // 0' "$s")" 0 "$1: incompatible orders"
}
run sync_wait_0
[ "$stale" -gt 0 ] || fail "wsrep_sync_wait=0: no stale read in $reads reads"
example=$(jq -r '.phases[0].anomalies.examples[0].text' "$s")
case "$example" in "key "*" read "*" after "*" was acknowledged "*" before (127.0.0.1:$((GA_BASE + 1)), agent local-1, "*) ;;
  *) fail "example: $example" ;; esac
result="wsrep_sync_wait=0: $stale stale of $reads reads ($example)"
[ "$append_stale" -gt 0 ] || fail "wsrep_sync_wait=0: no stale read in $txns append transactions"
append_example=$(jq -r '[.phases[1].anomalies.examples[] | select(.kind == "stale_read")][0].text' "$s")
result="$result; append: $append_stale stale in $txns transactions ($append_example)"
# The dependency graph sees the same: a read that missed an acknowledged
# append is a cycle through real time.
[ "$realtime" -gt 0 ] || fail "wsrep_sync_wait=0: $append_stale stale reads but no cycle through real time"
result="$result, $realtime cycles through real time"
for n in 1 2 3; do "$ROOT/deploy/local/galera.sh" set-global "$GA_DIR" "$n" wsrep_sync_wait 1; done
run sync_wait_1
expect_eq "$stale" 0 "stale reads with wsrep_sync_wait=1 (of $reads reads)"
expect_eq "$append_stale" 0 "append's stale reads with wsrep_sync_wait=1 (of $txns transactions)"
pass "$result; wsrep_sync_wait=1: 0 of $reads reads, 0 in $txns append transactions"

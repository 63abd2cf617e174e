#!/usr/bin/env bash
# A rebalance of a real 6-node Redis Cluster under load: while reads and
# in-place updates of 20,000 keys run, 2,000 hash slots (and their keys)
# move from one master to another. First 300 slots are held half-moved for
# 2 s (keys on the new master, slots still MIGRATING/IMPORTING: every
# client gets ASK), then redis-cli --cluster reshard moves 1,700 more (MOVED).
# The phase lasts 20 s: the move takes about 8 s alone and twice that
# beside another test (once 16.4 s, past an earlier 14 s phase, with 3,700).
# The driver follows both, so no operation may fail and no key is lost or
# added.
source "$(dirname "$0")/../lib.sh"
start_redis_cluster
masters=$("$ROOT/deploy/local/redis-cluster.sh" masters "$RC_DIR")
from=$(echo "$masters" | sed -n 1p); to=$(echo "$masters" | sed -n 2p)
[ -n "$from" ] && [ -n "$to" ] || fail "two masters not found: $masters"
cli() { redis-cli -p "$1" -a "$STAMPEDE_PASSWORD" --no-auth-warning "${@:2}"; }
# The master's first slot, from CLUSTER NODES.
first_slot_of() { cli "$1" cluster nodes | awk '/myself/ { split($9, r, "-"); print r[1] }'; }
# Moves the keys of COUNT slots from FIRST on, and leaves the slots
# MIGRATING on FROM and IMPORTING on TO for 2 s before giving them to TO.
hold_migration() {  # FROM TO FIRST COUNT
  local from_id to_id last keys out
  from_id=$(cli "$1" cluster myid); to_id=$(cli "$2" cluster myid); last=$(($3 + $4 - 1))
  seq "$3" "$last" | sed "s/.*/cluster setslot & importing $from_id/" | cli "$2" >/dev/null
  seq "$3" "$last" | sed "s/.*/cluster setslot & migrating $to_id/" | cli "$1" >/dev/null
  keys=$(seq "$3" "$last" | sed "s/.*/cluster getkeysinslot & 1000/" | cli "$1" | grep .)
  [ -n "$keys" ] || fail "no keys in slots $3-$last"
  # One MIGRATE per key (keys of several slots cannot share one).
  out=$(echo "$keys" | sed "s/.*/migrate 127.0.0.1 $2 & 0 5000 AUTH $STAMPEDE_PASSWORD/" | cli "$1" | sort | uniq -c)
  [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q " OK$" ||
    fail "MIGRATE of $(echo "$keys" | wc -l) keys: $out"
  sleep 2
  seq "$3" "$last" | sed "s/.*/cluster setslot & node $to_id/" | cli "$2" >/dev/null
  seq "$3" "$last" | sed "s/.*/cluster setslot & node $to_id/" | cli "$1" >/dev/null
}
slots_of() {  # PORT: the slots its master serves, from CLUSTER NODES
  cli "$1" cluster nodes | awk '/myself/ { n = 0; for (i = 9; i <= NF; i++) {
    split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }'
}
before=$(slots_of "$to")
cat >"$TMP/plan.yaml" <<YAML
name: redis-cluster-reshard
target: {driver: redis, flavor: redis-cluster, endpoints: [$RC_ENDPOINTS], password_env: STAMPEDE_PASSWORD,
         op_timeout: 2s, connect_timeout: 1s}
retry: {max_attempts: 5, backoff: 50ms}
phases:
  - {name: load, workload: crud, workers: 8, ops: 20000, params: {reset: true, table: rs}}
  - {name: mix, workload: crud, workers: 8, duration: 20s, rate: 1500,
     params: {insert: 0, select: 1, update: 1, keys: 20000, table: rs}}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" &
run_pid=$!
wait_for_line "$TMP/run.out" "mix" 300
sleep 1
started=$(date +%s.%N)
hold_migration "$from" "$to" "$(first_slot_of "$from")" 300
cli "$from" --cluster reshard "127.0.0.1:$from" --cluster-from "$(cli "$from" cluster myid)" \
  --cluster-to "$(cli "$to" cluster myid)" --cluster-slots 1700 --cluster-yes --cluster-pipeline 5 \
  >"$TMP/reshard.log" 2>&1 || fail "redis-cli --cluster reshard failed: $(tail -n 3 "$TMP/reshard.log")"
took=$(echo "$(date +%s.%N) - $started" | bc)
kill -0 "$run_pid" 2>/dev/null || fail "the phase ended before the reshard did (${took} s): it did not run under load"
rc=0; wait "$run_pid" || rc=$?
expect_eq "$rc" 0 "run exit code"
after=$(slots_of "$to")
expect_eq "$after" $((before + 2000)) "slots served by $to after the reshard"
s=$TMP/res/summary.json
ok=$(jq '[.phases[1].ops[].ok] | add' "$s")
errors=$(jq '[.phases[1].ops[].errors // {} | .[]] | add // 0' "$s")
retries=$(jq '[.phases[1].ops[].retries // 0] | add' "$s")
expect_eq "$errors" 0 "operations that failed while slots moved"
[ "$ok" -gt 15000 ] || fail "only $ok operations in the mix phase"
expect_eq "$(redis_cluster_count rs)" 20000 "keys after the reshard"
cat "$TMP/res/report.md"
pass "2000 slots moved from master $from to $to in ${took} s under load: $ok ok, 0 errors ($retries retries), 20000 keys"

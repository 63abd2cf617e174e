#!/usr/bin/env bash
# append's history checks (docs/consistency.md) through a Patroni primary
# kill, on real servers: the checker finds no anomaly where none can be,
# and says what asynchronous replication lost.
# - Synchronous replication (patroni.sh's default): 8 workers at 1,000
#   transactions/s for 24 s, the leader killed 3 s in, Patroni promotes the
#   synchronous standby (ttl 10 s). 24 s, not 16: beside another test the
#   promotion came 10.2 s after the kill and the workers' reconnects found
#   the new primary after the 16 s phase had ended. 0 lost appends and 0
#   incompatible orders (the plan's expectations: exit 0), and `stampede check` reaches
#   the same from history.jsonl alone; history.json is one JSON array.
# - Then the killed node back, synchronous_mode off, and the same plan on
#   the new leader: whatever the check finds is printed (an async standby
#   may miss the last commits the leader acknowledged: lost appends).
source "$(dirname "$0")/../lib.sh"
start_patroni

# Why Patroni took long to promote, from its own words: each node's
# election lines and etcd's slow requests.
why_no_failover() {
  local f
  for f in "$PT_DIR"/node*/patroni.log; do
    echo "== $f (the election)" >&2
    { grep -E 'maximum replication lag|My timeline|is ahead|still alive|DCS|promoted|TTL lock|Member ' "$f" || true; } |
      tail -12 | cut -c1-220 >&2
  done
  echo "== etcd: $(cat "$PT_DIR"/etcd*/etcd.log | grep -c 'took too long' || true) slow requests" >&2
}

run_append() {  # NAME: kills the current leader 3 s into a 24 s append phase
  local name=$1 leader
  leader=$("$ROOT/deploy/local/patroni.sh" leader "$PT_DIR") || fail "$name: no leader"
  killed=$leader
  cat >"$TMP/$name-agent.yaml" <<YAML
nodes:
  primary:
    command:
      kill: [$ROOT/deploy/local/patroni.sh, kill-node, $PT_DIR, "$leader"]
      start: [$ROOT/deploy/local/patroni.sh, start-node, $PT_DIR, "$leader"]
YAML
  cat >"$TMP/$name.yaml" <<YAML
name: append-$name
target:
  driver: postgres
  endpoints: [127.0.0.1:$PT_BASE, 127.0.0.1:$((PT_BASE + 1)), 127.0.0.1:$((PT_BASE + 2))]
  session: read-write
  user: stampede
  password_env: STAMPEDE_PASSWORD
  database: bench
  op_timeout: 2s
  connect_timeout: 2s
phases:
  - {name: append, workload: append, workers: 8, rate: 1000, duration: 24s}
faults:
  - {at: append+3s, action: kill, node: primary}
expect:
  phases: {append: ["anomalies.lost == 0", "anomalies.incompatible_order == 0"]}
YAML
  rc=0
  "$STAMPEDE" run "$TMP/$name.yaml" --agent-config "$TMP/$name-agent.yaml" --results "$TMP/$name" \
    >"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
  s=$TMP/$name/summary.json
  [ -f "$s" ] || fail "$name: no summary.json (exit $rc): $(tail -3 "$TMP/$name.err")"
  expect_eq "$(jq -c '[.faults[0] | .action, .ok]' "$s")" '["kill",true]' "$name: the kill"
  now=$("$ROOT/deploy/local/patroni.sh" leader "$PT_DIR") || { why_no_failover; fail "$name: no leader after the run"; }
  [ "$now" != "$leader" ] || fail "$name: node $leader still leads"
  txns=$(jq '.phases[0].anomalies.history.transactions' "$s")
  [ "$txns" -gt 4000 ] || { why_no_failover; fail "$name: only $txns transactions checked"; }
  [ "$(jq '.phases[0].anomalies.history.final_keys' "$s")" -gt 0 ] || fail "$name: no final reads"
  "$STAMPEDE" check "$TMP/$name" >"$TMP/$name.check" 2>&1 || check_rc=$?
  grep -q "summary.json: the same" "$TMP/$name.check" || fail "$name: stampede check: $(cat "$TMP/$name.check")"
  found=$(jq -c '.phases[0].anomalies.by_kind' "$s")
  echo "$name: leader $leader killed; $txns transactions, anomalies $found; exit $rc"
  sed -n 1,4p "$TMP/$name.check"
}

check_rc=0
run_append sync
expect_eq "$rc" 0 "sync: exit code (lost == 0, incompatible_order == 0)"
expect_eq "$(jq '.phases[0].anomalies.by_kind.lost // 0' "$s")" 0 "sync: lost appends"
expect_eq "$(jq '.phases[0].anomalies.by_kind.incompatible_order // 0' "$s")" 0 "sync: incompatible orders"
expect_eq "$check_rc" "$([ "$(jq '.phases[0].anomalies.total' "$s")" = 0 ] && echo 0 || echo 4)" "sync: check's exit code"
jq -e 'type == "array" and length > 8000' "$TMP/sync/history.json" >/dev/null || fail "history.json is not the array"
sync_found=$found

"$ROOT/deploy/local/patroni.sh" start-node "$PT_DIR" "$killed" >/dev/null || fail "node $killed did not start again"
"$ROOT/deploy/local/patroni.sh" wait-members "$PT_DIR" 3 || fail "the killed node did not rejoin"
"$ROOT/deploy/local/patroni.sh" replication "$PT_DIR" async || fail "synchronous_mode could not be turned off"
check_rc=0
run_append async
pass "append through a primary kill: synchronous $sync_found (0 lost, 0 incompatible); asynchronous $found"

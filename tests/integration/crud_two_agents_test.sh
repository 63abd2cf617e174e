#!/usr/bin/env bash
# A coordinator process and two agent processes run a crud plan on a real
# database; every insert reported ok is in the database, both agents worked,
# and the agents' own read-back (check_writes) found every one. On Redis,
# a server that evicts keys loses acknowledged writes: the read-back counts
# exactly those, names some, and the verdict fails.
source "$(dirname "$0")/../lib.sh"
driver=${1:?postgres|mysql|redis}
start_db "$driver"
start_coordinator
start_agent a1
start_agent a2

cat >"$TMP/plan.yaml" <<YAML
name: crud-$driver
seed: 11
$(target_yaml "$driver")
agents: {min: 2, wait: 30s}
phases:
  - name: insert
    workload: crud
    workers: 8
    ops: 3000
    check_writes: true
    params: {reset: true, table: it_crud}
  - name: mixed
    workload: crud
    workers: 4
    duration: 3s
    params: {insert: 0, select: 3, update: 1, keys: 3000, table: it_crud}
YAML
"$STAMPEDE" validate "$TMP/plan.yaml" >/dev/null
"$STAMPEDE" run "$TMP/plan.yaml" --coordinator "127.0.0.1:$COORD_PORT" --results "$TMP/local" >"$TMP/run.out" \
  2>"$TMP/run.err" || fail "run exited $?"
grep -q "| insert | 3000 |" "$TMP/run.out" || fail "report table missing from run output"
grep -q "^\[ *[0-9.]*s\] mixed" "$TMP/run.out" || fail "no live progress line for the mixed phase"

dir=$(summary_of "$COORD_RESULTS")
s=$dir/summary.json
for f in plan.yaml journal.jsonl summary.json timeline.csv report.md; do
  [ -s "$dir/$f" ] || fail "results file $f missing"
  # --results with --coordinator: the same files on the submitting side
  cmp -s "$dir/$f" "$TMP/local/$f" || fail "--results $TMP/local: $f differs from the coordinator's or is missing"
done
grep -q "^results: $TMP/local (copied from $dir on the coordinator)" "$TMP/run.out" \
  || fail "the run does not say where the results were copied: $(grep results: "$TMP/run.out")"
grep -q "$STAMPEDE_PASSWORD" "$dir"/* && fail "the password leaked into results"
ok=$(jq '.phases[0].ops[] | select(.name=="insert") | .ok' "$s")
rows=$(db_count "$driver" it_crud | tr -d ' ')
expect_eq "$ok" 3000 "insert ok in summary.json"
expect_eq "$rows" "$ok" "rows in the database vs insert ok"
expect_eq "$(jq '.agents | length' "$s")" 2 "agents in summary"
for a in a1 a2; do
  n=$(jq ".phases[0].agent_ops.$a // 0" "$s")
  [ "$n" -gt 0 ] || fail "agent $a did not contribute to the insert phase"
done
expect_eq "$(jq -c '.phases[0].writes | [.acked, .lost, .unchecked, .ambiguous]' "$s")" "[3000,0,0,0]" \
  "read-back: acknowledged, lost, unchecked, ambiguous"
grep -q "^Acknowledged writes: 3000 inserts acknowledged, every one read back (0 lost)." "$dir/report.md" ||
  fail "report.md does not show the read-back: $(grep "Acknowledged" "$dir/report.md")"
sel=$(jq '.phases[1].ops[] | select(.name=="select") | .ok' "$s")
[ "$sel" -gt 0 ] || fail "no selects in the mixed phase"
expect_eq "$(jq '.ok' "$s")" true "run ok"
lines=$(grep -c '"type":"second"' "$dir/journal.jsonl")
[ "$lines" -ge 3 ] || fail "journal has only $lines second lines"

stop_daemon "$AGENT_PID_a1" "agent a1"
stop_daemon "$AGENT_PID_a2" "agent a2"
pass "crud on $driver: $ok inserts ok = $rows rows; agents a1 $(jq .phases[0].agent_ops.a1 "$s"), a2 $(jq .phases[0].agent_ops.a2 "$s")"

# agents.split: capacity. Two agents declaring capacity 300 and 100 take 6
# and 2 of the 8 workers, and so 3/4 and 1/4 of an ops-counted phase.
if [ "$driver" = redis ]; then
  start_agent big --capacity 300
  start_agent small --capacity 100
  cat >"$TMP/split.yaml" <<YAML
name: split-by-capacity
$(target_yaml "$driver")
agents: {min: 2, wait: 30s, split: capacity}
phases:
  - {name: insert, workload: crud, workers: 8, ops: 4000, params: {reset: true, table: it_split}}
YAML
  "$STAMPEDE" run "$TMP/split.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/split.out" 2>"$TMP/split.err" \
    || fail "split run exited $?: $(tail -n 2 "$TMP/split.err")"
  s=$(summary_of "$COORD_RESULTS")/summary.json
  expect_eq "$(jq -c '.phases[0].agent_ops' "$s")" '{"big":3000,"small":1000}' "operations per agent"
  pass "agents.split: capacity: 300 and 100 of capacity did 3000 and 1000 operations"

  # Acknowledged writes that the database drops: Redis evicting random keys
  # past maxmemory. The read-back must count each one it did not find, and
  # the expectation fails the run (exit 4). Redis may still evict a few keys
  # after they were read back (the read-back's own connections take memory,
  # and one agent reads while the other still inserts), so the keys left
  # can be a few fewer than acknowledged - lost, never more.
  rcli() { redis-cli -p "$RD_PORT" -a "$STAMPEDE_PASSWORD" --no-auth-warning "$@"; }
  rcli config set maxmemory 3mb >/dev/null
  rcli config set maxmemory-policy allkeys-random >/dev/null
  cat >"$TMP/evict.yaml" <<YAML
name: evicting
$(target_yaml "$driver")
agents: {min: 2, wait: 30s}
phases:
  - {name: insert, workload: crud, workers: 8, ops: 30000, check_writes: true,
     params: {reset: true, table: it_evict, value_size: 200}}
expect:
  phases: {insert: ["lost_writes == 0"]}
YAML
  rc=0
  "$STAMPEDE" run "$TMP/evict.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/evict.out" 2>"$TMP/evict.err" || rc=$?
  rcli config set maxmemory 0 >/dev/null
  expect_eq "$rc" 4 "exit code of a run whose acknowledged writes were lost"
  dir=$(summary_of "$COORD_RESULTS")
  s=$dir/summary.json
  keys=$(db_count redis it_evict | tr -d ' ')
  acked=$(jq '.phases[0].writes.acked' "$s")
  lost=$(jq '.phases[0].writes.lost' "$s")
  expect_eq "$acked" 30000 "acknowledged inserts"
  [ "$lost" -gt 1000 ] || fail "expected thousands of evicted keys, the read-back found $lost lost ($keys keys left)"
  after=$((acked - keys - lost))
  # Redis at maxmemory goes on evicting while the read-back runs (its own
  # connections take memory): a key read back may be gone by the count.
  # That drift was 0-59 keys in runs here; 1% of the inserts bounds it.
  [ "$after" -ge 0 ] && [ "$after" -le 300 ] ||
    fail "lost $lost, acknowledged $acked, keys left $keys: expected lost <= acknowledged - keys left <= lost + 300"
  [ "$after" = 0 ] || echo "Redis evicted $after more keys after they were read back (the read-back's connections take memory too)"
  expect_eq "$(jq '.phases[0].writes.lost_ids | length' "$s")" 20 "lost ids named"
  for id in $(jq '.phases[0].writes.lost_ids[]' "$s" | head -n 5); do
    expect_eq "$(rcli exists "it_evict:$id")" 0 "key it_evict:$id named lost"
  done
  grep -q "Acknowledged writes: 30000 inserts acknowledged, \*\*$lost lost\*\*" "$dir/report.md" ||
    fail "report.md does not name the lost writes: $(grep "Acknowledged" "$dir/report.md")"
  grep -q "lost_writes == 0" "$TMP/evict.err" || fail "stderr does not name the failed expectation"
  pass "check_writes: $lost of $acked acknowledged inserts evicted by Redis, found and counted ($keys keys left); exit 4"
fi

stop_daemon "$COORD_PID" coordinator


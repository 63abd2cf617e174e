#!/usr/bin/env bash
# A fourth PostgreSQL member joins a 3-node Patroni cluster under load:
# Patroni clones the leader into its empty data directory (pg_basebackup),
# then it streams. The agent runs `join` and `leave` from its own config
# (deploy/local/patroni.sh). The health probe reads each member's role,
# state and lag from /cluster once a second: a member holds a current copy
# when it runs within 1 MiB of the leader's WAL. Checked: time to balanced
# (four current copies, held), the peak lag until then, the joiner's disk
# (about the data set), after the leave three members again, and no
# acknowledged insert lost.
source "$(dirname "$0")/../lib.sh"
start_patroni
cat >"$TMP/agent.yaml" <<YAML
nodes:
  pg4:
    command:
      join: [$ROOT/deploy/local/patroni.sh, join, $PT_DIR, "4"]
      leave: [$ROOT/deploy/local/patroni.sh, leave, $PT_DIR, "4"]
    data_dir: $PT_DIR/node4/data
fault_timeout: 2m
YAML
# Data to copy: about 20 MB written before the run, so that the base
# backup takes a measurable time.
patroni_sql "CREATE TABLE ballast AS SELECT g AS id, repeat('x', 1000) AS pad FROM generate_series(1, 20000) g" \
  >/dev/null
cat >"$TMP/plan.yaml" <<YAML
name: patroni-join
target: {driver: postgres, endpoints: [127.0.0.1:$PT_BASE, 127.0.0.1:$((PT_BASE + 1)), 127.0.0.1:$((PT_BASE + 2))],
         session: read-write, user: stampede, password_env: STAMPEDE_PASSWORD, database: bench, op_timeout: 3s,
         health: {kind: patroni, nodes: 3, urls: [http://127.0.0.1:$((PT_BASE + 11)), http://127.0.0.1:$((PT_BASE + 12)),
                                                   http://127.0.0.1:$((PT_BASE + 13))]}}
recovery: {baseline: 3s, hold: 2s}
phases:
  - {name: load, workload: crud, workers: 8, rate: 300, duration: 30s, check_writes: true,
     params: {insert: 1, select: 1, table: pj, reset: true, value_size: 200}}
faults:
  - {at: load+4s, action: join, node: pg4}
  - {at: load+20s, action: leave, node: pg4}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" \
  >"$TMP/run.out" 2>"$TMP/run.err" || fail "run exited $?: $(tail -3 "$TMP/run.err")"
s=$TMP/res/summary.json
for k in 0 1; do
  expect_eq "$(jq ".faults[$k].ok" "$s")" true "fault $k ($(jq -r ".faults[$k].action" "$s")) took effect"
  [ "$(jq ".faults[$k].rebalance.time_to_balanced_s" "$s")" != null ] ||
    fail "fault $k: not balanced: $(jq -c ".faults[$k].rebalance" "$s")"
done
expect_eq "$(jq -c '[.faults[0].rebalance.nodes_before, .faults[0].rebalance.nodes_after]' "$s")" "[3,4]" \
  "members with a current copy before and after the join"
expect_eq "$(jq -c '[.faults[1].rebalance.nodes_before, .faults[1].rebalance.nodes_after]' "$s")" "[4,3]" \
  "members with a current copy before and after the leave"
states=$(jq -r -s '[.[] | select(.type == "health") | .shares // [] | .[] | select(.node == "node4") | .state]
                   | unique | join(", ")' "$TMP/res/journal.jsonl")
echo "node4's states seen: $states"
disk=$(jq '.faults[0].rebalance.joined_disk_bytes' "$s")
[ "$disk" != null ] && [ "$disk" -gt 20000000 ] || fail "the joiner's disk: $disk bytes (the data set is over 20 MB)"
lag=$(jq '.faults[0].rebalance.peak_lag_bytes' "$s")
[ "$lag" != null ] || fail "no replication lag reported: $(jq -c '.faults[0].rebalance' "$s")"
sed -n '/## Faults and recovery/,/## Nodes/p' "$TMP/res/report.md" | grep -E "^###|balanced|disk|lag|lowest"
expect_eq "$(jq '.phases[0].writes.lost' "$s")" 0 "acknowledged writes lost"
[ "$(jq '.phases[0].writes.acked' "$s")" -gt 1000 ] || fail "acknowledged inserts: $(jq -c '.phases[0].writes' "$s")"
r1() { jq "($1) * 10 | round / 10" "$s"; }
pass "patroni join by base backup: 4 current copies after $(r1 .faults[0].rebalance.time_to_balanced_s) s" \
  "(its command $(r1 '.faults[0].done_t_s - .faults[0].t_s') s), joiner disk $((disk / 1000000)) MB," \
  "peak lag $lag bytes; leave: 3 after $(r1 .faults[1].rebalance.time_to_balanced_s) s; node4 seen: $states"

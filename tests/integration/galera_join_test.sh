#!/usr/bin/env bash
# A fourth Galera node joins a 3-node cluster under load, by state transfer
# (rsync SST from node1, which is desynced as the donor meanwhile), from the
# agent's own config (deploy/local/galera.sh join); later it leaves. The
# health probe asks every member for its state once a second (wsrep_
# incoming_addresses, wsrep_local_state_comment): the report gives time to
# balanced (every member Synced, one more than before), the joiner's disk
# (about the data set), the throughput around the transfer, and after the
# leave, three members again. The fourth node's endpoint is in the plan as
# `joining`: the workers whose endpoint it is start on the others and move
# to it once it answers, so the report says when it served its first
# operation and, after the leave, its last.
source "$(dirname "$0")/../lib.sh"
start_galera
cat >"$TMP/agent.yaml" <<YAML
nodes:
  node4:
    command:
      join: [$ROOT/deploy/local/galera.sh, join, $GA_DIR, "4"]
      leave: [$ROOT/deploy/local/galera.sh, leave, $GA_DIR, "4"]
    data_dir: $GA_DIR/node4/data
fault_timeout: 3m
YAML
node4=127.0.0.1:$((GA_BASE + 3))
cat >"$TMP/plan.yaml" <<YAML
name: galera-join
target: {driver: mysql, flavor: galera, endpoints: [$GA_ENDPOINTS, $node4], joining: [$node4], user: stampede,
         password_env: STAMPEDE_PASSWORD, database: bench, op_timeout: 3s,
         health: {kind: galera, nodes: 3}}
recovery: {baseline: 3s, hold: 2s}
phases:
  - {name: load, workload: crud, workers: 8, rate: 300, duration: 38s,
     params: {insert: 1, select: 1, table: gj, reset: true, value_size: 200}}
faults:
  - {at: load+5s, action: join, node: node4}
  - {at: load+30s, action: leave, node: node4}
expect:
  faults: {join: ["first_op < 60s"], leave: ["last_op < 30s"]}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" \
  >"$TMP/run.out" 2>"$TMP/run.err" || fail "run exited $?"
s=$TMP/res/summary.json
# The join takes 7 s on an idle machine and took 12.8 s under CI's load
# (two tests at once; rsync SST's own start-up waits): 25 s before the leave
# leaves room for that and the 2 s hold of four Synced members.
[ "$(jq '.faults[0].done_t_s < .faults[1].t_s' "$s")" = true ] ||
  fail "the join was still running when the leave was asked for (a machine too busy for this test)"
for k in 0 1; do
  expect_eq "$(jq ".faults[$k].ok" "$s")" true "fault $k ($(jq -r ".faults[$k].action" "$s")) took effect"
  [ "$(jq ".faults[$k].rebalance.time_to_balanced_s" "$s")" != null ] ||
    fail "fault $k: not balanced: $(jq -c ".faults[$k].rebalance" "$s")"
done
expect_eq "$(jq -c '[.faults[0].rebalance.nodes_before, .faults[0].rebalance.nodes_after]' "$s")" "[3,4]" \
  "Synced members before and after the join"
expect_eq "$(jq -c '[.faults[1].rebalance.nodes_before, .faults[1].rebalance.nodes_after]' "$s")" "[4,3]" \
  "Synced members before and after the leave"
disk=$(jq '.faults[0].rebalance.joined_disk_bytes' "$s")
[ "$disk" != null ] && [ "$disk" -gt 10000000 ] || fail "the joiner's disk: $disk bytes"
states=$(jq -r -s '[.[] | select(.type == "health") | .shares // [] | .[].state] | unique | join(", ")' \
  "$TMP/res/journal.jsonl")
echo "member states seen: $states"
grep -q "Synced" <<<"$states" || fail "no member was ever Synced: $states"
# The new node served its first operation once Synced (its endpoint refuses
# statements while it joins), and its last within the leave.
expect_eq "$(jq -r '.faults[0].rebalance.first_op_endpoint' "$s")" "$node4" "the endpoint that served first after the join"
expect_eq "$(jq -r '.faults[1].rebalance.last_op_endpoint' "$s")" "$node4" "the endpoint that served last after the leave"
first=$(jq '.faults[0].rebalance.first_op_s' "$s"); last=$(jq '.faults[1].rebalance.last_op_s' "$s")
[ "$(jq '.faults[0].rebalance.first_op_s >= 0 and .faults[1].rebalance.last_op_s >= 0' "$s")" = true ] ||
  fail "first operation $first s, last $last s"
served=$(jq ".phases[0].endpoints[\"$node4\"].ok" "$s")
[ "$served" -gt 100 ] || fail "node4 served $served operations"
dip=$(jq '.faults[0].throughput_dip' "$s")
sed -n '/## Faults and recovery/,/## Nodes/p' "$TMP/res/report.md" | grep -E "^###|balanced|moved|disk|lowest|where|operation"
pass "galera join: balanced (4 Synced) after $(jq .faults[0].rebalance.time_to_balanced_s "$s") s, its command $(jq '.faults[0].done_t_s - .faults[0].t_s' "$s") s, joiner disk $((disk / 1000000)) MB, lowest throughput $dip of baseline, first operation on it $first s after asking ($served in all); leave: last operation $last s after asking, 3 Synced after $(jq .faults[1].rebalance.time_to_balanced_s "$s") s; states seen: $states"

#!/usr/bin/env bash
# Rebalancing measured on a real Redis Cluster (3 masters, 3 replicas):
# under an open-loop insert/select load with check_writes, a fourth master
# joins (redis-cli --cluster add-node, then rebalance onto the empty
# master) and later leaves (rebalance with weight 0, del-node), each from
# the agent's own config. The health probe's CLUSTER NODES says where the
# slots are once a second: the report gives, per change, time to balanced,
# the slots and keys that moved, and the shares before and after (about
# 5461 per master to about 4096, and back); no acknowledged write is lost
# and nothing the schedule owed is missed while the slots move (at most
# the backlog at the deadline). Operations are counted by the master that
# answered: the new one's first after the join and last after the leave. The
# live line says how far each move is, up to 100%. report.html, drawn by headless
# Chromium, charts the slots per master, the new one among them.
source "$(dirname "$0")/../lib.sh"
start_redis_cluster
new=$((RC_BASE + 6))
cat >"$TMP/agent.yaml" <<YAML
nodes:
  redis-new:
    command:
      join: [$ROOT/deploy/local/redis-cluster.sh, join, $RC_DIR, "$new"]
      leave: [$ROOT/deploy/local/redis-cluster.sh, leave, $RC_DIR, "$new"]
fault_timeout: 2m
YAML
cat >"$TMP/plan.yaml" <<YAML
name: redis-cluster-scale
target: {driver: redis, flavor: redis-cluster, endpoints: [$RC_ENDPOINTS],
         password_env: STAMPEDE_PASSWORD, op_timeout: 2s, health: {kind: redis-cluster}}
retry: {max_attempts: 5, backoff: 50ms}
recovery: {baseline: 3s, hold: 2s, balance_tolerance: 0.1}
phases:
  - {name: load, workload: crud, workers: 16, rate: 2000, duration: 50s, check_writes: true,
     params: {insert: 1, select: 1, table: sc, reset: true}}
faults:
  - {at: load+3s, action: join, node: redis-new}
  - {at: load+33s, action: leave, node: redis-new}
expect:
  phases: {load: ["lost_writes == 0", "missed <= 5"]}
  faults: {join: ["time_to_balanced < 30s"], leave: ["time_to_balanced < 30s"]}
YAML
rc=0
# Prometheus's view of the move: /metrics scraped every half second.
http=$(free_port)
(while sleep 0.5; do curl -fsS "http://127.0.0.1:$http/metrics" 2>/dev/null | grep "^stampede_move_progress_ratio" || true; done) \
  >"$TMP/move-gauge.txt" &
scraper=$!
on_exit "kill $scraper 2>/dev/null"
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" --http "127.0.0.1:$http" \
  >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
kill "$scraper" 2>/dev/null || true
s=$TMP/res/summary.json
# The join gets 30 s before the leave is asked for: it takes about 8 s on
# an idle machine, and was seen to take 23 s with the machine's two cores
# busy besides. A machine slower than that says so here, not as "not
# balanced".
[ "$(jq '.faults[0].done_t_s < .faults[1].t_s' "$s")" = true ] ||
  fail "the join's command was still running when the leave was asked for (a machine too busy for this test)"
[ "$rc" = 0 ] || fail "run exited $rc"
# Each change must be over before the next: the test is about the move,
# not about a machine too busy to make it in time.
for k in 0 1; do
  took=$(jq ".faults[$k].done_t_s - .faults[$k].t_s" "$s")
  echo "fault $k ($(jq -r ".faults[$k].action" "$s")): its command took $took s"
  expect_eq "$(jq ".faults[$k].ok" "$s")" true "fault $k ($(jq -r ".faults[$k].action" "$s")) took effect"
  [ "$(jq ".faults[$k].rebalance.time_to_balanced_s" "$s")" != null ] ||
    fail "fault $k: not balanced: $(jq -c ".faults[$k].rebalance" "$s")"
  moved=$(jq ".faults[$k].rebalance.moved" "$s")
  awk -v m="$moved" 'BEGIN { exit !(m >= 3600 && m <= 4700) }' || fail "fault $k moved $moved slots, not about 4096"
  [ "$(jq ".faults[$k].rebalance.moved_keys" "$s")" -gt 0 ] || fail "fault $k moved no keys"
done
expect_eq "$(jq -c '[.faults[0].rebalance.nodes_before, .faults[0].rebalance.nodes_after]' "$s")" "[3,4]" \
  "masters before and after the join"
expect_eq "$(jq -c '[.faults[1].rebalance.nodes_before, .faults[1].rebalance.nodes_after]' "$s")" "[4,3]" \
  "masters before and after the leave"
expect_eq "$(jq '[.faults[0].rebalance.shares_after[].share | select(. < 3686 or . > 4506)] | length' "$s")" 0 \
  "every master within 10% of 4096 slots after the join"
expect_eq "$(jq '.phases[0].writes.lost' "$s")" 0 "acknowledged writes lost"
# Operations are counted per master that answered, the new one included:
# when it served its first after the join and its last after the leave.
expect_eq "$(jq -r '.faults[0].rebalance.first_op_endpoint' "$s")" "127.0.0.1:$new" "the master that served first after the join"
expect_eq "$(jq -r '.faults[1].rebalance.last_op_endpoint' "$s")" "127.0.0.1:$new" "the master that served last after the leave"
first_op=$(jq '.faults[0].rebalance.first_op_s * 100 | round / 100' "$s")
last_op=$(jq '.faults[1].rebalance.last_op_s * 100 | round / 100' "$s")
# Nothing the schedule owed is missed while the slots move. An operation
# due in the last milliseconds, while its worker still waits on the one
# before, is the backlog at the deadline: missed by definition (the phase
# never runs past it), and counted in the second it was due, the one that
# ends at the deadline (phase_t is a second's end), or in the sliver after
# it. Seen in fresh-clone runs, 1 of 100,000 owed each time.
missed=$(jq '.phases[0].missed' "$s")
early=$(jq -s '(map(select(.type == "phase_end"))[0].duration_s | floor) as $deadline |
  [.[] | select(.type == "second" and .phase_t < $deadline) | .ops[] | .missed // 0] | add // 0' "$TMP/res/journal.jsonl")
expect_eq "$early" 0 "operations missed before the phase's last second (of $missed in all)"
expect_eq "$(jq '.phases[0].ops | map(.count) | add' "$s")" $((100000 - missed)) "operations done (of 100,000 owed, $missed missed)"
acked=$(jq '.phases[0].writes.acked' "$s")
[ "$acked" -gt 10000 ] || fail "only $acked acknowledged inserts"
grep -q "| time to balanced (every serving node within tolerance of an even share, held) | [0-9.]* s |" \
  "$TMP/res/report.md" || fail "report.md has no time to balanced"
grep -q "^### join redis-new at load+3.0 s (its command took" "$TMP/res/report.md" ||
  fail "report.md: $(grep '^### join' "$TMP/res/report.md")"
# The live line says how far each move is: a percent that never falls,
# ending at 100%, of about 4096 slots.
for action in join leave; do
  sed -n "s/.*  $action redis-new \([0-9]*\)% (\([0-9,]*\) of \([0-9,]*\) slots moved.*/\1 \3/p" "$TMP/run.out" \
    >"$TMP/$action.moves"
  [ -s "$TMP/$action.moves" ] || fail "no live line says how far the $action is: $(grep -m 2 "$action" "$TMP/run.out")"
  awk -v a="$action" '{ gsub(",", "", $2); if ($1 < last) { print a ": the percent fell to " $1; bad = 1 } last = $1
      if ($2 < 3600 || $2 > 4700) { print a ": of " $2 " slots"; bad = 1 } }
    END { if (last != 100) { print a ": ended at " last "%"; bad = 1 } exit bad }' "$TMP/$action.moves" >"$TMP/$action.bad" ||
    fail "$(cat "$TMP/$action.bad")"
  echo "$action: $(wc -l <"$TMP/$action.moves") live lines with the move, $(head -n 1 "$TMP/$action.moves" | cut -d' ' -f1)% to 100%"
done
# Prometheus had the same: the move's ratio rising to 1, for each.
for action in join leave; do
  grep -F "{action=\"$action\",node=\"redis-new\"}" "$TMP/move-gauge.txt" | awk '{ print $2 }' >"$TMP/$action.gauge"
  awk '$1 < 1 { part = 1 } { last = $1 } END { exit !(part && last == 1) }' "$TMP/$action.gauge" ||
    fail "stampede_move_progress_ratio for the $action: $(sort -u "$TMP/$action.gauge" | tr '\n' ' ')"
  echo "$action: stampede_move_progress_ratio scraped $(wc -l <"$TMP/$action.gauge") times, $(head -n 1 "$TMP/$action.gauge") to 1"
done
nodes=$(jq -s '[.[] | select(.type == "health") | .shares // [] | length] | max' "$TMP/res/journal.jsonl")
expect_eq "$nodes" 4 "most masters the health lines saw"
grep -qF "$new@" <(redis-cli -p "$RC_BASE" -a "$STAMPEDE_PASSWORD" --no-auth-warning cluster nodes) &&
  fail "the node that left is still in the cluster"
# The share chart in report.html, drawn by Chromium: one series per master
# the health lines saw, the new one among them (a screenshot is kept).
ARTIFACTS=${STAMPEDE_ARTIFACTS:-$ROOT/build/test-artifacts}
mkdir -p "$ARTIFACTS"
chrome=(chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=5000
        --user-data-dir="$TMP/chrome")
"${chrome[@]}" --dump-dom "file://$TMP/res/report.html" >"$TMP/report-dom.html" 2>"$TMP/chrome.log" ||
  fail "chromium on report.html failed: $(tail -n 3 "$TMP/chrome.log")"
grep -q '<div class="card" id="shares-card"><h2>Data by node <small id="shares-unit">slots per node</small>' \
  "$TMP/report-dom.html" || fail "report.html shows no share chart"
expect_eq "$(grep -o 'class="uplot' "$TMP/report-dom.html" | wc -l)" 5 "charts in report.html (four and the shares)"
grep -q "127.0.0.1:$new" "$TMP/report-dom.html" || fail "the share chart does not name the node that joined"
"${chrome[@]}" --screenshot="$ARTIFACTS/report-scale-out.png" --window-size=1600,2600 "file://$TMP/res/report.html" \
  >>"$TMP/chrome.log" 2>&1 || true
sed -n '/## Faults and recovery/,/## Notes/p' "$TMP/res/report.md" | grep -E "^###|balanced|moved|where"
pass "join: its first operation $first_op s after, balanced after $(jq '.faults[0].rebalance.time_to_balanced_s * 100 | round / 100' "$s") s, $(jq .faults[0].rebalance.moved "$s") slots and $(jq .faults[0].rebalance.moved_keys "$s") keys moved; leave: its last operation $last_op s after, balanced after $(jq '.faults[1].rebalance.time_to_balanced_s * 100 | round / 100' "$s") s, $(jq .faults[1].rebalance.moved "$s") slots and $(jq .faults[1].rebalance.moved_keys "$s") keys moved; $acked acknowledged inserts, none lost; $missed missed at the deadline"

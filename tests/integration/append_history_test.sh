#!/usr/bin/env bash
# An append phase's history is whole at full speed, on a real PostgreSQL:
# 12 workers unthrottled on 3 keys with lists up to 400 long, one agent
# (6,500 transactions a second here; before a second's history could
# follow in parts, a third of these events were dropped). history.jsonl
# has an invocation and a completion for every transaction the summary
# counts and for every final read, each worker's events go on to the
# phase's end, and none is missing or out of order.
# The same on Redis, where a transaction is one script: 11,000 a second
# here on one agent, lists over 400 long, every event in history.jsonl.
# Then an agent process killed mid-phase takes the events it held with it:
# the result is unknown, not "0 anomalies", the expectation on anomalies
# fails (exit 4) and `stampede check` exits 4 too.
source "$(dirname "$0")/../lib.sh"
start_db postgres
cat >"$TMP/plan.yaml" <<YAML
name: append-history
$(target_yaml postgres)
expect:
  phases: {append: ["anomalies == 0"]}
phases:
  - {name: append, workload: append, workers: 12, duration: 6s, params: {keys: 3, key_appends: 400}}
YAML
# The run's history whole: no event missing, every counted transaction in
# history.jsonl with its invocation and completion, each worker's events
# going on to the phase's end. Sets txns, finals, longest (list read).
expect_whole() {  # RESULTS
  local s=$1/summary.json h=$1/history.jsonl history
  history=$(jq -c '.phases[0].anomalies.history' "$s")
  txns=$(jq '.transactions' <<<"$history") finals=$(jq '.final_keys' <<<"$history")
  expect_eq "$(jq '.missing' <<<"$history")" 0 "history events missing"
  expect_eq "$(jq -r '.note' <<<"$history")" "" "the history check's note"
  expect_eq "$(jq '.phases[0].ops | map(.count) | add' "$s")" "$txns" "transactions checked against those counted"
  expect_eq "$(wc -l <"$h")" "$((2 * (txns + finals)))" "history.jsonl lines (an invocation and a completion each)"
  # Every worker's last event comes within the phase's last second, not
  # seconds before it (where a full message used to cut the later workers).
  # One pass: each event's worker, time and longest list read.
  jq -r 'select(.final != true) | "\(.process) \(.time) \([.value[] | select(.[0] == "r") | (.[2] // [] | length)] | max // 0)"' \
    "$h" | awk '{ if ($2 > last[$1]) last[$1] = $2; if ($2 > end) end = $2; if ($3 > longest) longest = $3 }
      END { early = ""; for (p in last) if (last[p] < end - 1e9) early = early " " p; print longest; print "[" early "]" }' \
    >"$TMP/events"
  longest=$(head -n 1 "$TMP/events")
  expect_eq "$(tail -n 1 "$TMP/events")" "[]" "workers whose events stop more than a second before the phase's end"
}
"$STAMPEDE" run "$TMP/plan.yaml" --http off --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" ||
  fail "run exited $?: $(tail -n 3 "$TMP/run.err")"
expect_whole "$TMP/res"
h=$TMP/res/history.jsonl
echo "whole at full speed: $txns transactions, $finals final reads"
pg="$txns transactions ($((txns / 6)) a second), $finals final reads, $(wc -l <"$h") events"

pg_endpoint=$DB_ENDPOINT
start_db redis
{ echo "name: append-history-redis"; target_yaml redis; sed -n '/^expect:/,$p' "$TMP/plan.yaml" | sed 's/duration: 6s/duration: 4s/'; } \
  >"$TMP/redis.yaml"
"$STAMPEDE" run "$TMP/redis.yaml" --http off --results "$TMP/redis" >"$TMP/redis.out" 2>"$TMP/redis.err" ||
  fail "run on Redis exited $?: $(tail -n 3 "$TMP/redis.err")"
expect_whole "$TMP/redis"
[ "$longest" -gt 100 ] || fail "the longest list read on Redis has $longest values"
expect_eq "$(jq '.phases[0].anomalies.total' "$TMP/redis/summary.json")" 0 "anomalies on Redis (every script is atomic)"
redis="$txns transactions ($((txns / 4)) a second), lists up to $longest long"
echo "whole on Redis: $redis"
DB_ENDPOINT=$pg_endpoint

start_coordinator
start_agent a1
start_agent a2
sed -e 's/^phases:/agents: {min: 2, on_loss: continue}\nphases:/' -e 's/duration: 6s/duration: 5s, rate: 400/' \
  "$TMP/plan.yaml" >"$TMP/loss.yaml"
"$STAMPEDE" run "$TMP/loss.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/loss.out" 2>"$TMP/loss.err" &
pid=$!
wait_for_line "$TMP/loss.out" "append" 150
sleep 1
kill -9 "$AGENT_PID_a2"
rc=0; wait "$pid" || rc=$?
expect_eq "$rc" 4 "exit code with an agent lost mid-phase and an expectation on anomalies"
dir=$(summary_of "$COORD_RESULTS")
grep -q "Consistency: unknown:\*\* agent a2 was lost mid-phase" "$dir/report.md" ||
  fail "report.md does not say the result is unknown: $(grep -i consistency "$dir/report.md")"
rc=0; "$STAMPEDE" check "$dir" >"$TMP/check.out" 2>&1 || rc=$?
expect_eq "$rc" 4 "stampede check on a history with an agent lost"
grep -q "unknown: agent a2 was lost mid-phase" "$TMP/check.out" || fail "stampede check: $(cat "$TMP/check.out")"
pass "append history whole at full speed: PostgreSQL $pg; Redis $redis; unknown after an agent was killed"

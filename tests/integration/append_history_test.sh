#!/usr/bin/env bash
# An append phase's history is whole at full speed, on a real PostgreSQL:
# 12 workers unthrottled on 3 keys with lists up to 400 long, one agent
# (6,500 transactions a second here; before a second's history could
# follow in parts, a third of these events were dropped). history.jsonl
# has an invocation and a completion for every transaction the summary
# counts and for every final read, each worker's events go on to the
# phase's end, and none is missing or out of order.
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
"$STAMPEDE" run "$TMP/plan.yaml" --http off --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" ||
  fail "run exited $?: $(tail -n 3 "$TMP/run.err")"
s=$TMP/res/summary.json h=$TMP/res/history.jsonl
history=$(jq -c '.phases[0].anomalies.history' "$s")
txns=$(jq '.transactions' <<<"$history") finals=$(jq '.final_keys' <<<"$history")
expect_eq "$(jq '.missing' <<<"$history")" 0 "history events missing"
expect_eq "$(jq -r '.note' <<<"$history")" "" "the history check's note"
expect_eq "$(jq '.phases[0].ops | map(.count) | add' "$s")" "$txns" "transactions checked against those counted"
expect_eq "$(wc -l <"$h")" "$((2 * (txns + finals)))" "history.jsonl lines (an invocation and a completion each)"
# Every worker's last event comes within the phase's last second, not
# seconds before it (where a full message used to cut the later workers).
end=$(jq -s 'map(select(.final != true)) | map(.time) | max / 1e9' "$h")
jq -s --argjson last "$end" 'map(select(.final != true)) | group_by(.process) |
  map(select((map(.time) | max / 1e9) < $last - 1) | .[0].process)' -c "$h" >"$TMP/early"
expect_eq "$(cat "$TMP/early")" "[]" "workers whose events stop more than a second before the phase's end"
pass "append history whole at full speed: $txns transactions ($((txns / 6)) a second), $finals final reads, $(wc -l <"$h") events"

#!/usr/bin/env bash
# latency.hlog, read by a published HdrHistogram implementation: a run
# submitted to a coordinator daemon with --hdr-log writes it into the
# results (and the submitter's copy), and hdr-histogram-js (npm, pinned in
# tests/hdr/package-lock.json) decodes every line: per op, its total count
# equals summary.json's and its p99 agrees within the histograms'
# precision. `stampede report DIR --hdr-log` rebuilds the same file from the
# journal.
source "$(dirname "$0")/../lib.sh"
cp "$ROOT/tests/hdr/package.json" "$ROOT/tests/hdr/package-lock.json" "$ROOT/tests/hdr/decode.js" "$TMP/"
(cd "$TMP" && npm ci --no-audit --no-fund --silent) >"$TMP/npm.log" 2>&1 || fail "npm ci: $(tail -3 "$TMP/npm.log")"
start_db redis
start_coordinator
start_agent a1
cat >"$TMP/plan.yaml" <<YAML
name: hdr-log
$(target_yaml redis)
agents: {min: 1}
phases:
  - {name: mixed, workload: kv, workers: 8, rate: 3000, duration: 4s, params: {keys: 1000, read: 0.7}}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --coordinator "127.0.0.1:$COORD_PORT" --hdr-log --results "$TMP/local" \
  >"$TMP/run.out" 2>"$TMP/run.err" || fail "run exited $?"
dir=$(summary_of "$COORD_RESULTS")
s=$dir/summary.json
[ -s "$dir/latency.hlog" ] || fail "no latency.hlog in the coordinator's results"
cmp -s "$dir/latency.hlog" "$TMP/local/latency.hlog" || fail "the submitter's copy of latency.hlog differs"
head -n 1 "$dir/latency.hlog" | grep -qF "#[Histogram log format version 1.3]" || fail "not an HdrHistogram log"
grep -q "hdr_log: true" "$dir/plan.yaml" || fail "plan.yaml does not say report.hdr_log"
node "$TMP/decode.js" "$dir/latency.hlog" >"$TMP/decoded.json" 2>"$TMP/node.err" || fail "hdr-histogram-js: $(cat "$TMP/node.err")"
checked=""
for op in $(jq -r '.phases[0].ops[].name' "$s"); do
  want_count=$(jq ".phases[0].ops[] | select(.name == \"$op\") | .count" "$s")
  want_p99=$(jq ".phases[0].ops[] | select(.name == \"$op\") | .latency_us.p99 * 1000" "$s")
  got_count=$(jq ".\"mixed/$op\".count" "$TMP/decoded.json")
  got_p99=$(jq ".\"mixed/$op\".p99_ns" "$TMP/decoded.json")
  expect_eq "$got_count" "$want_count" "$op: count in latency.hlog (hdr-histogram-js) vs summary.json"
  # Both are within 1% of the true value (2 significant digits; stampede
  # reports a bucket's midpoint, hdr-histogram-js its highest value).
  awk -v a="$got_p99" -v b="$want_p99" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(d <= 0.01) }' ||
    fail "$op: p99 $got_p99 ns from latency.hlog vs $want_p99 ns in summary.json"
  checked+=" $op: $got_count ops, p99 $(awk -v a="$got_p99" 'BEGIN { printf "%.0f", a / 1000 }') µs (summary $(awk -v b="$want_p99" 'BEGIN { printf "%.0f", b / 1000 }') µs);"
done
[ -n "$checked" ] || fail "summary.json has no ops"
expect_eq "$(jq '."".count' "$TMP/decoded.json")" "$(jq '[.phases[0].ops[].count] | add' "$s")" \
  "the untagged lines (every op merged) vs summary.json"
cp "$dir/latency.hlog" "$TMP/first.hlog"
rm "$dir/latency.hlog"
"$STAMPEDE" report "$dir" --hdr-log >/dev/null 2>"$TMP/report.err" || fail "stampede report --hdr-log exited $?"
cmp -s "$dir/latency.hlog" "$TMP/first.hlog" || fail "stampede report --hdr-log wrote a different latency.hlog"
pass "latency.hlog read by hdr-histogram-js:$checked rebuilt the same by stampede report"

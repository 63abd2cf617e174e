#!/usr/bin/env bash
# Long work shows how far it is, on a real PostgreSQL: the live lines of a
# TPC-C load and of a phase of a fixed number of operations give a percent
# that rises to 100 and never falls, and from the phase's halfway on a
# time left within 30% of what was really left (the phase's end in the
# journal) while 2 s or more were left: in a phase's last second, lines a
# second apart and a load in parts of a few hundred ms are coarser than
# 30%. The journal's seconds carry the same progress. A finished
# report.html says the run is over: its result, how long it ran.
source "$(dirname "$0")/../lib.sh"
start_db postgres
cat >"$TMP/plan.yaml" <<YAML
name: progress
$(target_yaml postgres)
phases:
  - {name: tpcc, workload: tpcc, workers: 4, params: {warehouses: 3, load: true, run: false}}
  - {name: kv, workload: kv, workers: 8, ops: 24000, rate: 3000, params: {keys: 10000, read: 0.5}}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --http off --results "$TMP/res" >"$TMP/run.out" 2>"$TMP/run.err" ||
  fail "run exited $?: $(tail -n 3 "$TMP/run.err")"
j=$TMP/res/journal.jsonl
# Each live line of PHASE as "t percent left", and the phase's end on the
# run's clock from the journal.
lines() {
  sed -n -e "s|^\[ *\([0-9.]*\)s\] $1 *\([0-9]*\)%.*, \([0-9.]*\) s left.*|\1 \2 \3|p" \
    -e "s|^\[ *\([0-9.]*\)s\] $1 *\(100\)%.*|\1 \2 0|p" "$TMP/run.out"
}
end_of() {
  jq -s --arg p "$1" '(map(select(.type == "phase_start" and .phase == $p)) | .[0].t) +
    (map(select(.type == "phase_end" and .phase == $p)) | .[0].duration_s)' "$j"
}
for phase in tpcc/load kv; do
  f=$TMP/${phase//\//-}
  lines "$phase" >"$f.lines"
  n=$(wc -l <"$f.lines")
  [ "$n" -ge 3 ] || fail "$phase: $n live lines with progress: $(grep -F "] $phase" "$TMP/run.out" | head -n 3)"
  end=$(end_of "$phase")
  awk -v end="$end" -v phase="$phase" '
    { if ($2 < last) { print phase ": the percent fell from " last " to " $2 " at " $1 " s"; bad = 1 } last = $2
      if ($2 >= 50 && $2 < 100) {
        true_left = end - $1
        if (true_left >= 2 && ($3 < 0.7 * true_left || $3 > 1.3 * true_left)) {
          print phase ": at " $1 " s (" $2 "%), " $3 " s left said, " true_left " s were"; bad = 1 }
        checked++ } }
    END { if (last != 100) { print phase ": the last line said " last "%, not 100"; bad = 1 }
          exit bad }' "$f.lines" >"$f.bad" || fail "$(cat "$f.bad")"
  echo "$phase: $n lines, $(head -n 1 "$f.lines" | awk '{ print $2 }')% to 100%, ends at $end s"
done
grep -q "(.* of 24,000 ops" "$TMP/run.out" || fail "the kv phase's lines do not say of how many operations"
expect_eq "$(jq -s '[.[] | select(.type == "second" and .phase == "kv") | .progress] | max' "$j")" 1 \
  "the journal's last progress of the kv phase"
# report.html of the finished run: its result and duration where the live
# page has the phase and the rate.
chromium --headless=new --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
  --virtual-time-budget=5000 --user-data-dir="$TMP/chrome" --dump-dom "file://$TMP/res/report.html" \
  >"$TMP/report-dom.html" 2>"$TMP/chrome.log" || fail "chromium: $(tail -n 3 "$TMP/chrome.log")"
grep -q 'id="elapsed-label">duration<' "$TMP/report-dom.html" || fail "report.html's header has no duration"
grep -q '<h2 class="result ok">Result: ok\.' "$TMP/report-dom.html" || fail "report.html does not lead with its result"
pass "progress rises to 100% with a time left within 30% from halfway, for a TPC-C load and an ops phase; report.html reads as finished"

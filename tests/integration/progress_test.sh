#!/usr/bin/env bash
# Long work shows how far it is, on a real PostgreSQL: the live lines of a
# TPC-C load and of a phase of a fixed number of operations give a percent
# that rises to 100 and never falls, and from the phase's halfway on a
# time left close to what was really left (the phase's end in the
# journal) while 3 s or more were left (in a phase's last seconds, lines a
# second apart are off by up to a second): within 30% (7-10% here on an
# idle machine; 3-31% with one or two CPU hogs switched at random each
# second beside it, the one miss a load that sped up once its hog
# stopped). The journal's
# seconds carry the same progress. A finished report.html says the run is
# over: its result, how long it ran. A kv preload says how far it is too.
source "$(dirname "$0")/../lib.sh"
start_db postgres
cat >"$TMP/plan.yaml" <<YAML
name: progress
$(target_yaml postgres)
phases:
  - {name: tpcc, workload: tpcc, workers: 4, params: {warehouses: 5, load: true, run: false}}
  - {name: kv, workload: kv, workers: 8, ops: 24000, rate: 3000, params: {keys: 300000, read: 0.5, preload: true}}
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
for spec in tpcc/load:0.3 kv:0.3; do
  phase=${spec%:*} within=${spec#*:}
  f=$TMP/${phase//\//-}
  lines "$phase" >"$f.lines"
  n=$(wc -l <"$f.lines")
  [ "$n" -ge 3 ] || fail "$phase: $n live lines with progress: $(grep -F "] $phase" "$TMP/run.out" | head -n 3)"
  end=$(end_of "$phase")
  awk -v end="$end" -v phase="$phase" -v within="$within" '
    { if ($2 < last) { print phase ": the percent fell from " last " to " $2 " at " $1 " s"; bad = 1 } last = $2
      if ($2 >= 50 && $2 < 100) {
        true_left = end - $1
        if (true_left >= 3) {
          off = $3 / true_left - 1; if (off < 0) off = -off; if (off > worst) worst = off }
        if (true_left >= 3 && ($3 < (1 - within) * true_left || $3 > (1 + within) * true_left)) {
          print phase ": at " $1 " s (" $2 "%), " $3 " s left said, " true_left " s were"; bad = 1 }
        checked++ } }
    END { if (last != 100) { print phase ": the last line said " last "%, not 100"; bad = 1 }
          if (!bad) printf "%.0f", worst * 100
          exit bad }' "$f.lines" >"$f.bad" || fail "$(cat "$f.bad")"
  echo "$phase: $n lines, $(head -n 1 "$f.lines" | awk '{ print $2 }')% to 100%, ends at $end s; time left at most $(cat "$f.bad")% off from halfway"
done
grep -q "(.* of 24,000 ops" "$TMP/run.out" || fail "the kv phase's lines do not say of how many operations"
grep -q "phase kv: preload 100% (300,000 of 300,000 keys in [0-9.]* s)" "$TMP/run.err" ||
  fail "the kv preload does not say how far it is: $(grep -m 3 preload "$TMP/run.err")"
grep -q "tpcc/load .*(.* of 2,595,055 rows" "$TMP/run.out" || fail "the TPC-C load's lines do not count rows"
expect_eq "$(jq -s '[.[] | select(.type == "second" and .phase == "kv") | .progress] | max' "$j")" 1 \
  "the journal's last progress of the kv phase"
# report.html of the finished run: its result and duration where the live
# page has the phase and the rate.
chromium --headless=new --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
  --virtual-time-budget=5000 --user-data-dir="$TMP/chrome" --dump-dom "file://$TMP/res/report.html" \
  >"$TMP/report-dom.html" 2>"$TMP/chrome.log" || fail "chromium: $(tail -n 3 "$TMP/chrome.log")"
grep -q 'id="elapsed-label">duration<' "$TMP/report-dom.html" || fail "report.html's header has no duration"
grep -q '<h2 class="result ok">Result: ok\.' "$TMP/report-dom.html" || fail "report.html does not lead with its result"
pass "progress rises to 100% for a TPC-C load (in rows) and a paced ops phase, with a time left close from halfway; report.html reads as finished"

#!/usr/bin/env bash
# The journal on a full disk: results on a small tmpfs that fills up during
# a 30 s run. The run stops with one clear line and a non-zero exit, and the
# journal written until then is still a report (once there is room for one).
# A journal with a corrupted line in the middle is reported too, the line
# skipped with a warning that names it.
source "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: mounting a small tmpfs needs root"
  exit 77
fi
start_redis
mnt=$TMP/small
mkdir -p "$mnt"
mount -t tmpfs -o size=1m tmpfs "$mnt"
echo "$mnt" >>"$TMP/.mounts"
on_exit "umount -l '$mnt'"
# Leave about 24 KB: the run line and some seconds of measurements.
head -c $((1024 * 1024 - 24 * 1024)) /dev/zero >"$mnt/filler" 2>/dev/null || true
cat >"$TMP/plan.yaml" <<YAML
name: full-disk
$(target_yaml redis)
phases:
  - {name: steady, workload: kv, workers: 4, duration: 30s, rate: 400, params: {keys: 1000}}
YAML
start=$(date +%s)
rc=0
"$STAMPEDE" run "$TMP/plan.yaml" --results "$mnt/res" >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
elapsed=$(($(date +%s) - start))
expect_eq "$rc" 1 "exit code on a full disk"
[ "$elapsed" -lt 25 ] || fail "the run went on for $elapsed s on a full disk"
grep -q "^stampede: results: $mnt/res/journal.jsonl: No space left on device; the run was stopped" "$TMP/run.err" \
  || fail "no clear line about the full disk: $(tail -n 3 "$TMP/run.err")"
seconds=$(grep -c '"type":"second"' "$mnt/res/journal.jsonl" || true)
[ "$seconds" -ge 2 ] || fail "only $seconds seconds in the journal"

# With room again, the journal still makes a report.
rm -f "$mnt/filler"
"$STAMPEDE" report "$mnt/res" >"$TMP/report.out" 2>"$TMP/report.err" || fail "report exited $?: $(cat "$TMP/report.err")"
count=$(jq '.phases[0].done' "$mnt/res/summary.json")
[ "$count" -gt 0 ] || fail "the rebuilt summary has no operations"
grep -q "Result: FAILED: results: .*No space left on device" "$TMP/report.out" \
  || grep -q "Result: FAILED: run did not finish" "$TMP/report.out" || fail "report result line: $(grep Result: "$TMP/report.out")"

# A corrupted line in the middle of a journal is skipped, and named.
cp "$mnt/res/journal.jsonl" "$TMP/corrupt.jsonl"
mkdir -p "$TMP/corrupt"
awk 'NR == 3 { print "{\"type\":\"second\",\"ops\": <garbage>"; next } { print }' "$TMP/corrupt.jsonl" \
  >"$TMP/corrupt/journal.jsonl"
cp "$mnt/res/plan.yaml" "$TMP/corrupt/"
"$STAMPEDE" report "$TMP/corrupt" >"$TMP/corrupt.out" 2>"$TMP/corrupt.err" || fail "report of a corrupt journal exited $?"
grep -q "warning: $TMP/corrupt/journal.jsonl:3: skipped a line that is not a JSON object" "$TMP/corrupt.err" \
  || fail "no warning naming line 3: $(cat "$TMP/corrupt.err")"
[ "$(jq '.phases[0].done' "$TMP/corrupt/summary.json")" -gt 0 ] || fail "nothing reported after the corrupt line"
pass "full disk after $seconds seconds: exit 1 in $elapsed s with a clear line; $count ops reported from the journal; corrupt line 3 skipped"

#!/usr/bin/env bash
# The README's "your own database" path, exactly as written, by a user who
# has only a checkout and a PostgreSQL started by hand: the fenced block
# marked `sh runnable` is run from the top of a checkout (build/stampede,
# configs/), with the password typed at its prompt and not in the
# environment, against a PostgreSQL where configs/quickstart.yaml expects
# one (127.0.0.1:25432, user stampede, database bench). It must validate,
# run, and leave its report where the README says.
source "$(dirname "$0")/../lib.sh"
readme=$ROOT/README.md
block=$(awk '/^```sh runnable$/ { on = 1; next } on && /^```$/ { exit } on' "$readme")
[ -n "$block" ] || fail "README.md has no \`\`\`sh runnable block"
echo "the README's block:"
sed 's/^/  /' <<<"$block"

# The quickstart plan's own port: wait for it to be free of other tests.
port=$(grep -o '127\.0\.0\.1:[0-9]*' "$ROOT/configs/quickstart.yaml" | head -n 1 | cut -d: -f2)
for i in $(seq 1 120); do
  claim_port "$port" && ! port_busy "$port" && break
  [ "$i" = 120 ] && fail "port $port (configs/quickstart.yaml's) stayed taken for 2 minutes"
  sleep 1
done
on_exit "'$ROOT/deploy/local/postgres.sh' stop '$TMP/pg'"
"$ROOT/deploy/local/postgres.sh" start "$TMP/pg" "$port" "$STAMPEDE_PASSWORD" >"$TMP/pg.log" 2>&1 ||
  fail "postgres: $(tail -n 5 "$TMP/pg.log")"

# A checkout as a user has it after building: build/stampede and configs/.
mkdir -p "$TMP/checkout/build"
ln -s "$STAMPEDE" "$TMP/checkout/build/stampede"
cp -r "$ROOT/configs" "$TMP/checkout/configs"
rc=0
(cd "$TMP/checkout" && env -u STAMPEDE_PASSWORD bash -euo pipefail -c "$block" <<<"$STAMPEDE_PASSWORD") \
  >"$TMP/readme.out" 2>"$TMP/readme.err" || rc=$?
[ "$rc" = 0 ] || fail "the README's block exited $rc: $(tail -n 5 "$TMP/readme.err")"
grep -q "configs/quickstart.yaml: ok" "$TMP/readme.out" || fail "no 'ok' from validate: $(head -n 3 "$TMP/readme.out")"
report=$(ls "$TMP"/checkout/results/*/report.md 2>/dev/null | head -n 1)
[ -n "$report" ] || fail "no results/<run-id>/report.md in the checkout"
for f in report.html summary.json journal.jsonl; do
  [ -f "$(dirname "$report")/$f" ] || fail "results/<run-id>/$f is missing"
done
grep -q "^\*\*Result: ok" "$report" || fail "the report does not open with its result: $(head -n 5 "$report")"
inserted=$(jq '[.phases[] | select(.name == "insert") | .ops[].ok] | add' "$(dirname "$report")/summary.json")
expect_eq "$inserted" 100000 "rows the quickstart inserted"
# The numbers the README teaches to read, as columns of the report it made.
header=$(grep -m1 '^| op | count |' "$report")
for word in "ops/s" "p99" "errors" "missed"; do
  grep -qF "| $word |" <<<"$header" || fail "the report's phase table has no $word column: $header"
done
pass "README's quickstart as written: validate, run, $inserted rows, report in $(basename "$(dirname "$report")")"

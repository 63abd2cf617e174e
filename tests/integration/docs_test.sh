#!/usr/bin/env bash
# What users read says one thing, in their words: the README stays a first
# page; no word only the team knows (an issue number, "the origin", "the
# brief") in the docs, the example plans or anything the binary prints as
# help; and each built-in workload's ops and parameters, as `stampede
# workloads NAME` lists them, are the ones its section of docs/workloads.md
# (or docs/consistency.md, where that section sends the reader) documents.
source "$(dirname "$0")/../lib.sh"

words=$(wc -w <"$ROOT/README.md")
[ "$words" -le 750 ] || fail "README.md has $words words: a first page has about 700 (move the rest to docs/)"

internal='issue [0-9]|the origin|the brief|not installed here|until 2026-12([^-]|$)|the issue asked'
found=$(grep -rniE "$internal" "$ROOT/README.md" "$ROOT/docs" "$ROOT/configs" "$ROOT/web/dashboard" || true)
[ -z "$found" ] || fail "words only the team knows, in what users read: $found"
{
  "$STAMPEDE" --help
  for c in run validate coordinator agent report check compare workloads version; do "$STAMPEDE" "$c" --help; done
  "$STAMPEDE" workloads
  for w in $("$STAMPEDE" workloads | cut -f1); do "$STAMPEDE" workloads "$w"; done
} >"$TMP/help.txt" 2>&1
found=$(grep -niE "$internal" "$TMP/help.txt" || true)
[ -z "$found" ] || fail "words only the team knows, in the binary's help: $found"

# A section of a markdown file: from "## NAME" to the next "## ".
section() { awk -v h="## $2" '$0 == h { on = 1; next } on && /^## / { exit } on' "$1"; }
n=0
for w in $("$STAMPEDE" workloads | cut -f1); do
  doc=$(section "$ROOT/docs/workloads.md" "$w")
  [ -n "$doc" ] || fail "docs/workloads.md has no section '## $w'"
  if grep -q "consistency.md" <<<"$doc"; then doc+=$(section "$ROOT/docs/consistency.md" "$w"); fi
  "$STAMPEDE" workloads "$w" >"$TMP/$w.txt"
  ops=$(sed -n 's/^ops (as the report names them): //p' "$TMP/$w.txt" | tr -d ',')
  params=$(awk '/^params:/ { on = 1; next } on && NF { print $1 }' "$TMP/$w.txt")
  for name in $ops $params; do
    grep -qF -- "\`$name\`" <<<"$doc" || grep -qF -- "| $name |" <<<"$doc" ||
      fail "stampede workloads $w lists '$name'; its section of the docs does not name it"
    n=$((n + 1))
  done
done
pass "README $words words; no team words in docs, configs or help; $n workload ops and params documented"

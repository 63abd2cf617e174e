#!/usr/bin/env bash
# reset through the fault proxy on a real 3-node Galera: node1's clients
# reach it through the agent's proxy (proxy: in the agent config, node1's
# endpoint in the plan is the proxy's). Open-loop crud inserts with
# check_writes; the plan resets every connection to node1 (and refuses new
# ones) for 4 s, then heals. The workers on node1 go on at the next node:
# the reset operations are counted (unavailable or ambiguous), nothing is
# missed before the phase's deadline, no acknowledged insert is lost, and
# the fault has its recovery numbers. An operation due in the deadline's
# last milliseconds, while its worker still waits on the one before, is
# missed by definition (the phase never runs past its deadline): seen once
# in a fresh-clone run, 1 of 4,200, in the 0.85 ms after the last second.
source "$(dirname "$0")/../lib.sh"
start_galera
proxy=$(free_port)
cat >"$TMP/agent.yaml" <<YAML
nodes:
  node1: {proxy: {listen: 127.0.0.1:$proxy, upstream: 127.0.0.1:$GA_BASE}}
YAML
cat >"$TMP/plan.yaml" <<YAML
name: galera-proxy-reset
target: {driver: mysql, flavor: mariadb, user: stampede, password_env: STAMPEDE_PASSWORD, database: bench,
         endpoints: [127.0.0.1:$proxy, 127.0.0.1:$((GA_BASE + 1)), 127.0.0.1:$((GA_BASE + 2))],
         op_timeout: 2s, connect_timeout: 2s}
recovery: {baseline: 3s, hold: 2s}
phases:
  - {name: load, workload: crud, workers: 12, rate: 300, duration: 14s, check_writes: true,
     params: {insert: 1, table: pr, reset: true}}
faults:
  - {at: load+5s, action: reset, node: node1}
  - {at: load+9s, action: heal, node: node1}
expect:
  phases: {load: ["lost_writes == 0", "missed <= 3"]}
YAML
rc=0
"$STAMPEDE" run "$TMP/plan.yaml" --agent-config "$TMP/agent.yaml" --results "$TMP/res" >"$TMP/run.out" \
  2>"$TMP/run.err" || rc=$?
expect_eq "$rc" 0 "run exit code ($(tail -n 3 "$TMP/run.err"))"
s=$TMP/res/summary.json
expect_eq "$(jq -c '[.faults[] | [.action, .ok]]' "$s")" '[["reset",true],["heal",true]]' "faults"
errs=$(jq '[.phases[0].ops[] | .errors[]] | add' "$s")
owed=$(jq '.phases[0].owed' "$s"); done_=$(jq '[.phases[0].ops[].count] | add' "$s")
missed=$(jq '.phases[0].missed' "$s")
expect_eq "$((done_ + missed))" "$owed" "done + missed = owed"
last=$(jq -s '[.[] | select(.type == "second") | .t] | max' "$TMP/res/journal.jsonl")
early=$(jq -s --argjson last "$last" \
  '[.[] | select(.type == "second" and .t < $last) | .ops[] | .missed // 0] | add // 0' "$TMP/res/journal.jsonl")
expect_eq "$early" 0 "operations missed before the phase's last second (of $missed in all)"
[ "$errs" -ge 1 ] || fail "no operation was reset"
expect_eq "$(jq '.phases[0].writes.lost' "$s")" 0 "acknowledged inserts lost"
acked=$(jq '.phases[0].writes.acked' "$s")
recovered=$(jq '.faults[0].time_to_recovered_s' "$s")
[ "$recovered" != null ] || fail "the reset has no time to recovered: $(jq -c '.faults[0]' "$s" | cut -c1-400)"
on_node1=$(jq --arg e "127.0.0.1:$proxy" '.phases[0].endpoints[$e].lost // 0' "$s")
pass "reset node1's proxy: $errs operations cut of $done_ ($missed missed at the deadline), $on_node1 connections lost there; $acked acknowledged inserts, every one read back; time to recovered ${recovered}s"

#!/usr/bin/env bash
# Failures a user meets first: an unreachable endpoint, a wrong password,
# too few agents, a port in use, a duplicate agent name. Each gives one clear
# line naming what and where, a non-zero exit, and results on disk.
source "$(dirname "$0")/../lib.sh"
start_postgres

plan() {  # ENDPOINT [AGENTS_BLOCK]
  cat <<YAML
name: failures
target: {driver: postgres, endpoints: [$1], user: stampede, password_env: STAMPEDE_PASSWORD, database: bench, connect_timeout: 2s}
${2:-}
phases:
  - {name: insert, workload: crud, workers: 4, ops: 100, params: {reset: true}}
YAML
}

# Unreachable endpoint.
dead=127.0.0.1:$(free_port)
plan "$dead" >"$TMP/unreachable.yaml"
rc=0; "$STAMPEDE" run "$TMP/unreachable.yaml" --results "$TMP/r1" >"$TMP/r1.out" 2>"$TMP/r1.err" || rc=$?
expect_eq "$rc" 1 "unreachable endpoint exit code"
line=$(grep '^stampede: ' "$TMP/r1.err")
[ "$(echo "$line" | wc -l)" = 1 ] || fail "expected one error line, got: $line"
echo "$line" | grep -q "$dead" || fail "error does not name the endpoint: $line"
echo "$line" | grep -qi "refused" || fail "error does not say why: $line"
[ -s "$TMP/r1/summary.json" ] && [ -s "$TMP/r1/journal.jsonl" ] || fail "no results written"
expect_eq "$(jq .ok "$TMP/r1/summary.json")" false "summary ok after failure"

# Wrong password.
plan "$DB_ENDPOINT" >"$TMP/pw.yaml"
rc=0; STAMPEDE_PASSWORD=wrong "$STAMPEDE" run "$TMP/pw.yaml" --results "$TMP/r2" >"$TMP/r2.out" 2>"$TMP/r2.err" || rc=$?
expect_eq "$rc" 1 "wrong password exit code"
line=$(grep '^stampede: ' "$TMP/r2.err")
echo "$line" | grep -q "$DB_ENDPOINT" || fail "error does not name the endpoint: $line"
echo "$line" | grep -q "password authentication failed" || fail "error does not say why: $line"
grep -rq "wrong" "$TMP/r2" && fail "the password appears in results"

# Database missing: one line naming the endpoint and the database.
sed 's/database: bench/database: no_such_db/' "$TMP/pw.yaml" >"$TMP/nodb.yaml"
rc=0; "$STAMPEDE" run "$TMP/nodb.yaml" --results "$TMP/r5" >"$TMP/r5.out" 2>"$TMP/r5.err" || rc=$?
expect_eq "$rc" 1 "missing database exit code"
line=$(grep '^stampede: ' "$TMP/r5.err")
[ "$(echo "$line" | wc -l)" = 1 ] || fail "expected one error line, got: $line"
echo "$line" | grep -q "$DB_ENDPOINT.*database \"no_such_db\" does not exist" || fail "missing database: $line"
expect_eq "$(jq .ok "$TMP/r5/summary.json")" false "summary ok after a missing database"

# Coordinator unreachable: one line, exit 1, nothing started.
rc=0; "$STAMPEDE" run "$TMP/pw.yaml" --coordinator "$dead" >"$TMP/cu.out" 2>"$TMP/cu.err" || rc=$?
expect_eq "$rc" 1 "unreachable coordinator exit code"
grep -q "^stampede: cannot reach coordinator $dead: .*Connection refused" "$TMP/cu.err" \
  || fail "unreachable coordinator: $(cat "$TMP/cu.err")"
expect_eq "$(wc -l <"$TMP/cu.err")" 1 "lines of the unreachable coordinator error"

# Results of what ran are kept when a later phase fails (here: the kv phase
# names the crud table, so its statements do not prepare).
cat >"$TMP/later.yaml" <<YAML
name: later
target: {driver: postgres, endpoints: [$DB_ENDPOINT], user: stampede, password_env: STAMPEDE_PASSWORD, database: bench}
phases:
  - {name: first, workload: crud, workers: 2, ops: 200, params: {reset: true, table: t_later}}
  - {name: second, workload: kv, workers: 2, ops: 10, params: {table: t_later}}
YAML
rc=0; "$STAMPEDE" run "$TMP/later.yaml" --results "$TMP/r3" >"$TMP/r3.out" 2>"$TMP/r3.err" || rc=$?
expect_eq "$rc" 1 "failing second phase exit code"
grep -q '^stampede: .*preparing statement: .*column "v" does not exist' "$TMP/r3.err" \
  || fail "prepare error: $(cat "$TMP/r3.err")"
expect_eq "$(jq '.phases[0].ops[0].ok' "$TMP/r3/summary.json")" 200 "first phase kept"
grep -q "| insert | 200 |" "$TMP/r3/report.md" || fail "report lost the first phase"

# Too few agents.
plan "$DB_ENDPOINT" "agents: {min: 3, wait: 2s}" >"$TMP/agents.yaml"
rc=0; "$STAMPEDE" run "$TMP/agents.yaml" --local-agents 2 --results "$TMP/r4" >"$TMP/r4.out" 2>"$TMP/r4.err" || rc=$?
expect_eq "$rc" 1 "too few agents exit code"
grep -q "^stampede: waited 2s for 3 agent(s); 2 connected (local-1, local-2)" "$TMP/r4.err" \
  || fail "agents message: $(cat "$TMP/r4.err")"

# Port in use.
start_coordinator
rc=0; "$STAMPEDE" coordinator --listen "127.0.0.1:$COORD_PORT" >"$TMP/c2.out" 2>"$TMP/c2.err" || rc=$?
expect_eq "$rc" 1 "port in use exit code"
grep -q "cannot listen on 127.0.0.1:$COORD_PORT: Address already in use" "$TMP/c2.err" \
  || fail "port message: $(cat "$TMP/c2.err")"

# The dashboard's port in use.
http_busy=${COORD_HTTP#http://127.0.0.1:}
http_busy=${http_busy%/}
rc=0; "$STAMPEDE" coordinator --listen 127.0.0.1:0 --http "127.0.0.1:$http_busy" >"$TMP/c3.out" 2>"$TMP/c3.err" || rc=$?
expect_eq "$rc" 1 "dashboard port in use exit code"
grep -q "^stampede: --http: 127.0.0.1:$http_busy: Address already in use" "$TMP/c3.err" \
  || fail "dashboard port message: $(cat "$TMP/c3.err")"

# A fault proxy's port in use: the run ends at once with it, nothing runs.
cat >"$TMP/proxy-agent.yaml" <<YAML
nodes:
  db1: {proxy: {listen: 127.0.0.1:$COORD_PORT, upstream: $DB_ENDPOINT}}
YAML
plan "$DB_ENDPOINT" >"$TMP/good.yaml"
rc=0; "$STAMPEDE" run "$TMP/good.yaml" --agent-config "$TMP/proxy-agent.yaml" --results "$TMP/proxy-res" \
  >"$TMP/p.out" 2>"$TMP/p.err" || rc=$?
expect_eq "$rc" 1 "proxy port in use exit code"
grep -q "^stampede: node db1: proxy 127.0.0.1:$COORD_PORT: Address already in use" "$TMP/p.err" \
  || fail "proxy port message: $(cat "$TMP/p.err")"

# Duplicate agent name.
start_agent twin
rc=0; timeout 20 "$STAMPEDE" agent --coordinator "127.0.0.1:$COORD_PORT" --name twin >"$TMP/twin.out" 2>"$TMP/twin.err" || rc=$?
expect_eq "$rc" 1 "duplicate agent exit code"
grep -q "an agent named twin is already connected" "$TMP/twin.err" || fail "twin message: $(cat "$TMP/twin.err")"

# An agent runs only what its own config allows: a target outside
# allow.targets is refused before any connection, naming the config line.
cat >"$TMP/fenced.yaml" <<YAML
allow:
  targets:
    - endpoints: [10.99.0.0/16]
      password_env: [STAMPEDE_PASSWORD]
YAML
start_agent fenced --config "$TMP/fenced.yaml"
plan "$DB_ENDPOINT" "agents: {min: 2, wait: 10s}" >"$TMP/fenced-plan.yaml"
rc=0; "$STAMPEDE" run "$TMP/fenced-plan.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/fenced.out" 2>"$TMP/fenced.err" || rc=$?
expect_eq "$rc" 1 "exit code of a plan an agent does not allow"
msg="agent fenced: refused by the agent's config: $TMP/fenced.yaml:3:5: allow.targets: the plan's target.endpoints\[0\] '$DB_ENDPOINT' is not listed"
grep -q "Result: FAILED: $msg" "$TMP/fenced.out" || fail "allow-list message: $(cat "$TMP/fenced.out")"
grep -q "$msg" "$TMP/agent-fenced.log" || fail "the agent did not log its refusal"
dir=$(summary_of "$COORD_RESULTS")
expect_eq "$(jq .ok "$dir/summary.json")" false "summary of the refused run"
stop_daemon "$AGENT_PID_fenced" "fenced agent"

# Submitting needs the coordinator's token (or a submitter's certificate):
# without it, or with another one, PERMISSION_DENIED and exit 2. The token
# is never echoed; a token file others can read stops the coordinator.
plan "$DB_ENDPOINT" "" >"$TMP/sub.yaml"
rc=0; "$STAMPEDE" run "$TMP/sub.yaml" --coordinator "127.0.0.1:$COORD_PORT" --token-file none >"$TMP/s1.out" 2>"$TMP/s1.err" || rc=$?
expect_eq "$rc" 2 "submit without a token exit code"
grep -q "^stampede: coordinator 127.0.0.1:$COORD_PORT: refused: no certificate and no token: submit with a submitter's certificate, or from the coordinator's host with its token file (--token-file)" \
  "$TMP/s1.err" || fail "no token message: $(cat "$TMP/s1.err")"
grep -q "refused a run from .*: no certificate and no token" "$TMP/coordinator.log" || fail "refusal not logged"
printf 'forged-token-0123456789abcdef\n' >"$TMP/forged.token"
rc=0; "$STAMPEDE" run "$TMP/sub.yaml" --coordinator "127.0.0.1:$COORD_PORT" --token-file "$TMP/forged.token" >"$TMP/s2.out" 2>"$TMP/s2.err" || rc=$?
expect_eq "$rc" 2 "submit with a wrong token exit code"
grep -q "refused: the token is not this coordinator's (see its --token-file)" "$TMP/s2.err" || fail "wrong token message: $(cat "$TMP/s2.err")"
grep -q "forged-token\|$(cat "$STATE_DIRECTORY/coordinator.token")" "$TMP/s2.err" "$TMP/coordinator.log" && fail "a token was echoed"
[ "$(stat -c %a "$STATE_DIRECTORY/coordinator.token")" = 600 ] || fail "token file mode $(stat -c %a "$STATE_DIRECTORY/coordinator.token")"
chmod 644 "$TMP/forged.token"
rc=0; "$STAMPEDE" coordinator --listen 127.0.0.1:0 --token-file "$TMP/forged.token" 2>"$TMP/c4.err" || rc=$?
expect_eq "$rc" 2 "readable token file exit code"
grep -q "^stampede: token file $TMP/forged.token must belong to this user and be readable by no one else (mode 0644): chmod 600 $TMP/forged.token" \
  "$TMP/c4.err" || fail "token mode message: $(cat "$TMP/c4.err")"

# A certificate from another CA: the client's one line says which flags to
# check; the coordinator logs the refused handshake.
"$ROOT/deploy/tls/make-certs" "$TMP/ca-a" --coordinator 127.0.0.1 --days 1 >/dev/null
"$ROOT/deploy/tls/make-certs" "$TMP/ca-b" --coordinator 127.0.0.1 --days 1 >/dev/null
tls_port=$(free_port)
"$STAMPEDE" coordinator --listen "127.0.0.1:$tls_port" --http off --token-file none --tls-cert "$TMP/ca-a/coordinator.pem" \
  --tls-key "$TMP/ca-a/coordinator.key" --tls-ca "$TMP/ca-a/ca.pem" 2>"$TMP/tlscoord.err" &
tls_coord=$!
on_exit "kill -9 $tls_coord"
wait_for_line "$TMP/tlscoord.err" "listening on .*(mutual TLS)"
rc=0; "$STAMPEDE" run "$TMP/sub.yaml" --coordinator "127.0.0.1:$tls_port" --tls-cert "$TMP/ca-b/submitter.pem" \
  --tls-key "$TMP/ca-b/submitter.key" --tls-ca "$TMP/ca-a/ca.pem" >"$TMP/cert.out" 2>"$TMP/cert.err" || rc=$?
expect_eq "$rc" 1 "certificate from another CA exit code"
expect_eq "$(wc -l <"$TMP/cert.err")" 1 "lines of the certificate error"
grep -q "^stampede: cannot reach coordinator 127.0.0.1:$tls_port: .*(mutual TLS: if the coordinator is up, it or this side refused a certificate: --tls-cert must be signed by the CA the coordinator's --tls-ca names" \
  "$TMP/cert.err" || fail "certificate message: $(cat "$TMP/cert.err")"
wait_for_line "$TMP/tlscoord.err" "warn  coordinator: a TLS handshake failed (a certificate not signed by the other side's CA?)"
# An agent without --name is named by its certificate's common name.
"$ROOT/deploy/tls/make-certs" "$TMP/ca-a" --coordinator 127.0.0.1 --agents client-7 --days 1 >/dev/null
"$STAMPEDE" agent --coordinator "127.0.0.1:$tls_port" --tls-cert "$TMP/ca-a/client-7.pem" \
  --tls-key "$TMP/ca-a/client-7.key" --tls-ca "$TMP/ca-a/ca.pem" 2>"$TMP/cn-agent.err" &
cn_agent=$!
on_exit "kill -9 $cn_agent"
wait_for_line "$TMP/cn-agent.err" "agent client-7: connected to coordinator"
stop_daemon "$cn_agent" "agent named by its certificate"
stop_daemon "$tls_coord" "TLS coordinator"

# Plaintext outside loopback is refused; a missing certificate is named.
rc=0; "$STAMPEDE" coordinator --listen 0.0.0.0:0 2>"$TMP/tls.err" || rc=$?
expect_eq "$rc" 2 "non-loopback plaintext exit code"
grep -q "not a loopback address" "$TMP/tls.err" || fail "tls message: $(cat "$TMP/tls.err")"
rc=0; "$STAMPEDE" coordinator --listen 0.0.0.0:0 --tls-cert "$TMP/none.pem" --tls-key "$TMP/none.key" --tls-ca "$TMP/ca.pem" 2>"$TMP/tls.err" || rc=$?
expect_eq "$rc" 2 "missing certificate exit code"
grep -q "tls-cert $TMP/none.pem: No such file or directory" "$TMP/tls.err" || fail "cert message: $(cat "$TMP/tls.err")"
# --insecure off loopback is allowed with a warning on every start; a host
# name that merely starts with "127." is not loopback.
"$STAMPEDE" coordinator --listen 0.0.0.0:0 --insecure --http off >"$TMP/ins.out" 2>"$TMP/ins.err" &
ins=$!
on_exit "kill -9 $ins"
wait_for_line "$TMP/ins.err" "listening on"
grep -q "warn .*--insecure: plaintext gRPC on 0.0.0.0:0: anyone on the network can" "$TMP/ins.err" \
  || fail "no --insecure warning: $(cat "$TMP/ins.err")"
stop_daemon "$ins" "insecure coordinator"
rc=0; "$STAMPEDE" agent --coordinator 127.example.com:7878 --name x 2>"$TMP/lb.err" || rc=$?
expect_eq "$rc" 2 "127.* host name exit code"
grep -q "127.example.com:7878 is not a loopback address" "$TMP/lb.err" || fail "loopback message: $(cat "$TMP/lb.err")"
pass "unreachable, wrong password, missing database, coordinator unreachable, certificate from another CA, too few agents, port in use, duplicate agent, unauthorized submitter, token file, TLS flags, --insecure warning"

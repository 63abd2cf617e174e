# Shared helpers for integration tests: real servers in a temp dir on free
# loopback ports, stampede daemons, assertions. Everything started here is
# stopped on exit.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STAMPEDE=${STAMPEDE:-$ROOT/build/stampede}
TMP=$(mktemp -d /tmp/stampede-test.XXXXXX)
chmod 755 "$TMP"
# Everything this test starts carries the mark in its environment, so
# tests/run_test.sh can find it if the test is killed before its cleanup.
export STAMPEDE_TEST_TMP=$TMP
echo $$ >"$TMP/.owner"
# Agent daemons spool here, not in /var/lib/stampede (see DefaultSpoolDir).
export STATE_DIRECTORY=$TMP/state
export STAMPEDE_PASSWORD="pw-$RANDOM$RANDOM"
_cleanup=()
on_exit() { _cleanup+=("$*"); }
_run_cleanup() {
  local rc=$?
  for ((i = ${#_cleanup[@]} - 1; i >= 0; i--)); do eval "${_cleanup[i]}" >/dev/null 2>&1 || true; done
  if [ $rc -ne 0 ] || [ -n "${STAMPEDE_KEEP_TMP:-}" ]; then
    echo "--- logs in $TMP (kept) ---" >&2
    for f in "$TMP"/*.log "$TMP"/*.out "$TMP"/*.err; do
      [ -f "$f" ] && { echo "== $f" >&2; tail -n 40 "$f" >&2; }
    done
  else
    rm -rf "$TMP"
  fi
}
trap _run_cleanup EXIT
# SIGTERM (run_test.sh's timeout) and Ctrl-C run the cleanup too.
trap 'echo "FAIL: interrupted" >&2; exit 143' TERM INT
# A command that fails outside a check still says where.
trap 'echo "FAIL: command failed at ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND" >&2' ERR

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "PASS: $*"; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
# output_has PATTERN COMMAND...: whether COMMAND prints a line matching
# PATTERN. Never `COMMAND | grep -q` here: under pipefail that fails when grep
# exits at its match while COMMAND still writes (SIGPIPE), a race that a log
# or a page longer than one write loses now and then.
output_has() {
  local pattern=$1 out
  shift
  out=$("$@" 2>&1) || true
  grep -q -- "$pattern" <<<"$out"
}

# Ports are drawn from below the kernel's ephemeral range (32768-60999 by
# default): a port inside it can be taken by any outgoing connection's local
# end between our check and the server's bind (a MariaDB once failed to
# start with "Address already in use" that way).
EPHEMERAL_LO=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
PORT_LO=10000 PORT_HI=$((EPHEMERAL_LO - 1))
[ "$PORT_HI" -gt $((PORT_LO + 12000)) ] || PORT_HI=$((PORT_LO + 12000))  # an odd range: do what we can
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# Two tests run at once (ctest -j2) draw from one range, and a port the
# other test drew but has not bound yet looks free: each port drawn is
# claimed in $PORT_CLAIMS (mkdir is atomic) for as long as this test runs.
# Its claims go at its exit; tests/run_test.sh removes those of a test that
# was killed.
PORT_CLAIMS=/tmp/stampede-ports
mkdir -p "$PORT_CLAIMS"
claim_port() {  # P: whether P is now this test's
  mkdir "$PORT_CLAIMS/$1" 2>/dev/null || return 1
  echo $$ >"$PORT_CLAIMS/$1/owner"
}
release_ports() {
  local d
  for d in "$PORT_CLAIMS"/*/; do
    [ "$(cat "$d/owner" 2>/dev/null)" = $$ ] && rm -rf "$d"
  done
  return 0
}
on_exit release_ports
free_port() {
  local p
  while :; do
    p=$((PORT_LO + 2000 + (RANDOM * 32768 + RANDOM) % (PORT_HI - PORT_LO - 2000)))
    port_busy "$p" && continue
    claim_port "$p" && { echo "$p"; return; }
  done
}

# A pipelined phase that ran into trouble: every operation it owed done
# (ok + errors), none missed, at least one whole batch cut (ambiguous), and
# a clean read-back (nothing lost or unchecked, no failed insert found).
# Sets ok, amb, errors, acked, committed.
expect_accounted_and_read_back() {  # SUMMARY PHASE_INDEX OWED
  local done missed lost unchecked failed found
  read -r ok amb errors done missed <<<"$(jq -r ".phases[$2] | \"\\(.ops[0].ok) \\(.ops[0].errors.ambiguous) \\(.ops[0].errors | add) \\(.done) \\(.missed)\"" "$1")"
  expect_eq "$done" "$3" "operations done (ok + errors)"
  expect_eq "$((ok + errors))" "$3" "ok + errors"
  expect_eq "$missed" 0 "operations missed"
  [ "$amb" -ge 16 ] || fail "only $amb ambiguous inserts: no whole batch was cut"
  read -r acked lost committed unchecked failed found <<<"$(jq -r ".phases[$2].writes | \"\\(.acked) \\(.lost) \\(.ambiguous_committed) \\(.unchecked) \\(.failed // 0) \\(.failed_found // 0)\"" "$1")"
  expect_eq "$acked" "$ok" "inserts the read-back knew as acknowledged"
  expect_eq "$lost" 0 "acknowledged inserts lost"
  expect_eq "$unchecked" 0 "inserts the read-back could not check"
  expect_eq "$found" 0 "failed inserts found in the database (of $failed read back)"
}

# report.md's "## Verdict" section, read from the file (no pipe into head:
# under pipefail a writer cut off by head's exit fails the pipeline).
verdict_of() { awk '/^## Verdict/ { p = 1; print; next } p && /^## / { exit } p' "$1"; }

# A base port B such that B+offset is free for every offset given.
free_port_base() {  # OFFSET...
  local b ok max=0 o claimed
  for o in "$@"; do [ "$o" -gt "$max" ] && max=$o; done
  while :; do
    b=$((PORT_LO + (RANDOM * 32768 + RANDOM) % (PORT_HI - PORT_LO - max)))
    ok=1 claimed=()
    for o in "$@"; do
      if port_busy $((b + o)) || ! claim_port $((b + o)); then ok=0; break; fi
      claimed+=($((b + o)))
    done
    [ $ok = 1 ] && { echo "$b"; return; }
    for o in "${claimed[@]}"; do rm -rf "${PORT_CLAIMS:?}/$o"; done
  done
}

wait_for_line() {  # FILE PATTERN [TRIES]
  for _ in $(seq 1 "${3:-100}"); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "timed out waiting for '$2' in $1"
}

start_postgres() {
  PG_DIR=$TMP/pg; PG_PORT=$(free_port)
  "$ROOT/deploy/local/postgres.sh" start "$PG_DIR" "$PG_PORT" "$STAMPEDE_PASSWORD"
  on_exit "'$ROOT/deploy/local/postgres.sh' stop '$PG_DIR'"
  DB_ENDPOINT=127.0.0.1:$PG_PORT
}
start_mariadb() {
  MY_DIR=$TMP/mariadb; MY_PORT=$(free_port)
  on_exit "'$ROOT/deploy/local/mariadb.sh' stop '$MY_DIR'"
  "$ROOT/deploy/local/mariadb.sh" start "$MY_DIR" "$MY_PORT" "$STAMPEDE_PASSWORD"
  DB_ENDPOINT=127.0.0.1:$MY_PORT
}
start_redis() {
  RD_DIR=$TMP/redis; RD_PORT=$(free_port)
  "$ROOT/deploy/local/redis.sh" start "$RD_DIR" "$RD_PORT" "$STAMPEDE_PASSWORD"
  on_exit "'$ROOT/deploy/local/redis.sh' stop '$RD_DIR'"
  DB_ENDPOINT=127.0.0.1:$RD_PORT
}
start_db() {  # postgres | mysql | redis
  case "$1" in
    postgres) start_postgres ;;
    mysql) start_mariadb ;;
    redis) start_redis ;;
  esac
}

# target: block for a plan, for the database started by start_db.
target_yaml() {
  case "$1" in
    postgres) printf 'target: {driver: postgres, endpoints: [%s], user: stampede, password_env: STAMPEDE_PASSWORD, database: bench}\n' "$DB_ENDPOINT" ;;
    mysql) printf 'target: {driver: mysql, flavor: mariadb, endpoints: [%s], user: stampede, password_env: STAMPEDE_PASSWORD, database: bench}\n' "$DB_ENDPOINT" ;;
    redis) printf 'target: {driver: redis, endpoints: [%s], password_env: STAMPEDE_PASSWORD}\n' "$DB_ENDPOINT" ;;
  esac
}

# Rows in a table (SQL) or keys with the table's prefix (Redis). SCAN may
# return a key twice (while the server resizes its table: after evictions,
# a key was once counted twice), so Redis keys are counted once each.
db_count() {  # DRIVER TABLE
  case "$1" in
    postgres) PGPASSWORD=$STAMPEDE_PASSWORD psql -h 127.0.0.1 -p "$PG_PORT" -U stampede -d bench -tAc "SELECT count(*) FROM $2" ;;
    mysql) mariadb -h 127.0.0.1 -P "$MY_PORT" -u stampede -p"$STAMPEDE_PASSWORD" bench -N -e "SELECT count(*) FROM $2" ;;
    redis) redis-cli -p "$RD_PORT" -a "$STAMPEDE_PASSWORD" --no-auth-warning --scan --pattern "$2:*" | sort -u | wc -l ;;
  esac
}

db_sql() {  # DRIVER SQL: one value
  case "$1" in
    postgres) PGPASSWORD=$STAMPEDE_PASSWORD psql -h 127.0.0.1 -p "$PG_PORT" -U stampede -d bench -tAc "$2" ;;
    mysql) mariadb -h 127.0.0.1 -P "$MY_PORT" -u stampede -p"$STAMPEDE_PASSWORD" bench -N -e "$2" ;;
  esac
}

db_pid() {
  case "$1" in
    postgres) "$ROOT/deploy/local/postgres.sh" pid "$PG_DIR" ;;
    mysql) "$ROOT/deploy/local/mariadb.sh" pid "$MY_DIR" ;;
    redis) "$ROOT/deploy/local/redis.sh" pid "$RD_DIR" ;;
  esac
}

start_coordinator() {  # [EXTRA FLAGS...]; sets COORD_PORT, COORD_RESULTS, COORD_HTTP (dashboard URL)
  COORD_RESULTS=$TMP/results
  # A port free_port found can be taken (by another process's outgoing
  # connection) before the coordinator binds it: then try another.
  for _ in 1 2 3; do
    COORD_PORT=$(free_port)
    "$STAMPEDE" coordinator --listen "127.0.0.1:$COORD_PORT" --results "$COORD_RESULTS" "$@" \
      >"$TMP/coordinator.out" 2>"$TMP/coordinator.log" &
    COORD_PID=$!
    on_exit "kill -9 $COORD_PID"
    for _ in $(seq 1 100); do
      grep -q "listening on" "$TMP/coordinator.log" 2>/dev/null && break
      kill -0 "$COORD_PID" 2>/dev/null || break
      sleep 0.1
    done
    grep -q "cannot listen on 127.0.0.1:$COORD_PORT: Address already in use" "$TMP/coordinator.log" || break
  done
  wait_for_line "$TMP/coordinator.log" "listening on"
  for _ in $(seq 1 20); do grep -q "dashboard and" "$TMP/coordinator.log" && break; sleep 0.1; done
  COORD_HTTP=$(sed -n 's/.*dashboard and \/metrics on \(http:[^ ]*\).*/\1/p' "$TMP/coordinator.log" | head -n 1)
}
start_agent() {  # NAME [EXTRA FLAGS...]
  local name=$1
  shift
  "$STAMPEDE" agent --coordinator "127.0.0.1:$COORD_PORT" --name "$name" "$@" \
    >"$TMP/agent-$name.out" 2>"$TMP/agent-$name.log" &
  local pid=$!
  eval "AGENT_PID_${name//-/_}=$pid"
  on_exit "kill -9 $pid"
  wait_for_line "$TMP/agent-$name.log" "connected to coordinator"
}
# SIGTERM a daemon and check that it exits 0 within 15 s.
stop_daemon() {  # PID WHAT
  kill -TERM "$1"
  for _ in $(seq 1 150); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$1" 2>/dev/null && fail "$2 did not exit on SIGTERM"
  local rc=0
  wait "$1" || rc=$?
  expect_eq "$rc" 0 "$2 exit code after SIGTERM"
}

summary_of() { ls -td "$1"/*/ | head -n 1 | sed 's:/$::'; }

start_galera() {
  GA_DIR=$TMP/galera; GA_BASE=$(free_port_base 0 1 2 3 101 102 103 104 201 202 203 204 301 302 303 304)
  on_exit "'$ROOT/deploy/local/galera.sh' stop '$GA_DIR'"
  "$ROOT/deploy/local/galera.sh" start "$GA_DIR" "$GA_BASE" "$STAMPEDE_PASSWORD"
  GA_ENDPOINTS="127.0.0.1:$GA_BASE, 127.0.0.1:$((GA_BASE + 1)), 127.0.0.1:$((GA_BASE + 2))"
}
# An agent config owning Galera nodes N... as nodeN (kill, stop, start,
# restart: galera.sh start-node waits until the node is Synced again).
galera_agent_yaml() {  # N...
  local n
  echo "nodes:"
  for n in "$@"; do
    echo "  node$n:"
    echo "    process: {pidfile: $GA_DIR/node$n/mysqld.pid, start: [$ROOT/deploy/local/galera.sh, start-node, $GA_DIR, \"$n\"]}"
  done
  echo "fault_timeout: 2m"
}
galera_count() {  # TABLE
  mariadb -h 127.0.0.1 -P "$GA_BASE" -u stampede -p"$STAMPEDE_PASSWORD" bench -N -e "SELECT count(*) FROM $1"
}

# A 3-node Patroni cluster (synchronous replication) on a 3-member etcd,
# with the ports of a fourth member free for `join`;
# node 1 is the leader.
start_patroni() {
  PT_DIR=$TMP/patroni; PT_BASE=$(free_port_base 0 1 2 3 11 12 13 14 21 22 23 31 32 33)
  on_exit "'$ROOT/deploy/local/patroni.sh' stop '$PT_DIR'"
  "$ROOT/deploy/local/patroni.sh" start "$PT_DIR" "$PT_BASE" "$STAMPEDE_PASSWORD"
}
patroni_sql() {  # SQL: one value, from the leader
  local n
  n=$("$ROOT/deploy/local/patroni.sh" leader "$PT_DIR") || fail "no Patroni leader"
  psql -h "$PT_DIR/node$n" -p $((PT_BASE + n - 1)) -U postgres -d bench -tAc "$1"
}

start_redis_cluster() {
  # Each node also listens on its port + 10000 (the cluster bus).
  RC_DIR=$TMP/redis-cluster; RC_BASE=$(free_port_base 0 1 2 3 4 5 6 10000 10001 10002 10003 10004 10005 10006)
  on_exit "'$ROOT/deploy/local/redis-cluster.sh' stop '$RC_DIR'"
  "$ROOT/deploy/local/redis-cluster.sh" start "$RC_DIR" "$RC_BASE" "$STAMPEDE_PASSWORD"
  RC_ENDPOINTS="127.0.0.1:$RC_BASE"
  for i in 1 2 3 4 5; do RC_ENDPOINTS="$RC_ENDPOINTS, 127.0.0.1:$((RC_BASE + i))"; done
}
# Keys with a prefix across the cluster's current masters.
redis_cluster_count() {  # PREFIX
  local n=0 c
  for p in $("$ROOT/deploy/local/redis-cluster.sh" masters "$RC_DIR"); do
    # A node that is changing role may refuse a scan; count it as 0 and let
    # the caller's comparison fail with its own message.
    c=$(redis-cli -p "$p" -a "$STAMPEDE_PASSWORD" --no-auth-warning --scan --pattern "$1:*" | sort -u | wc -l) || c=0
    n=$((n + c))
  done
  echo "$n"
}

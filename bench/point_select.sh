#!/usr/bin/env bash
# stampede vs sysbench oltp_point_select on the same local PostgreSQL and
# MariaDB, 8 workers/threads, 10 s each, alternating (sysbench, stampede,
# sysbench, stampede), printing both rates and the ratio.
#
# stampede runs the kv workload read-only over a 10,000-row table with
# 120-byte values: the same statement shape as sysbench's point select
# (SELECT c FROM sbtest1 WHERE id=?), prepared, autocommit, uniform keys.
#   bench/point_select.sh [SECONDS] [ROUNDS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STAMPEDE=${STAMPEDE:-$ROOT/build/stampede}
secs=${1:-10}; rounds=${2:-2}; threads=8
TMP=$(mktemp -d /tmp/stampede-bench.XXXXXX); chmod 755 "$TMP"
export STAMPEDE_PASSWORD="bench-$RANDOM"
free_port() { local p; while :; do p=$((20000 + RANDOM % 20000)); (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }; done; }
pg_port=$(free_port); my_port=$(free_port)
trap '"$ROOT/deploy/local/postgres.sh" stop "$TMP/pg"; "$ROOT/deploy/local/mariadb.sh" stop "$TMP/my"; rm -rf "$TMP"' EXIT
"$ROOT/deploy/local/postgres.sh" start "$TMP/pg" "$pg_port" "$STAMPEDE_PASSWORD"
"$ROOT/deploy/local/mariadb.sh" start "$TMP/my" "$my_port" "$STAMPEDE_PASSWORD"

sb_args() {
  case "$1" in
    postgres) echo "--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$pg_port --pgsql-user=stampede --pgsql-password=$STAMPEDE_PASSWORD --pgsql-db=bench" ;;
    mysql) echo "--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$my_port --mysql-user=stampede --mysql-password=$STAMPEDE_PASSWORD --mysql-db=bench" ;;
  esac
}
plan() {  # DRIVER PORT PHASES
  cat <<YAML
name: bench-$1
target: {driver: $1, endpoints: [127.0.0.1:$2], user: stampede, password_env: STAMPEDE_PASSWORD, database: bench}
phases:
$3
YAML
}

printf '%-9s %-5s %14s %14s %7s\n' database round sysbench_qps stampede_qps ratio
for db in postgres mysql; do
  port=$pg_port; [ $db = mysql ] && port=$my_port
  sysbench $(sb_args $db) oltp_point_select --tables=1 --table-size=10000 prepare >/dev/null
  plan $db $port "  - {name: load, workload: kv, workers: 1, ops: 1, params: {keys: 10000, value_size: 120, preload: true, reset: true, read: 1}}" >"$TMP/load.yaml"
  "$STAMPEDE" run "$TMP/load.yaml" --results "$TMP/load-$db" >/dev/null 2>&1
  plan $db $port "  - {name: select, workload: kv, workers: $threads, duration: ${secs}s, params: {keys: 10000, value_size: 120, read: 1}}" >"$TMP/run.yaml"
  for r in $(seq 1 "$rounds"); do
    sysbench $(sb_args $db) oltp_point_select --tables=1 --table-size=10000 --threads=$threads \
      --time="$secs" --report-interval=0 run >"$TMP/sb.out" 2>&1 || true
    sb=$(awk '/queries:/ {gsub(/[()]/,"",$3); print $3; exit}' "$TMP/sb.out")
    "$STAMPEDE" run "$TMP/run.yaml" --results "$TMP/run-$db-$r" >/dev/null 2>"$TMP/st.err" || true
    st=$(jq '.phases[0].ops[0].ops_per_s // empty' "$TMP/run-$db-$r/summary.json" 2>/dev/null || true)
    if [ -z "$sb" ] || [ -z "$st" ]; then
      echo "$db round $r failed: sysbench '${sb}' stampede '${st}'" >&2
      tail -n 5 "$TMP/sb.out" "$TMP/st.err" >&2
      continue
    fi
    printf '%-9s %-5s %14.0f %14.0f %7.2f\n' $db $r "$sb" "$st" "$(echo "$st / $sb" | bc -l)"
  done
done

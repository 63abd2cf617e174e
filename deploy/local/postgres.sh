#!/usr/bin/env bash
# A throwaway PostgreSQL from Debian's packages, on loopback.
#   postgres.sh start DIR PORT PASSWORD   # user stampede / PASSWORD, database bench
#                                         # (with the cube and earthdistance extensions)
#   postgres.sh stop DIR
#   postgres.sh pid DIR                   # postmaster pid (for SIGSTOP tests)
#   postgres.sh crash DIR                 # immediate shutdown: no checkpoint, crash recovery at the next start
#   postgres.sh start-node DIR PORT       # start it again after a crash
# Another host: PG_HOST=10.77.0.4 listens there (and accepts password logins
# from anywhere), PG_NETNS=ns4 starts it inside that network namespace.
# PG_MAX_CONNECTIONS=1100 for more than 300 clients (bench/tpcc's 1,000
# terminals). PG_HUGE_PAGES=on puts shared memory on huge pages and fails
# the start if none are reserved (bench/peers; default: try).
set -euo pipefail
cmd=${1:?start|stop|pid}; dir=${2:?DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
options() {  # PORT HOST
  echo "-p $1 -k $dir -c listen_addresses=$2 -c max_connections=${PG_MAX_CONNECTIONS:-300} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c huge_pages=${PG_HUGE_PAGES:-try}"
}
case "$cmd" in
  start-node)
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$(options "${3:?PORT}" 127.0.0.1)" start >/dev/null
    ;;
  crash)
    as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
    ;;
  start)
    port=${3:?PORT}; password=${4:?PASSWORD}
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1
    host=${PG_HOST:-127.0.0.1}
    [ "$host" != 127.0.0.1 ] && echo "host all all 0.0.0.0/0 scram-sha-256" >>"$dir/data/pg_hba.conf"
    opts=$(options "$port" "$host")
    if [ -n "${PG_NETNS:-}" ]; then
      ip netns exec "$PG_NETNS" runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$opts" start >/dev/null
    else
      as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$opts" start >/dev/null
    fi
    as_pg "$bin/psql" -h "$dir" -p "$port" -U postgres -q -v ON_ERROR_STOP=1 \
      -c "CREATE USER stampede PASSWORD '$password'" -c "CREATE DATABASE bench OWNER stampede" >/dev/null
    # The geo workload's extensions (earthdistance needs a superuser).
    as_pg "$bin/psql" -h "$dir" -p "$port" -U postgres -d bench -q -v ON_ERROR_STOP=1 \
      -c "CREATE EXTENSION IF NOT EXISTS cube" -c "CREATE EXTENSION IF NOT EXISTS earthdistance" >/dev/null
    ;;
  stop)
    [ -d "$dir/data" ] && as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    ;;
  pid)
    head -n 1 "$dir/data/postmaster.pid"
    ;;
  *) echo "usage: $0 start|stop|pid|crash|start-node DIR [PORT PASSWORD]" >&2; exit 2 ;;
esac

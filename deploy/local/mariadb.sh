#!/usr/bin/env bash
# A throwaway MariaDB from Debian's packages, on loopback.
#   mariadb.sh start DIR PORT PASSWORD   # user stampede / PASSWORD, database bench
#   mariadb.sh stop DIR
#   mariadb.sh pid DIR
# MY_MAX_CONNECTIONS=1100 for more than 500 clients (bench/peers' sb-my1000).
# MY_FLUSH_AT_COMMIT=1 to sync the redo log at each commit (default 0: the
# tests kill processes, not machines; tests/integration/slow_disk_test.sh
# wants commits that wait for the disk).
set -euo pipefail
source "$(dirname "$0")/mariadb-users.sh"
cmd=${1:?start|stop|pid}; dir=${2:?DIR}
case "$cmd" in
  start)
    port=${3:?PORT}; password=${4:?PASSWORD}
    # Its temporary files in its own directory (TMPDIR), not the shared /tmp
    # (deploy/local/galera.sh says why).
    mkdir -p "$dir/tmp"
    [ "$(id -u)" = 0 ] && chown mysql:mysql "$dir" "$dir/tmp"
    export TMPDIR=$dir/tmp
    mariadb-install-db --user=mysql --datadir="$dir/data" --auth-root-authentication-method=socket \
      --skip-test-db >"$dir/install.log" 2>&1
    mariadbd --user=mysql --datadir="$dir/data" --port="$port" --bind-address=127.0.0.1 \
      --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" --log-error="$dir/server.log" \
      --innodb-flush-log-at-trx-commit="${MY_FLUSH_AT_COMMIT:-0}" --skip-log-bin --max-connections="${MY_MAX_CONNECTIONS:-500}" &
    for _ in $(seq 1 120); do
      mariadb -uroot --socket="$dir/mysqld.sock" -e 'SELECT 1' >/dev/null 2>&1 && break
      sleep 0.5
    done
    create_stampede_user "$dir/mysqld.sock" "$password"
    ;;
  stop)
    if [ -f "$dir/mysqld.pid" ]; then
      pid=$(cat "$dir/mysqld.pid"); kill -CONT "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    ;;
  pid)
    cat "$dir/mysqld.pid"
    ;;
  *) echo "usage: $0 start|stop|pid DIR [PORT PASSWORD]" >&2; exit 2 ;;
esac

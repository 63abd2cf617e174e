#!/usr/bin/env bash
# A throwaway Redis from Debian's packages, on loopback.
#   redis.sh start DIR PORT [PASSWORD]
#   redis.sh stop DIR
#   redis.sh pid DIR
set -euo pipefail
cmd=${1:?start|stop|pid}; dir=${2:?DIR}
case "$cmd" in
  start)
    port=${3:?PORT}; password=${4:-}
    mkdir -p "$dir"
    args=(--port "$port" --bind 127.0.0.1 --dir "$dir" --save "" --appendonly no
          --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/server.log")
    [ -n "$password" ] && args+=(--requirepass "$password")
    redis-server "${args[@]}"
    for _ in $(seq 1 100); do
      redis-cli -p "$port" ${password:+-a "$password" --no-auth-warning} ping >/dev/null 2>&1 && break
      sleep 0.1
    done
    ;;
  stop)
    if [ -f "$dir/redis.pid" ]; then
      pid=$(cat "$dir/redis.pid"); kill -CONT "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    ;;
  pid)
    cat "$dir/redis.pid"
    ;;
  *) echo "usage: $0 start|stop|pid DIR [PORT [PASSWORD]]" >&2; exit 2 ;;
esac

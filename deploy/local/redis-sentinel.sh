#!/usr/bin/env bash
# A throwaway Redis with Sentinel from Debian's redis-server, on loopback:
# a master on BASE, replicas on BASE+1 and BASE+2, three sentinels on
# BASE+10..BASE+12 watching it as "stampede" (quorum 2, down after 1 s, so
# that a failover takes a few seconds). Data nodes and sentinels all
# require PASSWORD.
#   redis-sentinel.sh start DIR BASE PASSWORD
#   redis-sentinel.sh stop DIR
#   redis-sentinel.sh kill DIR PORT         # SIGKILL the data node on PORT
#   redis-sentinel.sh start-node DIR PORT   # start it again (the sentinels make it a replica)
#   redis-sentinel.sh master DIR            # the master's port, as the sentinels say
#   redis-sentinel.sh wait-replicas DIR N   # until the master has N replicas online
set -euo pipefail
cmd=${1:?start|stop|kill|start-node|master|wait-replicas}; dir=${2:?DIR}
base() { cat "$dir/base"; }
pw() { cat "$dir/password"; }
cli() { redis-cli -h 127.0.0.1 -p "$1" -a "$(pw)" --no-auth-warning "${@:2}"; }

start_data() {  # PORT [MASTER_PORT]
  local p=$1 args
  mkdir -p "$dir/$p"
  args=(--port "$p" --bind 127.0.0.1 --dir "$dir/$p" --save "" --appendonly no
    --requirepass "$(pw)" --masterauth "$(pw)" --daemonize yes --pidfile "$dir/$p/redis.pid"
    --logfile "$dir/$p/server.log")
  # A node started again comes back as a replica of the current master
  # (the sentinels would make it one a moment later anyway).
  [ -n "${2:-}" ] && args+=(--replicaof 127.0.0.1 "$2")
  redis-server "${args[@]}"
  for _ in $(seq 1 100); do cli "$p" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "redis-sentinel: node $p did not start" >&2
  return 1
}

start_sentinel() {  # PORT MASTER_PORT
  local p=$1
  mkdir -p "$dir/$p"
  cat >"$dir/$p/sentinel.conf" <<CONF
port $p
bind 127.0.0.1
dir $dir/$p
sentinel monitor stampede 127.0.0.1 $2 2
sentinel auth-pass stampede $(pw)
requirepass $(pw)
sentinel down-after-milliseconds stampede 1000
sentinel failover-timeout stampede 10000
sentinel parallel-syncs stampede 2
CONF
  chmod 600 "$dir/$p/sentinel.conf"
  redis-server "$dir/$p/sentinel.conf" --sentinel --daemonize yes --pidfile "$dir/$p/redis.pid" \
    --logfile "$dir/$p/server.log"
}

master() {
  local p
  for p in $(($(base) + 10)) $(($(base) + 11)) $(($(base) + 12)); do
    cli "$p" sentinel get-master-addr-by-name stampede 2>/dev/null | sed -n 2p | grep . && return 0
  done
  return 1
}

case "$cmd" in
  start)
    b=${3:?BASE}; password=${4:?PASSWORD}
    mkdir -p "$dir"; echo "$b" >"$dir/base"; echo "$password" >"$dir/password"; chmod 600 "$dir/password"
    start_data "$b"
    start_data $((b + 1)) "$b"
    start_data $((b + 2)) "$b"
    for s in 10 11 12; do start_sentinel $((b + s)) "$b"; done
    "$0" wait-replicas "$dir" 2
    ;;
  stop)
    for f in "$dir"/*/redis.pid; do
      [ -f "$f" ] || continue
      pid=$(cat "$f"); kill -CONT "$pid" 2>/dev/null || true; kill -9 "$pid" 2>/dev/null || true
    done
    ;;
  kill)
    kill -9 "$(cat "$dir/${3:?PORT}/redis.pid")"
    ;;
  start-node)
    p=${3:?PORT}
    m=$(master) || { echo "redis-sentinel: the sentinels name no master" >&2; exit 1; }
    [ "$m" = "$p" ] && m=
    start_data "$p" "$m"
    ;;
  master)
    master
    ;;
  wait-replicas)
    n=${3:?N}
    for _ in $(seq 1 120); do
      m=$(master) || m=
      if [ -n "$m" ] && [ "$(cli "$m" info replication 2>/dev/null | grep -c 'state=online')" -ge "$n" ]; then exit 0; fi
      sleep 0.5
    done
    echo "redis-sentinel: the master has fewer than $n replicas online" >&2
    exit 1
    ;;
  *) echo "usage: $0 start|stop|kill|start-node|master|wait-replicas DIR ..." >&2; exit 2 ;;
esac

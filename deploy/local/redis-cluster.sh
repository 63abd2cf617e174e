#!/usr/bin/env bash
# A throwaway 6-node Redis Cluster (3 masters, 3 replicas) from Debian's
# redis-server, on loopback ports BASE..BASE+5, cluster-node-timeout 3000.
#   redis-cluster.sh start DIR BASE PASSWORD
#   redis-cluster.sh stop DIR
#   redis-cluster.sh kill DIR PORT        # SIGKILL the node on PORT
#   redis-cluster.sh start-node DIR PORT  # restart it (it rejoins as a replica)
#   redis-cluster.sh masters DIR          # ports of the current masters
#   redis-cluster.sh info DIR PORT        # CLUSTER INFO from PORT
#   redis-cluster.sh join DIR PORT        # a new empty master on PORT joins, and the slots are
#                                         # rebalanced onto it (add-node, rebalance --cluster-use-empty-masters)
#   redis-cluster.sh leave DIR PORT       # the master on PORT hands its slots to the others and
#                                         # leaves (rebalance with weight 0, del-node, which stops it)
# As separate hosts: REDIS_HOSTS="10.1.0.4 ... 10.1.0.9" (six addresses, or
# more for nodes that join later: node BASE+I is on the Ith) and
# REDIS_NETNS="ns4 ... ns9" at start put node I on the Ith address, inside
# the Ith network namespace (deploy/local/netns.sh); later commands find them
# in DIR.
set -euo pipefail
cmd=${1:?start|stop|kill|start-node|masters|info|join|leave}; dir=${2:?DIR}
node_host() {  # PORT: its address (and namespace) from DIR
  local i=$(($1 - $(cat "$dir/base"))) h n
  if [ -s "$dir/hosts" ] && [ -n "$(cat "$dir/hosts")" ]; then
    read -ra h <"$dir/hosts"; read -ra n <"$dir/netns"
    echo "${h[$i]:?no host for node $1 in REDIS_HOSTS} ${n[$i]}"
  else
    echo 127.0.0.1
  fi
}
cli() {  # PORT ARGS...
  local p=$1 host ns; shift
  read -r host ns <<<"$(node_host "$p")"
  ${ns:+ip netns exec "$ns"} redis-cli -h "$host" -p "$p" -a "$(cat "$dir/password")" --no-auth-warning "$@"
}
start_node() {  # PORT
  local p=$1 pw host ns
  pw=$(cat "$dir/password")
  read -r host ns <<<"$(node_host "$p")"
  mkdir -p "$dir/$p"
  ${ns:+ip netns exec "$ns"} redis-server --port "$p" --bind "$host" --dir "$dir/$p" --cluster-enabled yes \
    --cluster-config-file nodes.conf --cluster-node-timeout 3000 --appendonly no --save "" \
    --requirepass "$pw" --masterauth "$pw" --daemonize yes --pidfile "$dir/$p/redis.pid" \
    --logfile "$dir/$p/server.log"
  for _ in $(seq 1 100); do cli "$p" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "redis-cluster: node $p did not start" >&2; return 1
}
case "$cmd" in
  start)
    base=${3:?BASE}; password=${4:?PASSWORD}
    mkdir -p "$dir"; echo "$password" >"$dir/password"; echo "$base" >"$dir/base"
    echo "${REDIS_HOSTS:-}" >"$dir/hosts"; echo "${REDIS_NETNS:-}" >"$dir/netns"
    nodes=()
    for i in 0 1 2 3 4 5; do
      start_node $((base + i))
      read -r host _ <<<"$(node_host $((base + i)))"
      nodes+=("$host:$((base + i))")
    done
    cli "$base" --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1
    # Ready once the cluster is ok everywhere and every replica's link is up
    # (a master killed before that would never fail over).
    for _ in $(seq 1 200); do
      ready=1
      for i in 0 1 2 3 4 5; do
        p=$((base + i))
        cli "$p" cluster info | grep -q "cluster_state:ok" || ready=0
        if cli "$p" info replication | grep -q "role:slave"; then
          cli "$p" info replication | grep -q "master_link_status:up" || ready=0
        fi
      done
      [ $ready = 1 ] && exit 0
      sleep 0.1
    done
    echo "redis-cluster: not ready; see $dir" >&2; exit 1
    ;;
  stop)
    for pidf in "$dir"/*/redis.pid; do
      [ -f "$pidf" ] || continue
      pid=$(cat "$pidf"); kill -CONT "$pid" 2>/dev/null || true; kill -9 "$pid" 2>/dev/null || true
    done
    ;;
  kill)
    kill -9 "$(cat "$dir/${3:?PORT}/redis.pid")"
    ;;
  start-node)
    start_node "${3:?PORT}"
    ;;
  masters)
    base=$(cat "$dir/base")
    for i in 0 1 2 3 4 5; do
      p=$((base + i))
      if cli "$p" role 2>/dev/null | head -n 1 | grep -q '^master$'; then echo "$p"; fi
    done
    exit 0
    ;;
  info)
    cli "${3:?PORT}" cluster info
    ;;
  join)
    p=${3:?PORT}; base=$(cat "$dir/base")
    read -r host _ <<<"$(node_host "$p")"; read -r seed _ <<<"$(node_host "$base")"
    start_node "$p"
    cli "$base" --cluster add-node "$host:$p" "$seed:$base" >>"$dir/join-$p.log" 2>&1
    # Every node must know it before slots can move to it (a master that
    # does not yet refuses: "ERR I don't know about node").
    for _ in $(seq 1 200); do
      known=1
      for d in "$dir"/[0-9]*/; do
        q=$(basename "$d")
        cli "$q" cluster nodes 2>/dev/null | grep -q "$host:$p@" || known=0
      done
      [ $known = 1 ] && cli "$p" cluster info | grep -q cluster_state:ok && break
      sleep 0.1
    done
    cli "$base" --cluster rebalance "$seed:$base" --cluster-use-empty-masters >>"$dir/join-$p.log" 2>&1
    ;;
  leave)
    p=${3:?PORT}; base=$(cat "$dir/base")
    [ "$p" = "$base" ] && seed_port=$((base + 1)) || seed_port=$base
    read -r seed _ <<<"$(node_host "$seed_port")"
    id=$(cli "$p" cluster myid)
    cli "$seed_port" --cluster rebalance "$seed:$seed_port" --cluster-weight "$id=0" >>"$dir/leave-$p.log" 2>&1
    cli "$seed_port" --cluster del-node "$seed:$seed_port" "$id" >>"$dir/leave-$p.log" 2>&1
    ;;
  *) echo "usage: $0 start|stop|kill|start-node|masters|info|join|leave DIR ..." >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# A throwaway PostgreSQL HA cluster from Debian's packages (postgresql,
# patroni, etcd-server), all on loopback: three PostgreSQL nodes managed by
# Patroni, with synchronous replication, and a three-member etcd.
#   patroni.sh start DIR BASE_PORT PASSWORD   # SQL ports BASE, BASE+1, BASE+2; returns
#                                             # once a synchronous standby is assigned
#   patroni.sh stop DIR
#   patroni.sh kill-node DIR N                # SIGKILL node N's Patroni and PostgreSQL
#   patroni.sh start-node DIR N               # (re)start node N; it rejoins as a replica
#   patroni.sh leader DIR                     # the leader's node number
#   patroni.sh wait-members DIR N             # until N members run (leader + streaming)
#   patroni.sh status DIR                     # the REST API's /cluster
#   patroni.sh join DIR N                     # a new member N (4..9): an empty data directory,
#                                             # so Patroni clones the leader (pg_basebackup);
#                                             # returns once its REST API answers
#   patroni.sh leave DIR N                    # stop member N gracefully (SIGTERM; it is listed
#                                             # as stopped until its key expires)
#   patroni.sh replication DIR sync|async     # synchronous_mode on or off (the DCS config,
#                                             # through the leader); returns once a synchronous
#                                             # standby is there (sync) or none is (async)
# Node N: SQL port BASE+N-1, REST API BASE+10+N (/cluster, /primary),
# etcd client BASE+20+N, etcd peer BASE+30+N. User stampede / PASSWORD,
# database bench. Timings are short (ttl 10 s, loop_wait 1 s), so that a
# failover takes about ten seconds instead of thirty.
# Several hosts: PATRONI_HOSTS="10.77.0.3 10.77.0.4 10.77.0.5" gives node N
# (and etcd member N) the Nth address, and PATRONI_NETNS="ns3 ns4 ns5" runs
# them inside the Nth network namespace (`start-node` runs where it is
# called, as an agent on that host calls it; the other commands reach each
# node from inside its namespace).
set -euo pipefail
cmd=${1:?start|stop|kill-node|start-node|leader|wait-members|status|join|leave|replication}; dir=${2:?DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
pg_user=()
[ "$(id -u)" = 0 ] && pg_user=(setpriv --reuid=postgres --regid=postgres --init-groups)
as_pg() { "${pg_user[@]}" "$@"; }
base() { cat "$dir/base_port"; }
hosts=(${PATRONI_HOSTS:-127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1})
netns=(${PATRONI_NETNS:-})
host_of() {
  [ -n "${hosts[$(($1 - 1))]:-}" ] || { echo "patroni: no address for node $1 in PATRONI_HOSTS" >&2; exit 2; }
  echo "${hosts[$(($1 - 1))]}"
}
# The members this cluster has had: node1..3 and any that joined.
members() { local d; for d in "$dir"/node[1-9]; do [ -d "$d" ] && echo "${d##*node}"; done; }
# Runs a command where node N lives.
on_node() {  # N CMD...
  local n=$1
  shift
  if [ ${#netns[@]} -ge "$n" ]; then ip netns exec "${netns[$((n - 1))]}" "$@"; else "$@"; fi
}

etcd_cluster() {  # BASE
  echo "e1=http://$(host_of 1):$(($1 + 31)),e2=http://$(host_of 2):$(($1 + 32)),e3=http://$(host_of 3):$(($1 + 33))"
}

start_etcd() {  # N BASE
  local n=$1 b=$2 h
  h=$(host_of "$n")
  mkdir -p "$dir/etcd$n"
  # etcd's data in memory (/dev/shm), for the reason PostgreSQL runs with
  # fsync off: the tests kill processes, not machines. On a disk, etcd's
  # fsync waits behind whatever else the machine writes (a TPC-C load beside
  # it), its writes take seconds, and a failover stalls with them.
  local shm
  shm=$(mktemp -d /dev/shm/stampede-etcd.XXXXXX)
  ln -sfn "$shm" "$dir/etcd$n/data"
  # Not through on_node: a backgrounded function is a subshell, and $! must
  # be etcd's pid (ip netns exec and setpriv exec what they run).
  local in=()
  [ ${#netns[@]} -ge "$n" ] && in=(ip netns exec "${netns[$((n - 1))]}")
  "${in[@]}" etcd --name "e$n" --data-dir "$dir/etcd$n/data" \
    --listen-client-urls "http://$h:$((b + 20 + n))" --advertise-client-urls "http://$h:$((b + 20 + n))" \
    --listen-peer-urls "http://$h:$((b + 30 + n))" --initial-advertise-peer-urls "http://$h:$((b + 30 + n))" \
    --initial-cluster "$(etcd_cluster "$b")" --initial-cluster-state new --initial-cluster-token "stampede-$b" \
    --pre-vote \
    >"$dir/etcd$n/etcd.log" 2>&1 &
  echo $! >"$dir/etcd$n/etcd.pid"
}

node_yml() {  # N BASE PASSWORD
  local n=$1 b=$2 pw=$3 h net=127.0.0.1/32
  h=$(host_of "$n")
  [ "$h" = 127.0.0.1 ] || net=${h%.*}.0/24
  cat <<YML
scope: stampede-$b
name: node$n
log: {dir: $dir/node$n, file_num: 1, file_size: 100000000}
restapi:
  listen: $h:$((b + 10 + n))
  connect_address: $h:$((b + 10 + n))
etcd3:
  hosts: [$(host_of 1):$((b + 21)), $(host_of 2):$((b + 22)), $(host_of 3):$((b + 23))]
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true   # the old leader rejoins (needs full_page_writes, the default)
      remove_data_directory_on_rewind_failure: true
      use_slots: true
      parameters:
        max_connections: 300
        wal_log_hints: "on"
        fsync: "off"   # the tests kill processes, not machines: the page cache survives
  initdb: [{encoding: UTF8}, {auth-local: trust}]
postgresql:
  listen: $h:$((b + n - 1))
  connect_address: $h:$((b + n - 1))
  data_dir: $dir/node$n/data
  bin_dir: $bin
  pgpass: $dir/node$n/pgpass
  # A replica's copy starts at once, not after a spread checkpoint (minutes).
  basebackup: [{checkpoint: fast}]
  authentication:
    superuser: {username: postgres, password: "$pw"}
    replication: {username: replicator, password: "$pw"}
    rewind: {username: postgres, password: "$pw"}
  parameters:
    unix_socket_directories: $dir/node$n
  pg_hba:
    - local all all trust
    - host replication replicator $net scram-sha-256
    - host all all $net scram-sha-256
YML
}

start_node() {  # N
  local n=$1
  # PostgreSQL is Patroni's child, in a session of its own: kill-node kills
  # both by their pids.
  local in=()
  [ "$cmd" != start-node ] && [ ${#netns[@]} -ge "$n" ] && in=(ip netns exec "${netns[$((n - 1))]}")
  "${in[@]}" "${pg_user[@]}" /usr/bin/patroni "$dir/node$n/patroni.yml" >>"$dir/node$n/stdout.log" 2>&1 &
  echo $! >"$dir/node$n/patroni.pid"
}

# GET the REST API of node N (empty when it does not answer).
api() { on_node "$1" curl -s -m 2 "http://$(host_of "$1"):$(($(base) + 10 + $1))$2" || true; }

# The node whose REST API reports itself the running primary.
leader() {
  local n
  for n in $(members); do
    [ "$(on_node "$n" curl -s -o /dev/null -w '%{http_code}' -m 2 "http://$(host_of "$n"):$(($(base) + 10 + n))/primary" || true)" = 200 ] &&
      echo "$n" && return 0
  done
  return 1
}

# Members running: a leader and streaming replicas, as node N's /cluster says.
running_members() {
  local n
  for n in $(members); do
    api "$n" /cluster | jq -e '[.members[] | select(.state == "running" or .state == "streaming")] | length' \
      2>/dev/null && return 0
  done
  echo 0
}

# A member holds the synchronous standby role. Until one does, Patroni's
# (non-strict) synchronous_mode lets the leader commit alone: a write
# acknowledged then is lost if the leader dies (seen: a run started while
# the replicas were still bootstrapping; the promoted node had none of it).
sync_standby() {
  local n
  for n in $(members); do
    api "$n" /cluster | jq -e '[.members[] | select(.role == "sync_standby")] | length > 0' >/dev/null 2>&1 && return 0
  done
  return 1
}

wait_members() {  # COUNT TRIES
  local tries=$2
  for _ in $(seq 1 "$tries"); do
    [ "$(running_members)" -ge "$1" ] && leader >/dev/null && return 0
    sleep 0.5
  done
  echo "patroni: fewer than $1 members running; see $dir/node*/patroni.log" >&2
  return 1
}

kill_node() {  # N
  local n=$1 pid
  for f in "$dir/node$n/patroni.pid" "$dir/node$n/data/postmaster.pid"; do
    pid=$(head -n 1 "$f" 2>/dev/null || true)
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  done
  # A PostgreSQL that Patroni was starting when it died has no
  # postmaster.pid yet: it is found by its data directory.
  pkill -9 -f -- "-D $dir/node$n/data" 2>/dev/null || true
}

case "$cmd" in
  start)
    b=${3:?BASE_PORT}; password=${4:?PASSWORD}
    mkdir -p "$dir"; echo "$b" >"$dir/base_port"
    # For `join`: a new member's patroni.yml carries the same credentials.
    (umask 077 && printf '%s' "$password" >"$dir/password")
    for n in 1 2 3; do start_etcd "$n" "$b"; done
    for n in 1 2 3; do
      mkdir -p "$dir/node$n"
      node_yml "$n" "$b" "$password" >"$dir/node$n/patroni.yml"
      chmod 600 "$dir/node$n/patroni.yml"
      [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$dir/node$n"
    done
    [ "$(id -u)" = 0 ] && chmod 755 "$dir"
    # node1 first, so that it is the leader; the others clone it.
    start_node 1
    for _ in $(seq 1 120); do leader >/dev/null && break; sleep 0.5; done
    leader >/dev/null || { echo "patroni: node1 did not become the leader; see $dir/node1/patroni.log" >&2; exit 1; }
    as_pg "$bin/psql" -h "$dir/node1" -p "$b" -U postgres -q -v ON_ERROR_STOP=1 \
      -c "CREATE USER stampede PASSWORD '$password'" -c "CREATE DATABASE bench OWNER stampede" >/dev/null
    start_node 2
    start_node 3
    wait_members 3 240
    for _ in $(seq 1 120); do sync_standby && break; sleep 0.5; done
    sync_standby || { echo "patroni: no synchronous standby; see $dir/node*/patroni.log" >&2; exit 1; }
    ;;
  stop)
    for n in $(members); do kill_node "$n"; done
    # One Patroni may have forked a PostgreSQL that had not yet started
    # when it was killed (seen once: a node rejoining at the end of a test).
    sleep 0.3
    for n in $(members); do kill_node "$n"; done
    for n in 1 2 3; do
      pid=$(cat "$dir/etcd$n/etcd.pid" 2>/dev/null || true)
      [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
      shm=$(readlink "$dir/etcd$n/data" 2>/dev/null || true)
      case "$shm" in /dev/shm/stampede-etcd.*) rm -rf "$shm" ;; esac
    done
    ;;
  kill-node)
    kill_node "${3:?N}"
    ;;
  start-node)
    n=${3:?N}
    start_node "$n"
    # Up when its REST API answers: it then rejoins as a replica on its own.
    for _ in $(seq 1 60); do
      [ -n "$(api "$n" /health)$(api "$n" /patroni)" ] && exit 0
      sleep 0.5
    done
    echo "patroni: node $n's REST API does not answer; see $dir/node$n/patroni.log" >&2
    exit 1
    ;;
  leader)
    leader
    ;;
  wait-members)
    wait_members "${3:?N}" 120
    ;;
  status)
    api 1 /cluster; api 2 /cluster; api 3 /cluster
    ;;
  join)
    n=${3:?N}
    [[ "$n" =~ ^[4-9]$ ]] || { echo "patroni: join: N is 4..9" >&2; exit 2; }
    [ -d "$dir/node$n" ] && { echo "patroni: node $n was a member already ($dir/node$n)" >&2; exit 1; }
    mkdir -p "$dir/node$n"
    node_yml "$n" "$(base)" "$(cat "$dir/password")" >"$dir/node$n/patroni.yml"
    chmod 600 "$dir/node$n/patroni.yml"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$dir/node$n"
    start_node "$n"
    for _ in $(seq 1 60); do
      [ -n "$(api "$n" /patroni)" ] && exit 0
      sleep 0.5
    done
    echo "patroni: node $n's REST API does not answer; see $dir/node$n/patroni.log" >&2
    exit 1
    ;;
  replication)
    mode=${3:?sync|async}
    case "$mode" in sync) on=true ;; async) on=false ;; *) echo "patroni: replication: sync or async" >&2; exit 2 ;; esac
    n=$(leader) || { echo "patroni: no leader" >&2; exit 1; }
    on_node "$n" curl -s -m 5 -X PATCH -H 'Content-Type: application/json' \
      -d "{\"synchronous_mode\": $on}" "http://$(host_of "$n"):$(($(base) + 10 + n))/config" >/dev/null
    for _ in $(seq 1 60); do
      if sync_standby; then [ "$on" = true ] && exit 0; else [ "$on" = false ] && exit 0; fi
      sleep 0.5
    done
    echo "patroni: replication did not become $mode within 30 s" >&2
    exit 1
    ;;
  leave)
    n=${3:?N}
    pid=$(cat "$dir/node$n/patroni.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || { echo "patroni: node $n is not running" >&2; exit 1; }
    # SIGTERM: Patroni stops PostgreSQL (fast shutdown) and marks itself
    # stopped; /cluster lists it so until its key expires (ttl).
    kill -TERM "$pid"
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || exit 0
      sleep 0.5
    done
    echo "patroni: node $n did not stop within 30 s; see $dir/node$n/patroni.log" >&2
    exit 1
    ;;
  *) echo "usage: $0 start|stop|kill-node|start-node|leader|wait-members|status|join|leave DIR ..." >&2; exit 2 ;;
esac

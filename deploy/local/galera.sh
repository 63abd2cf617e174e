#!/usr/bin/env bash
# A throwaway 3-node MariaDB Galera cluster from Debian's packages
# (mariadb-server, galera-4, rsync), all on loopback.
#   galera.sh start DIR BASE_PORT PASSWORD   # SQL ports BASE, BASE+1, BASE+2
#   galera.sh stop DIR
#   galera.sh kill DIR N                     # SIGKILL node N (1..3)
#   galera.sh start-node DIR N               # (re)start node N; it rejoins (IST/SST)
#   galera.sh pid DIR N
#   galera.sh status DIR N                   # wsrep_cluster_size, _status, local_state
#   galera.sh bootstrap DIR N                # make node N's component primary again
#   galera.sh set-global DIR N NAME VALUE    # SET GLOBAL NAME = VALUE on node N (wsrep_sync_wait 1)
#   galera.sh join DIR N                     # a new node N (4, 5, ...) joins by state transfer (SST
#                                            # from node1) and returns once it is Synced
#   galera.sh leave DIR N                    # node N leaves gracefully (shut down: the others drop it)
# Node N uses SQL port BASE+N-1, group port BASE+100+N, IST BASE+200+N,
# SST BASE+300+N. User stampede / PASSWORD, database bench.
# Several hosts: GALERA_HOSTS="10.77.0.3 10.77.0.4 10.77.0.5" gives node N
# the Nth address, and GALERA_NETNS="ns3 ns4 ns5" starts node N inside the
# Nth network namespace (as `start` does; `start-node` runs where it is
# called).
set -euo pipefail
source "$(dirname "$0")/mariadb-users.sh"
cmd=${1:?start|stop|kill|start-node|pid|status|join|leave}; dir=${2:?DIR}
provider=/usr/lib/galera/libgalera_smm.so
[ -f "$provider" ] || provider=/usr/lib/libgalera_smm.so

hosts=(${GALERA_HOSTS:-127.0.0.1 127.0.0.1 127.0.0.1})
netns=(${GALERA_NETNS:-})
host_of() { echo "${hosts[$(($1 - 1))]:-127.0.0.1}"; }

node_cnf() {  # N BASE
  local n=$1 base=$2 h
  h=$(host_of "$n")
  local cluster="gcomm://$(host_of 1):$((base + 101)),$(host_of 2):$((base + 102)),$(host_of 3):$((base + 103))"
  cat <<CNF
[mysqld]
user=mysql
datadir=$dir/node$n/data
port=$((base + n - 1))
bind-address=$h
socket=$dir/node$n/mysqld.sock
pid-file=$dir/node$n/mysqld.pid
log-error=$dir/node$n/server.log
tmpdir=$dir/node$n/tmp
max-connections=500
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
innodb_flush_log_at_trx_commit=0
innodb_buffer_pool_size=64M
wsrep_on=ON
wsrep_provider=$provider
wsrep_cluster_name=stampede-local
wsrep_cluster_address=$cluster
wsrep_node_name=node$n
wsrep_node_address=$h:$((base + 100 + n))
wsrep_node_incoming_address=$h:$((base + n - 1))
wsrep_provider_options="gmcast.listen_addr=tcp://$h:$((base + 100 + n));ist.recv_addr=$h:$((base + 200 + n));gcache.size=64M;evs.inactive_timeout=PT5S;evs.suspect_timeout=PT3S"
wsrep_sst_method=rsync
wsrep_sst_receive_address=$h:$((base + 300 + n))
CNF
  # node1 serves the state transfers when it can, so that a test cutting
  # node2 off while node3 rejoins does not cut node3's donor (the trailing
  # comma: any other node when node1 cannot).
  [ "$n" = 1 ] || echo "wsrep_sst_donor=node1,"
}

sql() {  # N ARGS...
  local n=$1; shift
  mariadb -uroot --socket="$dir/node$n/mysqld.sock" "$@"
}

wait_synced() {  # N PID
  for _ in $(seq 1 240); do
    if ! kill -0 "$2" 2>/dev/null; then
      echo "galera: node $1 exited; see $dir/node$1/server.log" >&2
      return 2
    fi
    state=$(sql "$1" -N -e "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | awk '{print $2}' || true)
    [ "$state" = Synced ] && return 0
    sleep 0.5
  done
  echo "galera: node $1 did not reach Synced; see $dir/node$1/server.log" >&2
  return 1
}

start_node() {  # N [--wsrep-new-cluster]
  local n=$1; shift
  local in=()
  [ "$cmd" = start ] && [ ${#netns[@]} -ge "$n" ] && in=(ip netns exec "${netns[$((n - 1))]}")
  "${in[@]}" mariadbd --defaults-file="$dir/node$n/my.cnf" "$@" >>"$dir/node$n/stdout.log" 2>&1 &
  wait_synced "$n" $!
}

case "$cmd" in
  start)
    base=${3:?BASE_PORT}; password=${4:?PASSWORD}
    mkdir -p "$dir"; echo "$base" >"$dir/base_port"
    for n in 1 2 3; do
      # Each node's temporary files in its own directory: two clusters
      # bootstrapping at once in the shared /tmp once broke an install
      # ("Could not remove temporary table '/tmp/#sql-temptable-...'").
      mkdir -p "$dir/node$n/data" "$dir/node$n/tmp"
      node_cnf "$n" "$base" >"$dir/node$n/my.cnf"
      [ "$(id -u)" = 0 ] && chown -R mysql:mysql "$dir/node$n"
    done
    mariadb-install-db --defaults-file="$dir/node1/my.cnf" --auth-root-authentication-method=socket \
      --skip-test-db >"$dir/node1/install.log" 2>&1
    start_node 1 --wsrep-new-cluster
    create_stampede_user "$dir/node1/mysqld.sock" "$password"
    start_node 2
    start_node 3
    ;;
  start-node)
    # A node restarted right after a SIGKILL sometimes exits at once (its
    # group or IST port still held by the dying process): try again.
    n=${3:?N}
    for attempt in 1 2 3; do
      rc=0; start_node "$n" || rc=$?
      [ $rc -eq 0 ] && exit 0
      [ $rc -eq 2 ] && [ $attempt -lt 3 ] || exit 1
      echo "galera: node $n: start attempt $attempt failed; retrying in 2 s" >&2
      sleep 2
    done
    ;;
  kill)
    n=${3:?N}
    kill -9 "$(cat "$dir/node$n/mysqld.pid")"
    ;;
  pid)
    cat "$dir/node${3:?N}/mysqld.pid"
    ;;
  status)
    sql "${3:?N}" -N -e "SHOW STATUS WHERE Variable_name IN ('wsrep_cluster_size','wsrep_cluster_status','wsrep_local_state_comment')"
    ;;
  set-global)
    name=${4:?NAME}; value=${5:?VALUE}
    case "$name$value" in *[!A-Za-z0-9_]*) echo "galera: set-global takes a name and a value of letters, digits and _" >&2; exit 2 ;; esac
    sql "${3:?N}" -e "SET GLOBAL $name = $value"
    ;;
  bootstrap)
    # A component that lost its primary status (quorum lost, or a
    # membership round that timed out) becomes primary again.
    n=${3:?N}
    sql "$n" -e "SET GLOBAL wsrep_provider_options='pc.bootstrap=YES'"
    for _ in $(seq 1 60); do
      sql "$n" -N -e "SHOW STATUS LIKE 'wsrep_cluster_status'" | grep -q Primary && exit 0
      sleep 0.5
    done
    echo "galera: node $n did not become primary" >&2
    exit 1
    ;;
  join)
    n=${3:?N}; base=$(cat "$dir/base_port")
    [ -d "$dir/node$n/data" ] && { echo "galera: node $n exists already" >&2; exit 1; }
    mkdir -p "$dir/node$n/data" "$dir/node$n/tmp"
    node_cnf "$n" "$base" >"$dir/node$n/my.cnf"
    [ "$(id -u)" = 0 ] && chown -R mysql:mysql "$dir/node$n"
    start_node "$n"
    ;;
  leave)
    n=${3:?N}
    f=$dir/node$n/mysqld.pid
    pid=$(cat "$f")
    kill "$pid"
    for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.5; done
    echo "galera: node $n did not shut down" >&2; exit 1
    ;;
  stop)
    for n in $(ls -d "$dir"/node* 2>/dev/null | sed 's/.*node//' | sort -rn); do
      f=$dir/node$n/mysqld.pid
      [ -f "$f" ] || continue
      pid=$(cat "$f"); kill -CONT "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
    done
    ;;
  *) echo "usage: $0 start|stop|kill|start-node|pid|status|bootstrap|join|leave DIR ..." >&2; exit 2 ;;
esac

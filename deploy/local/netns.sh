# Hosts as network namespaces on a bridge, each with its own address
# (10.X.0.N/24, inside namespaces created here, nothing else). Sourced by the
# integration tests (after tests/lib.sh) and by scripts/demo; the caller
# provides on_exit CMD, which must run CMD when it exits. Needs root and
# iproute2 (and openssl for make_certs).
NS=${NS:-stp$$}
NET_ID=${NET_ID:-$((RANDOM % 200 + 20))}

netns_available() {
  ip netns add "${NS}p" 2>/dev/null || return 1
  ip netns del "${NS}p"
}

# Creates hosts 1..N, all on one bridge in a switch namespace.
net_create() {  # N
  ip netns add "${NS}sw"
  on_exit "ip netns del ${NS}sw"
  # For tests/run_test.sh's sweep, should the test be killed.
  [ -n "${STAMPEDE_TEST_TMP:-}" ] && echo "${NS}sw" >>"$STAMPEDE_TEST_TMP/.netns"
  ip -n "${NS}sw" link set lo up
  ip -n "${NS}sw" link add br0 type bridge
  ip -n "${NS}sw" link set br0 up
  for i in $(seq 1 "$1"); do
    ip netns add "${NS}h$i"
    on_exit "ip netns del ${NS}h$i"
    [ -n "${STAMPEDE_TEST_TMP:-}" ] && echo "${NS}h$i" >>"$STAMPEDE_TEST_TMP/.netns"
    ip link add "${NS}h${i}a" type veth peer name "${NS}h${i}b"
    ip link set "${NS}h${i}a" netns "${NS}h$i"
    ip link set "${NS}h${i}b" netns "${NS}sw"
    ip -n "${NS}sw" link set "${NS}h${i}b" master br0 up
    ip -n "${NS}h$i" link set "${NS}h${i}a" name eth0
    ip -n "${NS}h$i" addr add "10.$NET_ID.0.$i/24" dev eth0
    ip -n "${NS}h$i" link set eth0 up
    ip -n "${NS}h$i" link set lo up
  done
}
host_ip() { echo "10.$NET_ID.0.$1"; }
host_ns() { echo "${NS}h$1"; }
# Foreground only: a backgrounded shell function is a subshell whose pid is
# not the command's; start background daemons with ip netns exec directly.
on_host() {  # N CMD...
  local n=$1; shift
  ip netns exec "${NS}h$n" "$@"
}

# A throwaway CA and certificates for mutual TLS: coordinator.pem for IP,
# client.pem for agents and clients.
make_certs() {  # DIR COORDINATOR_IP [AGENT_NAME...]: a CA, the coordinator, each agent, a submitter
  local d=$1 ip=$2
  shift 2
  "$(dirname "${BASH_SOURCE[0]}")/../tls/make-certs" "$d" --coordinator "$ip" --agents "$(IFS=,; echo "$*")" \
    --days 1 >/dev/null
}

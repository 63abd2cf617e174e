#!/usr/bin/env bash
# The container image (deploy/container/Dockerfile), built and run with
# podman as a user would: a base image made from Debian packages (no
# registry is reachable here), the image built from the .deb of this build
# (DEB_FROM=prebuilt: the build stage would compile everything again), then
# a pod with a Redis container, a coordinator container and two agent
# containers; a submitter container runs a crud plan with the coordinator's
# token from the shared state volume. ok inserts = keys in Redis; the image
# runs as the unprivileged stampede user.
#
# Here podman runs containers with runc (crun refuses this machine's
# hybrid cgroups) and with no default ulimits (raising the open-file limit
# is not permitted): $TMP/containers.conf. Images and containers live in
# $TMP/storage, gone with the test.
source "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: needs root (podman with runc and overlay storage in the test's directory)"
  exit 77
fi
for c in mmdebstrap podman runc catatonit cpack; do
  command -v "$c" >/dev/null || fail "$c is missing (scripts/install-deps installs it)"
done
cat >"$TMP/containers.conf" <<'CONF'
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
export CONTAINERS_CONF=$TMP/containers.conf
pm() { podman --root "$TMP/storage" --runroot "$TMP/run" "$@"; }
POD=stampede-test-$$
on_exit "podman --root '$TMP/storage' --runroot '$TMP/run' rmi --all --force"
on_exit "podman --root '$TMP/storage' --runroot '$TMP/run' volume prune --force"
on_exit "podman --root '$TMP/storage' --runroot '$TMP/run' rm --all --force"
on_exit "podman --root '$TMP/storage' --runroot '$TMP/run' pod rm --force --time 5 $POD"

# The base image: Debian 12 from Debian's packages.
mmdebstrap --quiet --variant=minbase bookworm "$TMP/base.tar" >"$TMP/mmdebstrap.log" 2>&1 \
  || fail "mmdebstrap: $(tail -3 "$TMP/mmdebstrap.log")"
pm import --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' "$TMP/base.tar" localhost/debian:12 >/dev/null
rm -f "$TMP/base.tar"

"$ROOT/scripts/package" --no-build --out "$TMP/ctx" >"$TMP/package.out" 2>&1 || fail "scripts/package: $(tail -5 "$TMP/package.out")"
rm -rf "$TMP/ctx/_CPack_Packages"
pm build --network host -q -f "$ROOT/deploy/container/Dockerfile" --build-arg BASE=localhost/debian:12 \
  --build-arg DEB_FROM=prebuilt -t localhost/stampede:test "$TMP/ctx" >"$TMP/build.log" 2>&1 \
  || fail "podman build: $(tail -5 "$TMP/build.log")"
pm run --rm localhost/stampede:test version | head -n 1 | grep -q "^stampede [0-9]" || fail "the image's stampede version"
expect_eq "$(pm run --rm --entrypoint id localhost/stampede:test -un)" stampede "the image's user"
printf 'FROM localhost/debian:12\nRUN apt-get update -qq && apt-get install -y -qq --no-install-recommends redis-server >/dev/null && rm -rf /var/lib/apt/lists/*\nENTRYPOINT ["redis-server"]\n' \
  >"$TMP/Containerfile.redis"
pm build --network host -q -f "$TMP/Containerfile.redis" -t localhost/redis:test "$TMP" >"$TMP/build-redis.log" 2>&1 \
  || fail "podman build (redis): $(tail -5 "$TMP/build-redis.log")"
echo "images: $(pm images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | tr '\n' ';')"

# A pod: one network namespace, as in Kubernetes. The coordinator's state
# (results, submit token) is a volume owned by the image's stampede user.
uid=$(pm run --rm --entrypoint id localhost/stampede:test -u)
mkdir -p "$TMP/state" "$TMP/plan"
chown "$uid:$uid" "$TMP/state" && chmod 700 "$TMP/state"
record() {  # the container's init, for run_test.sh's sweep if this test is killed
  local pid
  pid=$(pm inspect -f '{{.State.Pid}}' "$1")
  echo "$pid $(cut -d' ' -f22 "/proc/$pid/stat")" >>"$TMP/.containers"
}
pm pod create --name "$POD" >/dev/null
pm run -d --pod "$POD" --name "$POD-redis" localhost/redis:test --port 6379 --requirepass "$STAMPEDE_PASSWORD" \
  --save '' --appendonly no >/dev/null
record "$POD-redis"
pm run -d --pod "$POD" --name "$POD-coordinator" -v "$TMP/state:/var/lib/stampede" localhost/stampede:test \
  coordinator --listen 127.0.0.1:7878 --http 127.0.0.1:8480 --results /var/lib/stampede/results >/dev/null
record "$POD-coordinator"
for a in agent-1 agent-2; do
  pm run -d --pod "$POD" --name "$POD-$a" -e STAMPEDE_PASSWORD="$STAMPEDE_PASSWORD" localhost/stampede:test \
    agent --coordinator 127.0.0.1:7878 --name "$a" >/dev/null
  record "$POD-$a"
done
for _ in $(seq 1 100); do [ -s "$TMP/state/coordinator.token" ] && break; sleep 0.1; done
[ -s "$TMP/state/coordinator.token" ] || fail "no token from the coordinator container: $(pm logs "$POD-coordinator" 2>&1 | tail -3)"

cat >"$TMP/plan/plan.yaml" <<YAML
name: container
target: {driver: redis, endpoints: [127.0.0.1:6379], password_env: STAMPEDE_PASSWORD}
agents: {min: 2, wait: 30s}
phases:
  - name: insert
    workload: crud
    workers: 8
    ops: 2000
    params: {reset: true, table: ctr}
YAML
chmod 644 "$TMP/plan/plan.yaml"
pm run --rm --pod "$POD" -v "$TMP/state:/var/lib/stampede" -v "$TMP/plan:/plan:ro" localhost/stampede:test \
  run /plan/plan.yaml --coordinator 127.0.0.1:7878 >"$TMP/run.out" 2>"$TMP/run.err" \
  || fail "the submitter container exited $?: $(tail -3 "$TMP/run.err")"
dir=$(summary_of "$TMP/state/results")
ok=$(jq '.phases[0].ops[] | select(.name=="insert") | .ok' "$dir/summary.json")
keys=$(pm exec "$POD-redis" redis-cli -a "$STAMPEDE_PASSWORD" --no-auth-warning --scan --pattern 'ctr:*' | wc -l)
expect_eq "$ok" 2000 "insert ok in summary.json"
expect_eq "$keys" "$ok" "keys in the Redis container vs insert ok"
for a in agent-1 agent-2; do
  [ "$(jq ".phases[0].agent_ops[\"$a\"] // 0" "$dir/summary.json")" -gt 0 ] || fail "agent container $a did no work"
done
grep -q "$STAMPEDE_PASSWORD" "$dir"/* && fail "the password leaked into results"
pm stop --time 15 "$POD-coordinator" >/dev/null
expect_eq "$(pm inspect -f '{{.State.ExitCode}}' "$POD-coordinator")" 0 "the coordinator container's exit code after podman stop"
pass "image from the .deb on a Debian 12 base (user stampede); pod with redis, coordinator, 2 agents: $ok inserts ok = $keys keys"

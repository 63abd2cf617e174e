#!/usr/bin/env bash
# The container image (deploy/container/Dockerfile), built and run with
# podman as a user would: a base image made from Debian packages (no
# registry is reachable here), the image built from the .deb of this build
# (--target prebuilt: the build stage would compile everything again), then
# deploy/container/compose.yaml with podman-compose: a Redis container, a
# coordinator container and two agent containers; a crud plan submitted in
# the coordinator's container. ok inserts = keys in Redis; the image runs as
# the unprivileged stampede user. Then deploy/k8s/'s redis-demo overlay,
# rendered and played as pods (below).
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
for c in mmdebstrap podman podman-compose runc cpack; do
  command -v "$c" >/dev/null || fail "$c is missing (scripts/install-deps installs it)"
done
mkdir -p "$TMP/cni"
cat >"$TMP/containers.conf" <<CONF
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
[network]
network_config_dir = "$TMP/cni"
CONF
export CONTAINERS_CONF=$TMP/containers.conf
pm() { podman --root "$TMP/storage" --runroot "$TMP/run" "$@"; }
on_exit "podman --root '$TMP/storage' --runroot '$TMP/run' rmi --all --force"
on_exit "podman --root '$TMP/storage' --runroot '$TMP/run' volume prune --force"
on_exit "podman --root '$TMP/storage' --runroot '$TMP/run' rm --all --force"

# The base image: Debian 12 from Debian's packages.
mmdebstrap --quiet --variant=minbase bookworm "$TMP/base.tar" >"$TMP/mmdebstrap.log" 2>&1 \
  || fail "mmdebstrap: $(tail -3 "$TMP/mmdebstrap.log")"
pm import --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' "$TMP/base.tar" localhost/debian:12 >/dev/null
rm -f "$TMP/base.tar"

"$ROOT/scripts/package" --no-build --out "$TMP/ctx" >"$TMP/package.out" 2>&1 || fail "scripts/package: $(tail -5 "$TMP/package.out")"
rm -rf "$TMP/ctx/_CPack_Packages"
pm build --network host -q -f "$ROOT/deploy/container/Dockerfile" --build-arg BASE=localhost/debian:12 \
  --target prebuilt -t localhost/stampede:test "$TMP/ctx" >"$TMP/build.log" 2>&1 \
  || fail "podman build: $(tail -5 "$TMP/build.log")"
pm run --rm localhost/stampede:test version | head -n 1 | grep -q "^stampede [0-9]" || fail "the image's stampede version"
expect_eq "$(pm run --rm --entrypoint id localhost/stampede:test -un)" stampede "the image's user"
printf 'FROM localhost/debian:12\nRUN apt-get update -qq && apt-get install -y -qq --no-install-recommends redis-server redis-tools >/dev/null && rm -rf /var/lib/apt/lists/*\n' \
  >"$TMP/Containerfile.redis"
mkdir -p "$TMP/redis-ctx"
pm build --network host -q -f "$TMP/Containerfile.redis" -t localhost/redis:test "$TMP/redis-ctx" >"$TMP/build-redis.log" 2>&1 \
  || fail "podman build (redis): $(tail -5 "$TMP/build-redis.log")"
echo "images: $(pm images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | tr '\n' ';')"

# deploy/container/compose.yaml as a user runs it (podman-compose), with
# this test's images: a Redis, a coordinator and two agents on their own
# network, names resolved by the network's DNS; the run is submitted from
# inside the coordinator's container, where its token is.
export STAMPEDE_IMAGE=localhost/stampede:test REDIS_IMAGE=localhost/redis:test DB_PASSWORD=$STAMPEDE_PASSWORD
export DASHBOARD_PORT=$(free_port)
PROJECT=stp$$
compose() {
  podman-compose --podman-args "--root $TMP/storage --runroot $TMP/run" -p "$PROJECT" \
    -f "$ROOT/deploy/container/compose.yaml" "$@"
}
on_exit "cd '$TMP' && podman-compose --podman-args '--root $TMP/storage --runroot $TMP/run' -p $PROJECT -f '$ROOT/deploy/container/compose.yaml' down"
compose up -d >"$TMP/compose-up.log" 2>&1 || fail "podman-compose up: $(tail -5 "$TMP/compose-up.log")"
for c in redis_1 coordinator_1 agent_1 agent_2; do
  pid=$(pm inspect -f '{{.State.Pid}}' "${PROJECT}_$c") || fail "no container ${PROJECT}_$c: $(tail -5 "$TMP/compose-up.log")"
  # the container's init, for run_test.sh's sweep if this test is killed
  echo "$pid $(cut -d' ' -f22 "/proc/$pid/stat")" >>"$TMP/.containers"
done
for c in agent_1 agent_2; do
  for _ in $(seq 1 100); do output_has "connected to coordinator" pm logs "${PROJECT}_$c" && break; sleep 0.1; done
done
compose exec coordinator stampede run /plans/redis-crud.yaml --coordinator 127.0.0.1:7878 \
  >"$TMP/run.out" 2>"$TMP/run.err" || fail "the run in the coordinator's container exited $?: $(tail -3 "$TMP/run.err")"
state=$(pm volume inspect -f '{{.Mountpoint}}' "${PROJECT}_state")
dir=$(summary_of "$state/results")
ok=$(jq '[.phases[].ops[] | select(.name=="insert") | .ok] | add' "$dir/summary.json")
keys=$(pm exec "${PROJECT}_redis_1" redis-cli -a "$STAMPEDE_PASSWORD" --no-auth-warning --scan --pattern 'compose:*' | sort -u | wc -l)
[ "$ok" -gt 2000 ] || fail "insert ok in summary.json: $ok (the plan inserts 2000, then more in its mixed phase)"
expect_eq "$keys" "$ok" "keys in the Redis container vs insert ok (both phases)"
expect_eq "$(jq '.phases[0].agent_ops | length' "$dir/summary.json")" 2 "agent containers that did work"
grep -q "$STAMPEDE_PASSWORD" "$dir"/* && fail "the password leaked into results"
metrics=$(curl -fsS "http://127.0.0.1:$DASHBOARD_PORT/metrics") || fail "no /metrics on the published dashboard port"
grep -q "^stampede_" <<<"$metrics" || fail "/metrics on the published dashboard port has no stampede_ series"
pm stop --time 15 "${PROJECT}_coordinator_1" >/dev/null
expect_eq "$(pm inspect -f '{{.State.ExitCode}}' "${PROJECT}_coordinator_1")" 0 "the coordinator container's exit code after podman stop"
compose down >"$TMP/compose-down.log" 2>&1 || fail "podman-compose down: $(tail -3 "$TMP/compose-down.log")"

# deploy/k8s/ played with podman (issue 36): the redis-demo overlay as a
# user renders it, with this test's images; tests/k8s/podman.mjs turns it
# into the Pods podman 4.3 plays (docs/deployment.md, "Kubernetes"); the
# Job's pod runs the plan against them over mutual TLS, and its exit code
# is the run's verdict.
mkdir -p "$TMP/k8snode"
cp "$ROOT/tests/k8s/package.json" "$ROOT/tests/k8s/package-lock.json" "$ROOT/tests/k8s/"*.mjs "$TMP/k8snode/"
(cd "$TMP/k8snode" && npm ci --no-audit --no-fund --silent) >"$TMP/npm.log" 2>&1 || fail "npm ci: $(tail -3 "$TMP/npm.log")"
cp -r "$ROOT/deploy/k8s" "$TMP/k8s"
overlay=$TMP/k8s/overlays/redis-demo
"$ROOT/deploy/tls/make-certs" "$overlay/certs" --coordinator stampede-coordinator,127.0.0.1 --agents stampede-agent-0,stampede-agent-1 >/dev/null
echo "DB_PASSWORD=$STAMPEDE_PASSWORD" >"$overlay/db.env"
cat >>"$overlay/kustomization.yaml" <<'YAML'
images:
  - {name: localhost/stampede, newTag: test}
  - {name: docker.io/library/redis, newName: localhost/redis, newTag: test}
YAML
kubectl kustomize "$overlay" >"$TMP/k8s.yaml" 2>"$TMP/kustomize.err" || fail "kubectl kustomize: $(cat "$TMP/kustomize.err")"
node "$TMP/k8snode/podman.mjs" "$TMP/k8s.yaml" "$TMP/play" || fail "tests/k8s/podman.mjs"
on_exit "podman --root '$TMP/storage' --runroot '$TMP/run' pod rm --all --force"
pm kube play --quiet "$TMP/play/pods.yaml" >"$TMP/kube-play.log" 2>&1 || fail "podman kube play: $(tail -5 "$TMP/kube-play.log")"
for c in redis-redis stampede-coordinator-coordinator stampede-agent-0-agent stampede-agent-1-agent; do
  pid=$(pm inspect -f '{{.State.Pid}}' "$c") || fail "no container $c: $(tail -5 "$TMP/kube-play.log")"
  echo "$pid $(cut -d' ' -f22 "/proc/$pid/stat")" >>"$TMP/.containers"
done
for c in stampede-agent-0-agent stampede-agent-1-agent; do
  # An agent that started before the coordinator listened redials with back-off.
  for _ in $(seq 1 300); do output_has "connected to coordinator" pm logs "$c" && break; sleep 0.1; done
  output_has "connected to coordinator" pm logs "$c" ||
    fail "$c did not connect: $(pm logs "$c" 2>&1 | tail -3); the coordinator: $(pm logs stampede-coordinator-coordinator 2>&1 | tail -5)"
done
pm kube play --quiet "$TMP/play/job.yaml" >>"$TMP/kube-play.log" 2>&1 || fail "podman kube play (the Job): $(tail -5 "$TMP/kube-play.log")"
verdict=$(timeout 120 podman --root "$TMP/storage" --runroot "$TMP/run" wait stampede-run-run) || fail "the Job's pod did not end"
pm logs stampede-run-run >"$TMP/job.out" 2>&1 || true
expect_eq "$verdict" 0 "the Job's exit code (the run's verdict): $(tail -5 "$TMP/job.out")"
kdir=$TMP/play/volumes/stampede-run/results/stampede-run
[ -s "$kdir/summary.json" ] || fail "no results copied to the Job's volume: $(ls -R "$TMP/play/volumes/stampede-run" | head)"
kok=$(jq '[.phases[].ops[] | select(.name=="insert") | .ok] | add' "$kdir/summary.json")
kkeys=$(pm exec redis-redis redis-cli -a "$STAMPEDE_PASSWORD" --no-auth-warning --scan --pattern 'k8s:*' | sort -u | wc -l)
expect_eq "$kkeys" "$kok" "k8s: keys in the Redis pod vs insert ok"
expect_eq "$(jq '.phases[0].agent_ops | keys | join(",")' -r "$kdir/summary.json")" "stampede-agent-0,stampede-agent-1" "k8s: the agents, named by their certificates"
pass "image from the .deb on a Debian 12 base (user stampede); compose.yaml: redis, coordinator, 2 agents: $ok inserts ok = $keys keys; deploy/k8s redis-demo under podman kube play: verdict 0, $kok inserts ok = $kkeys keys"

#!/usr/bin/env bash
# The Debian package, as a user meets it: scripts/package builds the .deb;
# `apt-get install ./stampede_*.deb` into a fresh Debian 12 root (mmdebstrap)
# gives a working stampede (version, validate, man page, the stampede user);
# `systemd-analyze verify` accepts the units; then the root boots under
# systemd-nspawn with systemd as its init, the packaged units run a
# coordinator and two agents exactly as on a real host (their hardening
# included), and a run submitted from outside with the coordinator's token
# completes against a Redis on the host: ok inserts = keys.
source "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: needs root (mmdebstrap, chroot and systemd-nspawn)"
  exit 77
fi
for c in mmdebstrap systemd-nspawn cpack; do
  command -v "$c" >/dev/null || fail "$c is missing (scripts/install-deps installs it)"
done
R=$TMP/root

"$ROOT/scripts/package" --no-build --out "$TMP/pkg" >"$TMP/package.out" 2>&1 || fail "scripts/package: $(tail -5 "$TMP/package.out")"
deb=$(ls "$TMP"/pkg/stampede_*_amd64.deb)
echo "package: ${deb##*/} ($(du -k "$deb" | cut -f1) KB); depends: $(dpkg-deb -f "$deb" Depends | cut -c1-120)..."

# A fresh Debian 12: minbase plus systemd (a server has it) and man-db.
mmdebstrap --quiet --variant=minbase --include=systemd,man-db bookworm "$R" >"$TMP/mmdebstrap.log" 2>&1 \
  || fail "mmdebstrap: $(tail -3 "$TMP/mmdebstrap.log")"
cp "$deb" "$R/tmp/"
chroot "$R" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/${deb##*/}" \
  >"$TMP/apt.log" 2>&1 || fail "apt-get install ./${deb##*/}: $(tail -5 "$TMP/apt.log")"
in_root() { chroot "$R" "$@"; }
in_root stampede version | head -1 | grep -q "^stampede [0-9]" || fail "stampede version: $(in_root stampede version 2>&1)"
# Each example on its own: the agent config's allow list is for a
# database network, the quickstart plan for a local PostgreSQL (validate
# checks a plan against the agent configs it is given).
in_root stampede validate /usr/share/doc/stampede/examples/plans/quickstart.yaml >"$TMP/validate.out" 2>&1 \
  || fail "validate in the root: $(cat "$TMP/validate.out")"
in_root stampede validate --agent-config /usr/share/doc/stampede/examples/agent.yaml.example >"$TMP/validate.out" 2>&1 \
  || fail "validate --agent-config in the root: $(cat "$TMP/validate.out")"
output_has "stampede agent" in_root man -P cat stampede || fail "man stampede has no agent section"
in_root getent passwd stampede >/dev/null || fail "the package did not create the stampede user"

# The units from the repository, checked where they are installed.
mkdir -p "$R/tmp/units"
cp "$ROOT"/deploy/systemd/*.service "$R/tmp/units/"
in_root sh -c 'systemd-analyze verify /tmp/units/*.service' >"$TMP/verify.out" 2>&1 \
  || fail "systemd-analyze verify: $(cat "$TMP/verify.out")"
cmp -s "$R/usr/lib/systemd/system/stampede-coordinator.service" "$ROOT/deploy/systemd/stampede-coordinator.service" \
  || fail "the packaged coordinator unit differs from deploy/systemd"
exposure=$(in_root systemd-analyze security --offline=true /usr/lib/systemd/system/stampede-coordinator.service 2>/dev/null \
  | sed -n 's/.*Overall exposure level for [^:]*: *\([0-9.]* [A-Z]*\).*/\1/p')
echo "systemd-analyze verify: ok; coordinator exposure: ${exposure:-?}"

# Boot it: the packaged units, configured as docs/deployment.md says.
start_redis
COORD_PORT=$(free_port)
HTTP_PORT=$(free_port)
mkdir -p "$R/etc/stampede"
echo "STAMPEDE_OPTS=--listen 127.0.0.1:$COORD_PORT --http 127.0.0.1:$HTTP_PORT" >"$R/etc/stampede/coordinator.env"
printf 'STAMPEDE_OPTS=--coordinator 127.0.0.1:%s --label role=load\nSTAMPEDE_PASSWORD=%s\n' \
  "$COORD_PORT" "$STAMPEDE_PASSWORD" >"$R/etc/stampede/agent.env"
chmod 600 "$R"/etc/stampede/*.env
in_root systemctl enable stampede-coordinator.service stampede-agent@client-1.service \
  stampede-agent@client-2.service >/dev/null 2>&1 || fail "systemctl enable in the root"
systemd-nspawn -q --register=no --keep-unit -D "$R" -b >"$TMP/boot.log" 2>&1 </dev/null &
NSPAWN_PID=$!
# Without systemd on the host, the container's init outlives a killed
# systemd-nspawn: the cleanup (and run_test.sh's sweep, from .containers)
# kills that init, which takes the whole container with it.
for _ in $(seq 1 100); do INIT_PID=$(pgrep -P "$NSPAWN_PID" | head -n 1) && break; sleep 0.1; done
[ -n "${INIT_PID:-}" ] || fail "systemd-nspawn started no init: $(tail -3 "$TMP/boot.log")"
echo "$INIT_PID $(cut -d' ' -f22 "/proc/$INIT_PID/stat")" >>"$TMP/.containers"
on_exit "kill -9 $INIT_PID $NSPAWN_PID"
on_exit "kill -TERM $NSPAWN_PID; for _ in \$(seq 1 100); do kill -0 $NSPAWN_PID || break; sleep 0.1; done"
wait_for_line "$TMP/boot.log" "Reached target.*[Mm]ulti-[Uu]ser" 600

token=$R/var/lib/stampede/coordinator.token
for _ in $(seq 1 100); do [ -s "$token" ] && break; sleep 0.1; done
[ -s "$token" ] || fail "the coordinator unit made no token (boot log: $(tail -5 "$TMP/boot.log"))"
cat >"$TMP/plan.yaml" <<YAML
name: packaged
$(target_yaml redis)
agents: {min: 2, wait: 30s}
phases:
  - name: insert
    workload: crud
    workers: 8
    ops: 2000
    params: {reset: true, table: pkg}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --coordinator "127.0.0.1:$COORD_PORT" --token-file "$token" \
  >"$TMP/run.out" 2>"$TMP/run.err" || fail "run through the packaged units exited $?: $(tail -3 "$TMP/run.err")"
dir=$(summary_of "$R/var/lib/stampede/results")
ok=$(jq '.phases[0].ops[] | select(.name=="insert") | .ok' "$dir/summary.json")
keys=$(db_count redis pkg | tr -d ' ')
expect_eq "$ok" 2000 "insert ok in the packaged coordinator's summary.json"
expect_eq "$keys" "$ok" "keys in Redis vs insert ok"
for a in client-1 client-2; do
  [ "$(jq ".phases[0].agent_ops[\"$a\"] // 0" "$dir/summary.json")" -gt 0 ] || fail "agent $a (its unit) did no work"
done
uid=$(in_root getent passwd stampede | cut -d: -f3)
expect_eq "$(stat -c %u "$R/var/lib/stampede/results")" "$uid" "owner of the coordinator's results (the stampede user's uid)"

# Shut the machine down as systemd does: SIGTERM to the units.
kill -TERM "$NSPAWN_PID"
for _ in $(seq 1 300); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$NSPAWN_PID" 2>/dev/null && fail "the booted root did not shut down in 30 s"
pass "apt-get install ./${deb##*/} on fresh Debian 12; units verified; coordinator + 2 agent units: $ok inserts ok = $keys keys"

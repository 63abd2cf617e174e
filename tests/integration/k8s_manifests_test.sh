#!/usr/bin/env bash
# deploy/k8s/ as a user renders it (issue 36; no cluster is reachable
# here): each overlay, with certificates from deploy/tls/make-certs and a
# db.env, rendered by `kubectl kustomize`; every object validated against
# the Kubernetes API's OpenAPI schema by kubernetes-models (npm, pinned in
# tests/k8s/package-lock.json); a broken manifest (replicas: "two") caught;
# and the stampede containers' image, ports and user matched to
# deploy/container/Dockerfile, non-root, read-only root, no privilege.
source "$(dirname "$0")/../lib.sh"
command -v kubectl >/dev/null || fail "kubectl is missing (it is on the machine image)"
cp "$ROOT/tests/k8s/package.json" "$ROOT/tests/k8s/package-lock.json" "$ROOT/tests/k8s/"*.mjs "$TMP/"
(cd "$TMP" && npm ci --no-audit --no-fund --silent) >"$TMP/npm.log" 2>&1 || fail "npm ci: $(tail -3 "$TMP/npm.log")"

cp -r "$ROOT/deploy/k8s" "$TMP/k8s"
dockerfile=$ROOT/deploy/container/Dockerfile
image_ports=$(awk '$1 == "EXPOSE" { $1 = ""; print }' "$dockerfile" | head -n 1 | xargs | tr ' ' ',')
image_uid=$(grep -o 'useradd --system --uid [0-9]*' "$dockerfile" | head -n 1 | awk '{ print $4 }')
[ -n "$image_ports" ] && [ -n "$image_uid" ] || fail "cannot read EXPOSE and the user id from $dockerfile"

for overlay in redis-demo scale; do
  d=$TMP/k8s/overlays/$overlay
  agents=$(grep -o 'certs/stampede-agent-[0-9]*\.pem' "$d/kustomization.yaml" | sed 's|certs/||; s|\.pem||' | paste -sd,)
  "$ROOT/deploy/tls/make-certs" "$d/certs" --coordinator stampede-coordinator --agents "$agents" >/dev/null \
    || fail "$overlay: make-certs"
  echo "DB_PASSWORD=$STAMPEDE_PASSWORD" >"$d/db.env"
  [ -f "$d/plan.yaml" ] || cp "$ROOT/configs/redis-cluster-kv.yaml" "$d/plan.yaml"
  kubectl kustomize "$d" >"$TMP/$overlay.yaml" 2>"$TMP/$overlay.err" || fail "$overlay: kubectl kustomize: $(cat "$TMP/$overlay.err")"
  node "$TMP/validate.mjs" "$TMP/$overlay.yaml" >"$TMP/$overlay.out" 2>&1 || fail "$overlay: $(grep -v '^ok' "$TMP/$overlay.out")"
  echo "$overlay: $(grep -c '^ok' "$TMP/$overlay.out") objects valid ($(grep '^ok' "$TMP/$overlay.out" | awk '{ print $3 }' | cut -d/ -f1 | sort | uniq -c | xargs))"

  # The replicas the certificates were made for.
  replicas=$(node -e '
    const { parseAllDocuments } = require(process.argv[1]);
    for (const d of parseAllDocuments(require("fs").readFileSync(process.argv[2], "utf8"))) {
      const o = d.toJS(); if (o?.kind === "StatefulSet") console.log(o.spec.replicas);
    }' "$TMP/node_modules/yaml" "$TMP/$overlay.yaml")
  expect_eq "$replicas" "$(tr ',' '\n' <<<"$agents" | wc -l)" "$overlay: agents with a certificate"

  # Every stampede container: the Dockerfile's image, ports and user.
  node "$TMP/containers.mjs" "$TMP/$overlay.yaml" >"$TMP/$overlay.containers"
  [ "$(wc -l <"$TMP/$overlay.containers")" -eq 3 ] || fail "$overlay: expected 3 stampede containers: $(cat "$TMP/$overlay.containers")"
  while read -r what image ports user ro esc; do
    expect_eq "$image" localhost/stampede:latest "$what: image (the tag deploy/container/compose.yaml builds)"
    case "$what" in Deployment/stampede-coordinator) expect_eq "$ports" "$image_ports" "$what: ports (the Dockerfile's EXPOSE)" ;; esac
    expect_eq "$user" "$image_uid" "$what: runAsUser (the Dockerfile's stampede user)"
    expect_eq "$ro" true "$what: read-only root filesystem"
    expect_eq "$esc" false "$what: privilege escalation"
  done <"$TMP/$overlay.containers"
done

# No secret in what is committed: the overlays' certs/ and db.env are
# ignored by git.
for f in certs/ca.pem db.env; do
  git -C "$ROOT" check-ignore -q "deploy/k8s/overlays/redis-demo/$f" || fail "deploy/k8s/overlays/redis-demo/$f is not ignored by git"
done

# docs/deployment.md's own overlay, as written there and run twice: it
# renders redis-demo with the image it names.
overlay=$(awk '/^cat >deploy\/k8s\/overlays\/local\/kustomization.yaml/ { on = 1; next } on && /^YAML$/ { exit } on' \
  "$ROOT/docs/deployment.md")
grep -q '^resources: \[../redis-demo\]' <<<"$overlay" || fail "docs/deployment.md: no local overlay found: $overlay"
for _ in 1 2; do
  mkdir -p "$TMP/k8s/overlays/local"
  printf '%s\n' "$overlay" >"$TMP/k8s/overlays/local/kustomization.yaml"
  kubectl kustomize "$TMP/k8s/overlays/local" >"$TMP/local.yaml" 2>"$TMP/local.err" || fail "local overlay: $(cat "$TMP/local.err")"
done
images=$(grep -o 'image: .*stampede.*' "$TMP/local.yaml" | sort -u | xargs)
expect_eq "$images" "image: registry.example/stampede:1" "the local overlay's image"

# The validator catches a broken manifest.
sed 's/^  replicas: 2$/  replicas: "two"/' "$TMP/redis-demo.yaml" >"$TMP/broken.yaml"
grep -q 'replicas: "two"' "$TMP/broken.yaml" || fail "the mutation did not apply"
if node "$TMP/validate.mjs" "$TMP/broken.yaml" >"$TMP/broken.out" 2>&1; then fail "replicas: \"two\" passed validation"; fi
grep -q 'INVALID apps/v1 StatefulSet/stampede-agent: .*replicas must be integer' "$TMP/broken.out" \
  || fail "the broken StatefulSet was not named: $(grep -v '^ok' "$TMP/broken.out")"
echo "caught: $(grep INVALID "$TMP/broken.out")"
pass "k8s manifests: both overlays render, validate against the API schema, and match the image"

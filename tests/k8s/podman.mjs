// Turns rendered deploy/k8s manifests into what podman 4.3's `kube play`
// can run on one machine (docs/deployment.md, "Kubernetes"): podman plays
// Pods and Deployments, but not StatefulSets, Jobs, Services or Secrets.
//
//   node podman.mjs rendered.yaml OUTDIR
//
// writes OUTDIR/pods.yaml (the Deployments and the StatefulSet's pods) and
// OUTDIR/job.yaml (the Job's pod), with:
//   - a Deployment as one Pod of its template, named after it;
//   - a StatefulSet as `replicas` Pods named NAME-0, NAME-1, ...;
//   - a Job as one Pod that is never restarted;
//   - an env from the downward API's metadata.name as the pod's name, an
//     env from a Secret's key as its value, and $(VAR) in args expanded;
//   - Secret, projected and ConfigMap volumes as host directories of their
//     files, and claims and emptyDirs as empty host directories
//     (OUTDIR/volumes/POD/VOLUME), owned by the pod's runAsUser;
//   - every pod on the host's network, and each Service's NAME:PORT in
//     args and in ConfigMaps (the plan) as 127.0.0.1:PORT: podman 4.3
//     writes no hostAliases there, and maps no ports (the containers' port
//     lists and readiness probes go), so the manifests' ports hold.
import { chownSync, mkdirSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";

const [, , input, outDir] = process.argv;
const objects = parseAllDocuments(readFileSync(input, "utf8"))
  .map((d) => d.toJS())
  .filter(Boolean);
const byKind = (kind) => objects.filter((o) => o.kind === kind);
const secrets = new Map(byKind("Secret").map((s) => [s.metadata.name, s]));
const configMaps = new Map(byKind("ConfigMap").map((c) => [c.metadata.name, c]));
// Every pod is on the host's network, where podman 4.3 writes no
// hostAliases: a Service's NAME:PORT in args and plans becomes
// 127.0.0.1:PORT (the coordinator's certificate names 127.0.0.1 too).
const services = byKind("Service").map((s) => s.metadata.name);
const local = (text) =>
  services.reduce((t, name) => t.replace(new RegExp(`(?<![\\w.-])${name}(?=:[0-9])`, "g"), "127.0.0.1"), text);

function secretFiles(name) {
  const s = secrets.get(name);
  if (!s) throw new Error(`no Secret ${name}`);
  return Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v).replace(/\s/g, ""), "base64")]);
}

// A host directory holding the volume's files, owned by the pod's user.
function hostVolume(pod, volume, uid) {
  const dir = join(outDir, "volumes", pod, volume.name);
  mkdirSync(dir, { recursive: true });
  let files = [];
  if (volume.secret) files = secretFiles(volume.secret.secretName);
  if (volume.projected) {
    for (const src of volume.projected.sources) files.push(...secretFiles(src.secret.name));
  }
  if (volume.configMap) {
    files = Object.entries(configMaps.get(volume.configMap.name).data).map(([k, v]) => [k, local(v)]);
  }
  for (const [name, data] of files) {
    writeFileSync(join(dir, name), data, { mode: 0o400 });
    chownSync(join(dir, name), uid, uid);
  }
  chownSync(dir, uid, uid);
  return { name: volume.name, hostPath: { path: dir, type: "Directory" } };
}

function env(container, podName) {
  return (container.env ?? []).map((e) => {
    if (e.valueFrom?.fieldRef?.fieldPath === "metadata.name") return { name: e.name, value: podName };
    if (e.valueFrom?.secretKeyRef) {
      const ref = e.valueFrom.secretKeyRef;
      const file = secretFiles(ref.name).find(([k]) => k === ref.key);
      if (!file) throw new Error(`no key ${ref.key} in Secret ${ref.name}`);
      return { name: e.name, value: file[1].toString() };
    }
    return e;
  });
}

function pod(name, template, claims = [], restartPolicy = undefined) {
  const spec = structuredClone(template.spec);
  const uid = spec.securityContext?.runAsUser ?? 0;
  const volumes = [...(spec.volumes ?? []), ...claims.map((c) => ({ name: c.metadata.name, emptyDir: {} }))];
  spec.volumes = volumes.map((v) => hostVolume(name, v, uid));
  spec.containers = spec.containers.map((c) => {
    const vars = env(c, name);
    // $(VAR) in args, from the container's env, as the kubelet expands it.
    const expand = (a) => a.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, v) => vars.find((e) => e.name === v)?.value ?? m);
    // On the host's network a container's ports are its own: podman refuses
    // port mappings there, and a probe of a named port has none to name.
    const { ports, readinessProbe, ...rest } = c;
    void ports, readinessProbe;
    return { ...rest, env: vars, args: (c.args ?? []).map((a) => local(expand(a))) };
  });
  delete spec.affinity;
  spec.hostNetwork = true;
  if (restartPolicy) spec.restartPolicy = restartPolicy;
  return { apiVersion: "v1", kind: "Pod", metadata: { name, labels: template.metadata?.labels }, spec };
}

const pods = [];
for (const d of byKind("Deployment")) pods.push(pod(d.metadata.name, d.spec.template));
for (const s of byKind("StatefulSet")) {
  for (let i = 0; i < s.spec.replicas; i++) {
    pods.push(pod(`${s.metadata.name}-${i}`, s.spec.template, s.spec.volumeClaimTemplates ?? []));
  }
}
const jobs = byKind("Job").map((j) => pod(j.metadata.name, j.spec.template, [], "Never"));
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "pods.yaml"), pods.map((p) => stringify(p)).join("---\n"));
writeFileSync(join(outDir, "job.yaml"), jobs.map((p) => stringify(p)).join("---\n"));
console.log(`pods: ${pods.map((p) => p.metadata.name).join(" ")}; job: ${jobs.map((p) => p.metadata.name).join(" ")}`);

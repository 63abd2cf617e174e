// Prints, for each stampede container of rendered manifests, one line:
//   KIND/NAME IMAGE PORTS RUN_AS_USER READ_ONLY_ROOT PRIVILEGE_ESCALATION
// (PORTS comma-separated, "-" for none), for the manifest test to compare
// with deploy/container/Dockerfile.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

for (const doc of parseAllDocuments(readFileSync(process.argv[2], "utf8"))) {
  const obj = doc.toJS();
  const spec = obj?.spec?.template?.spec;
  if (!spec) continue;
  for (const c of spec.containers ?? []) {
    if (!String(c.image).includes("stampede")) continue;
    const ports = (c.ports ?? []).map((p) => p.containerPort).join(",") || "-";
    const user = c.securityContext?.runAsUser ?? spec.securityContext?.runAsUser ?? "-";
    const ro = c.securityContext?.readOnlyRootFilesystem === true;
    const esc = c.securityContext?.allowPrivilegeEscalation !== false;
    console.log(`${obj.kind}/${obj.metadata.name} ${c.image} ${ports} ${user} ${ro} ${esc}`);
  }
}

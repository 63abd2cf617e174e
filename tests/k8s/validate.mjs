// Validates every object of rendered Kubernetes manifests (a multi-document
// YAML file) against the Kubernetes API's OpenAPI schema, with the model
// classes of kubernetes-models (npm, pinned in package-lock.json). Prints
// one line per object; exits 1 if any object is invalid or of a kind the
// schema does not know.
//   node validate.mjs rendered.yaml
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

const file = process.argv[2];
const docs = parseAllDocuments(readFileSync(file, "utf8"));
let bad = 0;
for (const doc of docs) {
  if (doc.errors.length) {
    console.log(`INVALID YAML: ${doc.errors[0].message}`);
    bad++;
    continue;
  }
  const obj = doc.toJS();
  if (obj === null) continue;
  const what = `${obj.apiVersion} ${obj.kind}/${obj.metadata?.name}`;
  // kustomize wraps a Secret's base64 at 76 columns. The API server reads
  // it with Go's encoding/base64, which ignores line breaks; the schema's
  // "byte" format does not, so the breaks go before the check.
  if (obj.kind === "Secret" && obj.data) {
    for (const k of Object.keys(obj.data)) obj.data[k] = String(obj.data[k]).replace(/[\r\n]/g, "");
  }
  // "v1" is the core group; "apps/v1" is group/version.
  const path = `kubernetes-models/${obj.apiVersion}`;
  let Model;
  try {
    Model = (await import(path))[obj.kind];
  } catch (e) {
    Model = undefined;
  }
  if (!Model) {
    console.log(`UNKNOWN ${what}: no such kind in the schema`);
    bad++;
    continue;
  }
  try {
    new Model(obj).validate();
    console.log(`ok ${what}`);
  } catch (e) {
    console.log(`INVALID ${what}: ${e.message}`);
    bad++;
  }
}
if (docs.length === 0) {
  console.log("no objects");
  bad++;
}
process.exit(bad ? 1 : 0);

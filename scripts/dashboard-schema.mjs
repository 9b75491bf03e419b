#!/usr/bin/env node
// Writes examples/schemas/dashboard.json: the JSON Schema of a dashboard file, exactly what
// GET /schemas/dashboard.json serves (src/dashboards-as-code/file-schema.ts) without its
// deployment-specific `$id`. The example dashboards point their `$schema` at it by a relative
// path, so an editor completes and checks them with no server running, and at the schema of this
// checkout rather than of whatever answers on localhost (test/dashboards-as-code/versions.test.ts
// fails when the file and the served schema differ: run `npm run dashboard-schema`).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inProcess } from "./openapi-document.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const EXAMPLE_SCHEMA_FILE = join(root, "examples", "schemas", "dashboard.json");

const schema = await inProcess(
  `import { dashboardJsonSchema } from ${JSON.stringify(join(root, "src", "dashboards-as-code", "file-schema.ts"))};\n` +
    `export const document = dashboardJsonSchema("");\n`,
);
const { $id: _deploymentSpecific, ...committed } = schema;
writeFileSync(EXAMPLE_SCHEMA_FILE, `${JSON.stringify(committed, null, 2)}\n`);

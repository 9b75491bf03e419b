#!/usr/bin/env node
// `npm run lint` (and `npm test`, before the type check): Redocly CLI's rules (redocly.yaml)
// on the OpenAPI document the Worker serves at /openapi.json, written without a server by
// scripts/openapi-document.mjs. Offline: Redocly's telemetry and update check are off.
// Exits non-zero on any error; prints Redocly's summary either way.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiDocument } from "./openapi-document.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// The document names the origin it is served from (`servers`); linted as a deployed Worker's
// would be, not as localhost's (which Redocly rightly warns about). `.invalid` never resolves.
const origin = process.env.OPENAPI_LINT_ORIGIN ?? "https://dashboard-api.invalid";

const dir = mkdtempSync(join(tmpdir(), "openapi-lint-"));
try {
  const file = join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(await openApiDocument(origin), null, 2));
  const lint = spawnSync(
    process.execPath,
    [
      join(root, "node_modules", "@redocly", "cli", "bin", "cli.js"),
      "lint",
      file,
      "--config",
      join(root, "redocly.yaml"),
      "--format=summary",
    ],
    {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_SUPPRESS_UPGRADE_NOTICE: "true" },
    },
  );
  process.exitCode = lint.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

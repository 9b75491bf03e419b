#!/usr/bin/env node
// `npm test`: local Chromium for Browser Rendering (scripts/ensure-chrome.mjs), the browser's
// scripts built (scripts/build-browser.mjs), the generated binding types checked current
// (wrangler types --check), lint (biome, and Redocly on /openapi.json), type check (the Worker's and the browser's projects),
// import direction (scripts/check-imports.mjs),
// the local PostgreSQL (scripts/lib/local-postgres.mjs), MySQL (scripts/lib/local-mysql.mjs) and ClickHouse
// (scripts/lib/local-clickhouse.mjs), then every vitest project, on a Node
// that runs wrangler (scripts/lib/node-runtime.mjs).
// Ends with one plain summary line ("Summary: N passed, N failed, N skipped").
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { withProjectCacheHome } from "./lib/cache-home.mjs";
import { clickhouseTestEnv, ensureLocalClickhouse } from "./lib/local-clickhouse.mjs";
import { ensureLocalMysql } from "./lib/local-mysql.mjs";
import { ensureLocalPostgres } from "./lib/local-postgres.mjs";
import { ensureNode } from "./lib/node-runtime.mjs";
import { warehouseConnectionString } from "./lib/warehouse.mjs";

await ensureNode();
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
spawnSync(process.execPath, [join(root, "scripts", "ensure-chrome.mjs")], { stdio: "inherit" });
spawnSync(process.execPath, [join(root, "scripts", "docs-assets.mjs")], { stdio: "inherit" });

// The scripts the browser runs (src/**/browser/), built into .build/browser/ before the type
// check and the tests that import and serve them (scripts/build-browser.mjs).
const browserBuild = spawnSync(process.execPath, [join(root, "scripts", "build-browser.mjs")], { cwd: root, stdio: "inherit" });
if (browserBuild.status !== 0) {
  console.log("Summary: 0 passed, 1 failed, 0 skipped");
  process.exit(1);
}

// The binding types (worker-configuration.d.ts, from wrangler.toml) must be current: a binding
// or var added without `npm run types` fails here, offline, before the type check trusts them.
// Same flags as `npm run types` (no secrets from .dev.vars, runtime types from
// @cloudflare/workers-types), so the file is the same on every machine.
const bindingTypes = spawnSync(
  process.execPath,
  [
    join(root, "node_modules", "wrangler", "bin", "wrangler.js"),
    "types",
    "--check",
    "--env-file=/dev/null",
    "--include-runtime=false",
    "--strict-vars=false",
  ],
  { cwd: root, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
);
if (bindingTypes.status !== 0) {
  console.error(
    `${bindingTypes.stdout}${bindingTypes.stderr}\nworker-configuration.d.ts is not what wrangler.toml declares: run \`npm run types\` and commit it.`,
  );
  console.log("Summary: 0 passed, 1 failed, 0 skipped");
  process.exit(1);
}

// Lint and format first (biome.json; `npx biome check --write` fixes what it can), then
// types: either fails the run before any test starts.
const lint = spawnSync(process.execPath, [join(root, "node_modules", "@biomejs", "biome", "bin", "biome"), "ci", "--reporter=summary"], {
  cwd: root,
  stdio: "inherit",
});
if (lint.status !== 0) {
  console.log("Summary: 0 passed, 1 failed, 0 skipped");
  process.exit(1);
}

// The OpenAPI document /openapi.json serves, linted with Redocly's recommended rules
// (redocly.yaml; scripts/lint-openapi.mjs): any error fails the run here too.
const openApiLint = spawnSync(process.execPath, [join(root, "scripts", "lint-openapi.mjs")], { cwd: root, stdio: "inherit" });
if (openApiLint.status !== 0) {
  console.log("Summary: 0 passed, 1 failed, 0 skipped");
  process.exit(1);
}

// Types: a type error fails the run before any test starts. Three projects: the Worker, tests
// and scripts (tsconfig.json), the browser's scripts with the DOM lib (tsconfig.browser.json),
// and the SDK package's sources against its declarations (packages/embed/tsconfig.json).
for (const project of ["tsconfig.json", "tsconfig.browser.json", "packages/embed/tsconfig.json"]) {
  const typecheck = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", project], {
    cwd: root,
    stdio: "inherit",
  });
  if (typecheck.status !== 0) {
    console.log("Summary: 0 passed, 1 failed, 0 skipped");
    process.exit(1);
  }
}

// Then the import direction of src/ (scripts/check-imports.mjs: db and lib import nothing
// above them, http no capability, no capability the app or the entry point).
const imports = spawnSync(process.execPath, [join(root, "scripts", "check-imports.mjs")], { cwd: root, stdio: "inherit" });
if (imports.status !== 0) {
  console.log("Summary: 0 passed, 1 failed, 0 skipped");
  process.exit(1);
}

// PostgreSQL data source tests need the server of the WAREHOUSE connection string: a running
// one is used; when nothing answers there (or it refuses that login), one from the npm
// registry runs for this test run, and vitest and every server it starts are told where.
const warehouse = await ensureLocalPostgres(warehouseConnectionString(root), { ownPortIfRefused: true }).catch((error) => {
  console.error(`local-postgres: ${error.message}`);
  return { stop: async () => {}, connectionString: undefined };
});
if (warehouse.connectionString) process.env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE = warehouse.connectionString;

// MySQL data source tests need a MySQL-protocol server (scripts/lib/local-mysql.mjs):
// MYSQL_TEST_URL, else one started for this run from a mariadbd/mysqld here (installed from
// Debian's packages first where that can be done). Without one those tests are skipped —
// unless MYSQL_REQUIRED is set (`.ci/run`), which fails the run instead.
const mysqlServer = await ensureLocalMysql().catch((error) => ({ stop: async () => {}, skipped: `it did not start: ${error.message}` }));
if (mysqlServer.skipped) {
  console.log(`local-mysql: MySQL tests skipped: ${mysqlServer.skipped}`);
  if (process.env.MYSQL_REQUIRED) {
    console.log("Summary: 0 passed, 1 failed, 0 skipped");
    await warehouse.stop();
    process.exit(1);
  }
} else {
  process.env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE_MYSQL = mysqlServer.connectionString;
  process.env.MYSQL_TEST_ADMIN_URL = mysqlServer.adminConnectionString;
}

// ClickHouse data source tests need a ClickHouse server (scripts/lib/local-clickhouse.mjs):
// CLICKHOUSE_TEST_URL, else the tests' own (the real engine from the chdb package behind
// ClickHouse's HTTP interface). Skipped only where neither can be had — unless
// CLICKHOUSE_REQUIRED is set (`.ci/run`).
const clickhouseServer = await ensureLocalClickhouse().catch((error) => ({
  stop: async () => {},
  skipped: `it did not start: ${error.message}`,
}));
if (clickhouseServer.skipped) {
  console.log(`local-clickhouse: ClickHouse tests skipped: ${clickhouseServer.skipped}`);
  if (process.env.CLICKHOUSE_REQUIRED) {
    console.log("Summary: 0 passed, 1 failed, 0 skipped");
    await warehouse.stop();
    await mysqlServer.stop();
    process.exit(1);
  }
} else Object.assign(process.env, clickhouseTestEnv(clickhouseServer));

const dir = mkdtempSync(join(tmpdir(), "vitest-"));
const report = join(dir, "results.json");
const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
const run = spawnSync(
  process.execPath,
  [vitest, "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  // Miniflare (in vitest's process) starts Browser Rendering's Chrome from this checkout's cache.
  { cwd: root, stdio: "inherit", env: withProjectCacheHome() },
);
if (existsSync(report)) {
  const results = JSON.parse(readFileSync(report, "utf8"));
  const skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
  console.log(`Summary: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`);
}
rmSync(dir, { recursive: true, force: true });
await warehouse.stop();
await mysqlServer.stop();
await clickhouseServer.stop();
process.exit(run.status ?? 1);

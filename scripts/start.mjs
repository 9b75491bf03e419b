#!/usr/bin/env node
// `npm start`: the whole service locally, every binding simulated, no account needed
// (docs/api-contract.md, "Running locally"). Data and tokens live in .wrangler/state and
// .dev.vars and survive restarts.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { adminClient, pushDashboard } from "./lib/admin-client.mjs";
import { withProjectCacheHome } from "./lib/cache-home.mjs";
import { ensureDevVars } from "./lib/dev-vars.mjs";
import { startLocalCron } from "./lib/local-cron.mjs";
import { ensureDevMysql } from "./lib/local-mysql.mjs";
import { stopChromiums, wranglerOutput } from "./lib/server-output.mjs";
import { ensureLocalPostgres } from "./lib/local-postgres.mjs";
import { ensureNode } from "./lib/node-runtime.mjs";
import { demoDataSql, workspaceSeedSql } from "./lib/seed.mjs";
import { DARK_THEME, demoThemes } from "./lib/demo-themes.mjs";
import { warehouseConnectionString } from "./lib/warehouse.mjs";
import { mysqlConnectionString } from "./lib/warehouse-mysql.mjs";

// A server started for a script (scripts/lib/local-server.mjs names it in STOP_WITH_PID)
// goes when that script goes, however it ended: one killed by a timeout or a signal it could
// not catch never runs its stop(), and its server would hold the machine's CPU and ports. The
// script starts this one as the leader of its own process group: wrangler, workerd and
// PostgreSQL are in it, and wrangler closes the local Chromium (a group of its own) as it stops.
stopWithOwner();

await ensureNode();
const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const port = Number(process.env.PORT ?? 8787);

// A server left running on the port would answer the readiness check below, and this run
// would seed, report and be benchmarked against that other server without a word.
const portInUse = await new Promise((resolve) => {
  const probe = createServer()
    .once("error", () => resolve(true))
    .listen(port, "127.0.0.1", () => probe.close(() => resolve(false)));
});
if (portInUse) {
  console.error(
    `Port ${port} is already in use on 127.0.0.1 (another \`npm start\` still running?). Stop it, or choose another port: PORT=8788 npm start`,
  );
  process.exit(1);
}
const stateDir = process.env.STATE_DIR ?? join(root, ".wrangler", "state");
const persist = ["--persist-to", stateDir];
const wranglerBin = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
// Every Chromium that Browser Rendering starts for this server writes its pid here (the wrapper
// of scripts/ensure-chrome.mjs): stopped with SIGTERM, wrangler leaves its Chromium running in
// a process group of its own, so this script ends them itself (stopAll below).
const chromePids = mkdtempSync(join(tmpdir(), "local-chrome-"));
// CLOUDFLARE_CF_FETCH_ENABLED=false: no fetch of `Request.cf` from workers.cloudflare.com, which
// offline only printed two ENOTFOUND traces; a placeholder serves locally either way.
const childEnv = withProjectCacheHome({
  ...process.env,
  CI: "true",
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  LOCAL_CHROME_PIDS: chromePids,
});

function wrangler(args, options = {}) {
  const result = spawnSync(process.execPath, [wranglerBin, ...args], {
    cwd: root,
    env: childEnv,
    stdio: options.quiet ? "pipe" : "inherit",
    encoding: "utf8",
  });
  if (result.status !== 0) {
    if (options.quiet) process.stderr.write(`${result.stdout}\n${result.stderr}`);
    throw new Error(`wrangler ${args.join(" ")} failed`);
  }
  return result;
}

function executeSql(binding, sql) {
  const dir = mkdtempSync(join(tmpdir(), "seed-"));
  const file = join(dir, "seed.sql");
  writeFileSync(file, sql);
  try {
    wrangler(["d1", "execute", binding, "--local", ...persist, `--file=${file}`], { quiet: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// PostgreSQL data sources (`npm run demo:postgres`) need the server of the WAREHOUSE
// connection string: a running one is used; when nothing answers there, one from the npm
// registry runs as long as this server does. It starts while wrangler does.
const warehouse = ensureLocalPostgres(warehouseConnectionString(root)).catch((error) => {
  console.error(`local-postgres: ${error.message}`);
  return { stop: async () => {} };
});
// MySQL data sources (`npm run demo:mysql`) likewise: a server that answers at the
// WAREHOUSE_MYSQL connection string is used; else a MariaDB/MySQL installed here is started
// there (data kept in .wrangler/mysql/dev). Without either, npm start runs as before and
// MySQL panels say their database could not be reached.
const warehouseMysql = ensureDevMysql(mysqlConnectionString(root)).catch((error) => {
  console.error(`local-mysql: ${error.message.split("\n")[0]}`);
  return { stop: async () => {} };
});

spawnSync(process.execPath, [join(root, "scripts", "ensure-chrome.mjs")], { stdio: "inherit" });
spawnSync(process.execPath, [join(root, "scripts", "docs-assets.mjs")], { stdio: "inherit" });
const vars = ensureDevVars(join(root, ".dev.vars"));

console.log("Applying D1 migrations…");
wrangler(["d1", "migrations", "apply", "DB", "--local", ...persist], { quiet: true });

const seededMarker = join(stateDir, "demo-workspace-seeded");
if (!existsSync(seededMarker)) {
  console.log("Seeding the demo workspace (once)…");
  executeSql("DB", workspaceSeedSql({ devApiToken: vars.DEV_API_TOKEN, customerTokenSecret: vars.CUSTOMER_TOKEN_SECRET }));
  executeSql("DEMO_DATA", demoDataSql());
  writeFileSync(seededMarker, new Date().toISOString());
}

// Extra arguments go to `wrangler dev` (e.g. `npm start -- --var RATE_LIMIT_PER_MINUTE:6000`).
// INSPECTOR_PORT names the devtools port. Without it wrangler takes 9229, or the next free
// port when 9229 is taken. That check races when two servers start at the same moment (two
// end-to-end test files): both find 9229 free, and the second exits with "Address already
// in use (socket direct:1:default)". So the test harness gives each server a port of its own.
const extra = process.argv.slice(2);
if (process.env.INSPECTOR_PORT && !extra.includes("--inspector-port")) extra.push("--inspector-port", process.env.INSPECTOR_PORT);
const dev = spawn(process.execPath, [wranglerBin, "dev", "--port", String(port), "--ip", "127.0.0.1", ...persist, ...extra], {
  cwd: root,
  env: childEnv,
  stdio: ["inherit", "pipe", "pipe"],
});
const output = wranglerOutput({ verbose: ["1", "true"].includes(String(process.env.VERBOSE).toLowerCase()) });
output.follow(dev.stdout, process.stdout);
output.follow(dev.stderr, process.stderr);

// Where `npm run admin` finds this server (scripts/admin.mjs): next to its state, gone when it stops.
const serverFile = join(stateDir, "server.json");

let stopping;
/** Ends everything this server started: wrangler (and its workerd), its Chromiums, the PostgreSQL and MySQL it ran. */
function stopAll(code, signal) {
  stopping ??= (async () => {
    // wrangler ended by itself: what it said (held back until the banner) says why.
    if (!signal) output.flush();
    if (signal && dev.exitCode === null) dev.kill(signal);
    // wrangler first, for at most 3 s (it closes what it can), then whatever Chromium is left.
    if (dev.exitCode === null && dev.signalCode === null)
      await Promise.race([new Promise((resolve) => dev.once("exit", resolve)), new Promise((resolve) => setTimeout(resolve, 3000))]);
    if (dev.exitCode === null && dev.signalCode === null) dev.kill("SIGKILL");
    stopChromiums(chromePids);
    rmSync(serverFile, { force: true });
    await Promise.all([(await warehouse).stop(), (await warehouseMysql).stop()]);
    process.exit(code);
  })();
  return stopping;
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => stopAll(0, signal));
dev.on("exit", (code) => stopAll(code ?? 0));

// One spelling of the origin everywhere in the banner, the docs' (localhost): the links the API
// mints name the origin it was called at (127.0.0.1), and are respelled (sameSpelling).
const base = `http://localhost:${port}`;
const sameSpelling = (link) => link.replace(`http://127.0.0.1:${port}`, base);
for (let attempt = 0; attempt < 240; attempt++) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    if (response.ok) break;
  } catch {
    /* not up yet */
  }
  await new Promise((resolve) => setTimeout(resolve, 250));
}

// The PostgreSQL and MySQL of the WAREHOUSE bindings are up (or known absent) before the banner says ready.
await Promise.all([warehouse, warehouseMysql]);

// The Cron Trigger of wrangler.toml, played locally: report schedules run every minute.
startLocalCron(`http://127.0.0.1:${port}`);

// Demo dashboards go in through the admin API, so they pass the same validation as yours.
const request = adminClient(`http://127.0.0.1:${port}`, vars.ADMIN_TOKEN);
const dashboardsMarker = join(stateDir, "demo-dashboards-seeded");
if (!existsSync(dashboardsMarker)) {
  const dir = join(root, "examples", "dashboards");
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const result = await pushDashboard(request, JSON.parse(readFileSync(join(dir, file), "utf8")), { tags: ["production", "email"] });
    if (result.success !== 1) console.error(`Could not seed ${file}: ${JSON.stringify(result.error)}`);
  }
  writeFileSync(dashboardsMarker, new Date().toISOString());
}
const demoCustomer = await fetch(`http://127.0.0.1:${port}/api/get_customer/`, {
  method: "POST",
  headers: { "Service-Authorization": `Token ${vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
  body: JSON.stringify({ provided_id: "acme-berlin" }),
})
  .then((r) => r.json())
  .catch(() => ({}));
const demoUrl = demoCustomer.customer
  ? `${base}/embed/sales-overview?customer_token=${demoCustomer.customer.token}`
  : "(demo customer acme-berlin not found)";

// Signed links (valid 24 h, minted anew at every start) for the demo dashboard and for the
// report builder on the demo blueprint "Sales data" of acme-berlin (created once, through the
// public API like a vendor would; its query keeps each customer to its own orders).
const publicApi = (path, body) =>
  fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { "Service-Authorization": `Token ${vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  })
    .then((r) => r.json())
    .catch(() => ({}));
const signedLink = (body) =>
  publicApi("/api/generate_embed_token/", { provided_id: "acme-berlin", expires_in: 86_400, ...body }).then((r) =>
    r.embed_url ? sameSpelling(r.embed_url) : `(could not mint: ${JSON.stringify(r.error ?? r)})`,
  );
const salesData = {
  customer_id: "acme-berlin",
  blueprint_name: "Sales data",
  tables: [
    {
      table_name: "orders",
      dataset_name: "orders",
      description: "Every order of this customer",
      schema_id: 1,
      query: "SELECT id, day, month, product, amount FROM orders WHERE customer_id = {{customer.provided_id}}",
      columns: [
        { name: "id", type: "INTEGER", display_name: "Order", can_be_grouped: false },
        { name: "day", type: "DATE", display_name: "Day" },
        { name: "month", type: "STRING", display_name: "Month" },
        { name: "product", type: "STRING", display_name: "Product" },
        { name: "amount", type: "FLOAT", display_name: "Amount", can_be_grouped: false },
      ],
    },
  ],
};
const blueprints = await publicApi("/api/get_customer_blueprints/", { customer_id: "acme-berlin" });
let salesBlueprint = blueprints.blueprints?.find((b) => b.name === salesData.blueprint_name)?.id;
if (blueprints.success === 1 && salesBlueprint === undefined)
  salesBlueprint = (await publicApi("/api/create_blueprint/", salesData)).blueprint_id;
const signedDashboardUrl = demoCustomer.customer ? await signedLink({ dashboard_embed_id: "sales-overview" }) : demoUrl;
// The demo's themes (a light brand, a dark one with its own font and logo), created through the
// public API; one that exists already (a restart) is left as it is.
for (const theme of demoThemes()) {
  const created = await publicApi("/api/create_theme/", theme);
  if (created.success !== 1 && created.error?.code !== "theme_exists")
    console.error(`Could not create the theme ${theme.name}: ${JSON.stringify(created.error ?? created)}`);
}
const darkDashboardUrl = demoCustomer.customer ? await signedLink({ dashboard_embed_id: "sales-overview", theme: DARK_THEME }) : demoUrl;
const builderUrl =
  salesBlueprint !== undefined ? await signedLink({ blueprint_id: salesBlueprint, user_id: "demo-user" }) : "(demo blueprint not found)";

// The versioned embed script and its SRI hash (docs/embedding.md section 4), as the server lists them.
const embedVersions = await fetch(`http://127.0.0.1:${port}/embed/versions.json`)
  .then((r) => r.json())
  .catch(() => ({}));
const pinnedScript = embedVersions.scripts?.[embedVersions.latest];
const pinnedTag = pinnedScript
  ? `<script src="${base}/embed/${embedVersions.latest}.js" integrity="${pinnedScript.integrity}" crossorigin="anonymous" defer></script>`
  : "(could not read /embed/versions.json)";

writeFileSync(serverFile, `${JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid })}\n`);
// The banner is the last thing printed: what wrangler said meanwhile is held back (its errors
// and warnings come first), and the log lines of the calls above have arrived before it.
await output.quiet(300, 3000);
output.release();
console.log(`
──────────────────────────────────────────────────────────────────────────────
  Customer API running at ${base}
  API reference:  ${base}/docs      OpenAPI: ${base}/openapi.json
  API explorer (try calls with your token): ${base}/docs/explorer/

  Demo dashboard (customer acme-berlin), signed link valid 24 h:
    ${signedDashboardUrl}
  The same in the dark theme "${DARK_THEME}" (its own font and logo), signed link valid 24 h:
    ${darkDashboardUrl}
  The same with the customer token (never expires):
    ${demoUrl}
  The vendor's console (sign in with the ADMIN_TOKEN below): ${base}/console/
  Report builder on the blueprint "Sales data" (acme-berlin), signed link valid 24 h:
    ${builderUrl}
  <dashboard-embed> from the versioned script, pinned by its SRI hash (or ${base}/embed.js):
    ${pinnedTag}

  DEV_API_TOKEN (write, access group "Development"):
    ${vars.DEV_API_TOKEN}
  ADMIN_TOKEN (for /admin/ and \`npm run admin\`):
    ${vars.ADMIN_TOKEN}

  Try it:
    curl -s ${base}/api/get_customer/ \\
      -H "Service-Authorization: Token ${vars.DEV_API_TOKEN}" \\
      -H "Content-Type: application/json" \\
      -d '{"provided_id":"acme-berlin"}'
──────────────────────────────────────────────────────────────────────────────
`);

function stopWithOwner() {
  const owner = Number(process.env.STOP_WITH_PID);
  if (!(owner > 0)) return;
  // The first process here leads the group; a Node.js it starts (ensureNode) inherits the name.
  process.env.SERVER_GROUP ||= String(process.pid);
  const group = Number(process.env.SERVER_GROUP);
  // Its output goes to that script: once the script is gone, a write fails (EPIPE), and the
  // failure must not end this process before it has stopped the rest of the group.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
  // Looked at every second: the server goes within a second of its owner.
  setInterval(() => {
    try {
      process.kill(owner, 0);
    } catch (error) {
      if (error.code !== "ESRCH") return; // there, but not ours to signal
      // Said nowhere: this server's output went to that script, and nobody reads it now.
      process.kill(-group, "SIGTERM");
    }
  }, 1000).unref();
}

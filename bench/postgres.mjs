#!/usr/bin/env node
// Render time of the demo dashboard (sales-overview) for one customer with the same data on
// D1 and on PostgreSQL through the WAREHOUSE Hyperdrive binding (local runtime: `npm start`,
// wrangler's local Hyperdrive connects straight to the local PostgreSQL). Median of 20 embed
// page requests each (after one warm-up), against the floor of the same run: GET /health.
// Also the data round trips, queries and PostgreSQL connections per render (from the
// X-Data-* headers the embed page sends outside production).
// Needs a local PostgreSQL (docs/postgres.md). Usage: npm run bench:postgres [-- --runs 20]
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startLocalServer } from "../scripts/lib/local-server.mjs";
import { warehouseConnectionString } from "../scripts/lib/warehouse.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const runsArg = process.argv.indexOf("--runs");
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 20;
const port = 19991;
const base = `http://127.0.0.1:${port}`;
const customer = "globex";
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const server = await startLocalServer({ port, args: ["--var", "RATE_LIMIT_PER_MINUTE:1000000", "--var", "LOG_LEVEL:warn"] });
try {
  const headers = { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" };
  const viewer = await fetch(`${base}/api/get_customer/`, {
    method: "POST",
    headers,
    body: JSON.stringify({ provided_id: customer }),
  }).then((r) => r.json());
  const page = `${base}/embed/sales-overview?customer_token=${viewer.customer.token}`;

  /** Maps the customer to D1 or PostgreSQL with the demo script (which also loads PostgreSQL). */
  function mapTo(kind) {
    const result = spawnSync(
      process.execPath,
      [join(root, "scripts", "demo-postgres.mjs"), "--base", base, "--customer", customer, ...(kind === "d1" ? ["--d1"] : [])],
      {
        cwd: root,
        encoding: "utf8",
      },
    );
    if (result.status !== 0) throw new Error(`demo-postgres failed:\n${result.stdout}\n${result.stderr}`);
  }

  async function measure(url) {
    const times = [];
    let last;
    for (let i = 0; i <= runs; i++) {
      const started = performance.now();
      const response = await fetch(url);
      const body = await response.text();
      if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status}`);
      if (i > 0) times.push(performance.now() - started);
      last = { response, body };
    }
    return { median: median(times), headers: last.response.headers, body: last.body };
  }

  /** Sessions PostgreSQL itself counted for the database (each reading is one more session). */
  async function sessions() {
    const client = new pg.Client({ connectionString: warehouseConnectionString(root) });
    await client.connect();
    try {
      await client.query("SELECT pg_stat_clear_snapshot()");
      return Number((await client.query("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")).rows[0].sessions);
    } finally {
      await client.end();
    }
  }

  const floor = await measure(`${base}/health`);
  mapTo("d1");
  const d1 = await measure(page);
  mapTo("postgres");
  const sessionsBefore = await sessions();
  const postgres = await measure(page);
  await new Promise((resolve) => setTimeout(resolve, 1500)); // statistics reach the counters within a second
  const serverSessions = (await sessions()) - sessionsBefore - 1;
  mapTo("d1"); // leave the demo as npm start seeds it

  const failed = (body) => (body.match(/class="message message-failed"/g) ?? []).length;
  if (failed(d1.body) || failed(postgres.body)) throw new Error("a panel failed to load; is PostgreSQL running?");
  const panels = (postgres.body.match(/data-panel-id="/g) ?? []).length;

  const row = (name, m) =>
    `  ${name.padEnd(22)} ${m.median.toFixed(1).padStart(7)} ms  ${(m.median / floor.median).toFixed(1).padStart(5)}× floor` +
    (m.headers.get("X-Data-Round-Trips") === null
      ? ""
      : `   round trips ${m.headers.get("X-Data-Round-Trips")}  by source ${m.headers.get("X-Data-Round-Trips-By-Source")}  connections ${m.headers.get("X-Data-Connections")}`);
  console.log(`\nDemo dashboard sales-overview for ${customer} (${panels} panels), median of ${runs}, Node ${process.version}`);
  console.log(row("floor: GET /health", floor));
  console.log(row("embed page on D1", d1));
  console.log(row("embed page on Postgres", postgres));
  console.log(`  PostgreSQL / D1: ${(postgres.median / d1.median).toFixed(2)}×`);
  console.log(
    `  PostgreSQL sessions counted by the server: ${serverSessions} for ${runs + 1} renders (${(serverSessions / (runs + 1)).toFixed(2)} per render)`,
  );
} finally {
  await server.stop();
}

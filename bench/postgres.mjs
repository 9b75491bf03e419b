#!/usr/bin/env node
// Render time of the demo dashboard (sales-overview) for one customer with the same data on
// D1 and on PostgreSQL through the WAREHOUSE Hyperdrive binding (local runtime: `npm start`,
// wrangler's local Hyperdrive connects straight to the local PostgreSQL). Median of 20 embed
// page requests each (after one warm-up), against the floor of the same run: GET /health.
// Also the data round trips, queries and PostgreSQL connections per render (from the
// X-Data-* headers the embed page sends outside production).
// Needs a local PostgreSQL (docs/postgres.md). Usage: npm run bench:postgres [-- --runs 20]
import pg from "pg";
import { warehouseConnectionString } from "../scripts/lib/warehouse.mjs";
import { interleave, mapCustomerData, median, numberArg, postJson, ratio, root, sleep, startServer, timed } from "./lib/harness.mjs";

const runs = numberArg("runs", 20);
const port = 19991;
const base = `http://127.0.0.1:${port}`;
const customer = "globex";

const server = await startServer({ port, vars: { RATE_LIMIT_PER_MINUTE: 1000000, LOG_LEVEL: "warn" } });
try {
  const viewer = await postJson(server, "/api/get_customer/", { provided_id: customer });
  const page = `${base}/embed/sales-overview?customer_token=${viewer.customer.token}`;

  /** Maps the customer to D1 or PostgreSQL with the demo script (which also loads PostgreSQL). */
  const mapTo = (kind) => mapCustomerData(base, customer, kind);

  async function measure(url) {
    let last;
    const { times } = await interleave(
      runs,
      {
        times: async () => {
          const { ms, value } = await timed(async () => {
            const response = await fetch(url);
            return { response, body: await response.text() };
          });
          if (value.response.status !== 200) throw new Error(`${url}: HTTP ${value.response.status}`);
          last = value;
          return ms;
        },
      },
      { warmup: 1 },
    );
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
  await sleep(1500); // statistics reach the counters within a second
  const serverSessions = (await sessions()) - sessionsBefore - 1;
  mapTo("d1"); // leave the demo as npm start seeds it

  const failed = (body) => (body.match(/class="message message-failed"/g) ?? []).length;
  if (failed(d1.body) || failed(postgres.body)) throw new Error("a panel failed to load; is PostgreSQL running?");
  const panels = (postgres.body.match(/data-panel-id="/g) ?? []).length;

  const row = (name, m) =>
    `  ${name.padEnd(22)} ${m.median.toFixed(1).padStart(7)} ms  ${ratio(m.median, floor.median, 1).padStart(5)}× floor` +
    (m.headers.get("X-Data-Round-Trips") === null
      ? ""
      : `   round trips ${m.headers.get("X-Data-Round-Trips")}  by source ${m.headers.get("X-Data-Round-Trips-By-Source")}  connections ${m.headers.get("X-Data-Connections")}`);
  console.log(`\nDemo dashboard sales-overview for ${customer} (${panels} panels), median of ${runs}, Node ${process.version}`);
  console.log(row("floor: GET /health", floor));
  console.log(row("embed page on D1", d1));
  console.log(row("embed page on Postgres", postgres));
  console.log(`  PostgreSQL / D1: ${ratio(postgres.median, d1.median)}×`);
  console.log(
    `  PostgreSQL sessions counted by the server: ${serverSessions} for ${runs + 1} renders (${(serverSessions / (runs + 1)).toFixed(2)} per render)`,
  );
} finally {
  await server.stop();
}

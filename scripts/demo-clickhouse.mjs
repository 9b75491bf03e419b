#!/usr/bin/env node
// `npm run demo:clickhouse` (with `npm start` running): the demo on ClickHouse (docs/clickhouse.md).
//  1. a ClickHouse server: CLICKHOUSE_URL (`https://user:password@host:port`, an account that may
//     create a database) when set, else the tests' own around the real engine (chdb, from the
//     npm registry; scripts/lib/clickhouse-test-server.mjs) on 127.0.0.1, kept running until Ctrl-C;
//  2. creates the database `demo` with the `orders` table and the same rows as the D1 demo data;
//  3. registers it as a `clickhouse` data source (provided_id "events") through the admin API —
//     the password is stored sealed under DATA_SOURCE_KEY and never answered;
//  4. maps the demo customer `globex` to it, so the same demo dashboard reads ClickHouse.
// Idempotent. `--customer <provided_id>` maps another demo customer; `--d1` maps it back to D1.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { adminClient } from "./lib/admin-client.mjs";
import { readDevVars } from "./lib/dev-vars.mjs";
import { ensureLocalClickhouse } from "./lib/local-clickhouse.mjs";
import { demoOrders } from "./lib/seed.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const customer = option("--customer", "globex");
const base = option("--base", process.env.CUSTOMER_API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`);
const backToD1 = args.includes("--d1");
const SCHEMA_ID = 1; // the demo schema "sales" of the seeded workspace

const vars = readDevVars(join(root, ".dev.vars"));
if (!vars.ADMIN_TOKEN || !vars.DEV_API_TOKEN) {
  console.error("No .dev.vars with ADMIN_TOKEN and DEV_API_TOKEN: run `npm start` first.");
  process.exit(1);
}

async function api(path, body) {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "Service-Authorization": `Token ${vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return response.json();
}

let server = { stop: async () => {} };
const request = adminClient(base, vars.ADMIN_TOKEN);
let sourceId = "1"; // the D1 demo data source
if (!backToD1) {
  if (process.env.CLICKHOUSE_URL) process.env.CLICKHOUSE_TEST_URL = process.env.CLICKHOUSE_URL;
  server = await ensureLocalClickhouse();
  if (server.skipped) {
    console.error(`No ClickHouse server: ${server.skipped}`);
    process.exit(1);
  }
  const send = async (query) => {
    const response = await fetch(`${server.url}/`, {
      method: "POST",
      body: query,
      headers: { "X-ClickHouse-User": server.adminUser, "X-ClickHouse-Key": server.adminPassword },
    });
    if (!response.ok) throw new Error(`ClickHouse refused ${query.slice(0, 60)}: ${await response.text()}`);
  };
  const quoted = (text) => `'${String(text).replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
  const orders = demoOrders();
  await send("CREATE DATABASE IF NOT EXISTS demo");
  await send(
    "CREATE TABLE IF NOT EXISTS demo.orders (customer_id String, day Date, month String, product String, amount Decimal(12, 2)) ENGINE = MergeTree ORDER BY (customer_id, day)",
  );
  await send("TRUNCATE TABLE demo.orders");
  const rows = orders.map(
    (o) => `(${quoted(o.customer_id)}, ${quoted(o.day)}, ${quoted(o.month)}, ${quoted(o.product)}, ${Number(o.amount)})`,
  );
  await send(`INSERT INTO demo.orders VALUES ${rows.join(", ")}`);
  console.log(`ClickHouse at ${server.url}: demo.orders with ${orders.length} demo rows.`);

  const connection = { url: server.url, database: "demo", user: server.user, password: server.password };
  const created = await request("POST", "/admin/data_sources/", {
    name: "Events (ClickHouse)",
    kind: "clickhouse",
    connection,
    provided_id: "events",
  });
  if (created.success !== 1 && created.error?.code !== "data_source_exists") {
    console.error(`Could not register the data source: ${JSON.stringify(created.error)}`);
    await server.stop();
    process.exit(1);
  }
  // Registered before (another run, another server): point it at this one (a new password replaces the stored one).
  if (created.error?.code === "data_source_exists")
    await request("POST", "/admin/update_data_source/", { provided_id: "events", connection });
  const { data_sources } = await request("GET", "/admin/data_sources/");
  const source = data_sources.find((s) => s.provided_id === "events");
  sourceId = String(source.id);
  console.log(`Data source ${sourceId} (provided_id "events"): kind clickhouse, connection ${JSON.stringify(source.connection)}.`);
}

const updated = await api("/api/update_customer/", { provided_id: customer, mapping: { [SCHEMA_ID]: sourceId } });
if (updated.success !== 1) {
  console.error(`Could not map customer ${customer}: ${JSON.stringify(updated.error)}`);
  await server.stop();
  process.exit(1);
}
const { customer: viewer } = await api("/api/get_customer/", { provided_id: customer });
const url = `${base.replace("127.0.0.1", "localhost")}/embed/sales-overview?customer_token=${viewer.token}`;
const page = await fetch(url);
console.log(`Customer ${customer} now reads schema ${SCHEMA_ID} from ${backToD1 ? "D1 (DEMO_DATA)" : "ClickHouse"}.`);
console.log(`  Demo dashboard: ${url}`);
console.log(`  Render: HTTP ${page.status}, data round trips per source ${page.headers.get("X-Data-Round-Trips-By-Source")}`);

if (!backToD1 && !process.env.CLICKHOUSE_URL) {
  console.log(
    "The tests' ClickHouse server keeps running for the dashboard; Ctrl-C stops it (then run with --d1 to map the customer back).",
  );
  const stop = async () => {
    await server.stop();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  setInterval(() => {}, 1 << 30);
}

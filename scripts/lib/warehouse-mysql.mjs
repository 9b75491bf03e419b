import { readFileSync } from "node:fs";
import { join } from "node:path";
import mysql from "mysql2/promise";
import { demoOrders } from "./seed.mjs";

/**
 * The local MySQL behind the WAREHOUSE_MYSQL Hyperdrive binding, as wrangler finds it:
 * CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE_MYSQL, else wrangler.toml's
 * localConnectionString. Never printed (it holds a password).
 */
export function mysqlConnectionString(root) {
  const fromEnv = process.env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE_MYSQL;
  if (fromEnv) return fromEnv;
  const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  const match = /binding = "WAREHOUSE_MYSQL"[^[]*?localConnectionString\s*=\s*"([^"]+)"/.exec(toml);
  if (!match)
    throw new Error("No local connection string for WAREHOUSE_MYSQL (set CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE_MYSQL).");
  return match[1];
}

/** host:port/database of a connection string, without user or password, for messages. */
export function describeMysql(connectionString) {
  const url = new URL(connectionString);
  return `${url.hostname}:${url.port || 3306}${url.pathname}`;
}

const quoted = (name) => `\`${name.replaceAll("`", "``")}\``;

/**
 * Loads demo orders into `database` (created when missing; its `orders` table replaced), as the
 * writing account of `adminUrl`: all customers' rows, or only `customer`'s (a tenant's own
 * database). Answers the number of rows.
 */
export async function loadDemoOrdersMysql(adminUrl, database, customer) {
  const connection = await mysql.createConnection({ uri: adminUrl, connectTimeout: 5000 });
  try {
    const db = quoted(database);
    await connection.query(`CREATE DATABASE IF NOT EXISTS ${db} CHARACTER SET utf8mb4`);
    await connection.query(`DROP TABLE IF EXISTS ${db}.orders`);
    await connection.query(`CREATE TABLE ${db}.orders (
      id bigint AUTO_INCREMENT PRIMARY KEY, customer_id varchar(100) NOT NULL, day date NOT NULL, month char(7) NOT NULL,
      product varchar(100) NOT NULL, amount decimal(12,2) NOT NULL, KEY orders_customer_day (customer_id, day))`);
    const orders = demoOrders().filter((o) => customer === undefined || o.customer_id === customer);
    const columns = ["customer_id", "day", "month", "product", "amount"];
    await connection.query(`INSERT INTO ${db}.orders (${columns.join(", ")}) VALUES ?`, [orders.map((o) => columns.map((c) => o[c]))]);
    return orders.length;
  } finally {
    await connection.end().catch(() => {});
  }
}

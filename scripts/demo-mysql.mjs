#!/usr/bin/env node
// `npm run demo:mysql` (with `npm start` running): the demo on MySQL through Hyperdrive, one
// binding for many tenants (docs/mysql.md).
//  1. loads the demo orders into the local MySQL of the WAREHOUSE_MYSQL binding
//     (CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE_MYSQL, else wrangler.toml's
//     localConnectionString; `npm start` starts a MariaDB/MySQL there when one is installed
//     and nothing answers): every customer's rows in the binding's database, and each tenant's
//     own rows in a database of its own (`warehouse_acme_berlin`, `warehouse_acme_paris`);
//  2. registers three `mysql` data sources on that one binding through the admin API: the
//     binding's database (provided_id "warehouse-mysql") and one per tenant database
//     (`namespace`, provided_id "mysql-<customer>");
//  3. maps the demo customers acme-berlin and acme-paris to their own namespace, so the same
//     demo dashboard reads each tenant's database with the same unqualified SQL;
//  4. shows that the binding's account reads and cannot write.
// The rows are written as an account that may (`--admin-url mysql://…`, else
// MYSQL_DEMO_ADMIN_URL, else root without a password on the loopback, as the server `npm start`
// starts has). Idempotent. `--d1` maps the tenants back to D1.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import mysql from "mysql2/promise";
import { adminClient } from "./lib/admin-client.mjs";
import { readDevVars } from "./lib/dev-vars.mjs";
import { describeMysql, loadDemoOrdersMysql, mysqlConnectionString } from "./lib/warehouse-mysql.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const base = option("--base", process.env.CUSTOMER_API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`);
const backToD1 = args.includes("--d1");
const SCHEMA_ID = 1; // the demo schema "sales" of the seeded workspace
const TENANTS = ["acme-berlin", "acme-paris"];
const namespaceOf = (customer) => `warehouse_${customer.replace(/[^A-Za-z0-9]/g, "_")}`;

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

const connectionString = mysqlConnectionString(root);
const where = describeMysql(connectionString);
const request = adminClient(base, vars.ADMIN_TOKEN);
const sourceIds = new Map(TENANTS.map((t) => [t, "1"])); // the D1 demo data source

if (!backToD1) {
  const url = new URL(connectionString);
  const adminUrl = option("--admin-url", process.env.MYSQL_DEMO_ADMIN_URL) ?? `mysql://root@${url.hostname}:${url.port || 3306}/mysql`;
  const database = decodeURIComponent(url.pathname.slice(1)) || "warehouse";
  try {
    const all = await loadDemoOrdersMysql(adminUrl, database, undefined);
    console.log(`MySQL ${where}: table orders with ${all} demo rows.`);
    for (const tenant of TENANTS) {
      const rows = await loadDemoOrdersMysql(adminUrl, namespaceOf(tenant), tenant);
      console.log(`  namespace ${namespaceOf(tenant)}: ${tenant}'s ${rows} rows only.`);
    }
  } catch (error) {
    console.error(`Cannot load the demo data into MySQL at ${where}: ${error.message}`);
    console.error(
      "`npm start` starts a MariaDB or MySQL there when one is installed and nothing answers (Debian: apt-get install mariadb-server-core); for a server of your own, pass --admin-url mysql://… of an account that may create databases (docs/mysql.md).",
    );
    process.exit(1);
  }
  const register = async (providedId, name, namespace) => {
    const body = { name, binding: "WAREHOUSE_MYSQL", kind: "mysql", provided_id: providedId, ...(namespace ? { namespace } : {}) };
    const created = await request("POST", "/admin/data_sources/", body);
    if (created.success !== 1 && created.error?.code !== "data_source_exists") {
      console.error(`Could not register the data source ${providedId}: ${JSON.stringify(created.error)}`);
      process.exit(1);
    }
    const { data_sources } = await request("GET", "/admin/data_sources/");
    return String(data_sources.find((s) => s.provided_id === providedId).id);
  };
  const shared = await register("warehouse-mysql", "Warehouse (MySQL)");
  console.log(`Data source ${shared} (provided_id "warehouse-mysql"): kind mysql on the WAREHOUSE_MYSQL Hyperdrive binding.`);
  for (const tenant of TENANTS) {
    const id = await register(`mysql-${tenant}`, `MySQL (${tenant})`, namespaceOf(tenant));
    sourceIds.set(tenant, id);
    console.log(`Data source ${id} (provided_id "mysql-${tenant}"): the same binding, namespace ${namespaceOf(tenant)}.`);
  }
}

for (const tenant of TENANTS) {
  const updated = await api("/api/update_customer/", { provided_id: tenant, mapping: { [SCHEMA_ID]: sourceIds.get(tenant) } });
  if (updated.success !== 1) {
    console.error(`Could not map customer ${tenant}: ${JSON.stringify(updated.error)}`);
    process.exit(1);
  }
  const { customer: viewer } = await api("/api/get_customer/", { provided_id: tenant });
  const page = `${base.replace("127.0.0.1", "localhost")}/embed/sales-overview?customer_token=${viewer.token}`;
  const response = await fetch(page);
  const html = await response.text();
  console.log(
    `Customer ${tenant} now reads schema ${SCHEMA_ID} from ${backToD1 ? "D1 (DEMO_DATA)" : `MySQL, namespace ${namespaceOf(tenant)}`}.`,
  );
  console.log(`  Demo dashboard: ${page}`);
  console.log(
    `  Render: HTTP ${response.status}, data round trips per source ${response.headers.get("X-Data-Round-Trips-By-Source")}, connections ${response.headers.get("X-Data-Connections")}${html.includes('class="message message-failed"') ? ", a panel failed" : ""}`,
  );
}

if (!backToD1) {
  // The binding's own account (what Hyperdrive connects as): reads, and a write is refused.
  const reader = await mysql.createConnection({ uri: connectionString, connectTimeout: 5000 });
  try {
    const [[{ n }]] = await reader.query(`SELECT count(*) AS n FROM \`${namespaceOf(TENANTS[0])}\`.orders`);
    const write = await reader.query("DELETE FROM orders WHERE false").then(
      () => "allowed (!) — give Hyperdrive an account with SELECT only (docs/mysql.md)",
      (error) => `refused (${error.code})`,
    );
    console.log(`The binding's account reads ${namespaceOf(TENANTS[0])}.orders (${n} rows); a write is ${write}.`);
  } finally {
    await reader.end().catch(() => {});
  }
}

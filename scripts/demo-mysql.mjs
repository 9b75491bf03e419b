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
import mysql from "mysql2/promise";
import { runDemo } from "./lib/demo-runner.mjs";
import { describeMysql, loadDemoOrdersMysql, mysqlConnectionString } from "./lib/warehouse-mysql.mjs";

const TENANTS = ["acme-berlin", "acme-paris"];
const namespaceOf = (customer) => `warehouse_${customer.replace(/[^A-Za-z0-9]/g, "_")}`;

let connectionString;
await runDemo({
  customers: () => TENANTS,
  load: async (demo) => {
    connectionString = mysqlConnectionString(demo.root);
    const where = describeMysql(connectionString);
    const url = new URL(connectionString);
    const adminUrl =
      demo.option("--admin-url", process.env.MYSQL_DEMO_ADMIN_URL) ?? `mysql://root@${url.hostname}:${url.port || 3306}/mysql`;
    const database = decodeURIComponent(url.pathname.slice(1)) || "warehouse";
    try {
      const all = await loadDemoOrdersMysql(adminUrl, database, undefined);
      console.log(`MySQL ${where}: table orders with ${all} demo rows.`);
      for (const tenant of TENANTS) {
        const rows = await loadDemoOrdersMysql(adminUrl, namespaceOf(tenant), tenant);
        console.log(`  namespace ${namespaceOf(tenant)}: ${tenant}'s ${rows} rows only.`);
      }
    } catch (error) {
      await demo.fail(
        `Cannot load the demo data into MySQL at ${where}: ${error.message}`,
        "`npm start` starts a MariaDB or MySQL there when one is installed and nothing answers (Debian: apt-get install mariadb-server-core); for a server of your own, pass --admin-url mysql://… of an account that may create databases (docs/mysql.md).",
      );
    }
    // The binding's database itself, for every customer's rows (mapped to no demo customer).
    const shared = await demo.register({
      name: "Warehouse (MySQL)",
      binding: "WAREHOUSE_MYSQL",
      kind: "mysql",
      provided_id: "warehouse-mysql",
    });
    console.log(`Data source ${shared.id} (provided_id "warehouse-mysql"): kind mysql on the WAREHOUSE_MYSQL Hyperdrive binding.`);
  },
  source: (tenant) => ({
    body: {
      name: `MySQL (${tenant})`,
      binding: "WAREHOUSE_MYSQL",
      kind: "mysql",
      provided_id: `mysql-${tenant}`,
      namespace: namespaceOf(tenant),
    },
    describe: (source) => `Data source ${source.id} (provided_id "mysql-${tenant}"): the same binding, namespace ${namespaceOf(tenant)}.`,
  }),
  label: (tenant) => `MySQL, namespace ${namespaceOf(tenant)}`,
  after: async () => {
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
  },
});

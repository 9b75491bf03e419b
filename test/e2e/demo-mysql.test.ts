// Runs the real `npm start`, then `npm run demo:mysql` (scripts/demo-mysql.mjs) against it and
// the test run's MySQL-protocol server: acme-berlin and acme-paris then read the same demo
// dashboard from a MySQL database of their own (two namespaces on the one WAREHOUSE_MYSQL
// binding) — the same numbers as from D1, since both hold the same demo rows.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startLocalServer, type LocalServer } from "../../scripts/lib/local-server.mjs";
import { demoPage } from "../helpers/demo-page";

const root = join(import.meta.dirname, "..", "..");
const adminUrl = process.env.MYSQL_TEST_ADMIN_URL;
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let server: LocalServer;

beforeAll(async () => {
  if (adminUrl) server = await startLocalServer({ port });
});
afterAll(async () => {
  await server?.stop();
});

function demoMysql(...args: string[]) {
  return spawnSync(
    process.execPath,
    [join(root, "scripts", "demo-mysql.mjs"), "--base", base, "--admin-url", adminUrl as string, ...args],
    {
      cwd: root,
      encoding: "utf8",
    },
  );
}

const page = (customer: string) => demoPage(server, customer);

describe.skipIf(!adminUrl)("npm run demo:mysql", () => {
  it("loads the demo orders into MySQL, one database per tenant, and maps acme-berlin and acme-paris to their namespaces", async () => {
    const before = { berlin: await page("acme-berlin"), paris: await page("acme-paris") };
    expect(before.berlin.headers.get("X-Data-Round-Trips-By-Source")).toBe("1=1");

    const run = demoMysql();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("table orders with 288 demo rows");
    expect(run.stdout).toContain("namespace warehouse_acme_berlin: acme-berlin's 72 rows only.");
    expect(run.stdout).toMatch(/a write is refused/);
    // No connection string (with its password) is printed.
    expect(run.stdout + run.stderr).not.toMatch(/mysql:\/\//);

    const sources = await fetch(`${base}/admin/data_sources/`, { headers: { Authorization: `Bearer ${server.vars.ADMIN_TOKEN}` } }).then(
      (r) => r.json() as Promise<any>,
    );
    for (const [customer, was] of [
      ["acme-berlin", before.berlin],
      ["acme-paris", before.paris],
    ] as const) {
      const source = sources.data_sources.find((s: { provided_id: string }) => s.provided_id === `mysql-${customer}`);
      expect(source).toMatchObject({ binding: "WAREHOUSE_MYSQL", kind: "mysql", namespace: `warehouse_${customer.replace("-", "_")}` });
      const onMysql = await page(customer);
      expect(onMysql.status).toBe(200);
      expect(onMysql.headers.get("X-Data-Round-Trips-By-Source")).toMatch(new RegExp(`^${source.id}=\\d+$`));
      // One connection per data source per render, every panel on it.
      expect(onMysql.headers.get("X-Data-Connections")).toBe("1");
      expect(onMysql.html).not.toContain('class="message message-failed"');
      for (const id of ["revenue", "orders", "average"]) expect(onMysql.kpi(id), `${customer} ${id}`).toBe(was.kpi(id));
    }

    // Running it again changes nothing; --d1 maps the tenants back.
    expect(demoMysql().status).toBe(0);
    expect(demoMysql("--d1").status).toBe(0);
    expect((await page("acme-paris")).headers.get("X-Data-Round-Trips-By-Source")).toBe("1=1");
  });
});

// `npm run admin -- data load <file.csv> --table <name> [--source …]` (docs/getting-started.md):
// a vendor's own rows in the local demo D1, and in the local PostgreSQL behind a data source,
// then a panel over them on the embed page of the real `npm start`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";

const root = join(import.meta.dirname, "..", "..");
let server: Awaited<ReturnType<typeof startLocalServer>>;
let dir: string;

beforeAll(async () => {
  server = await startLocalServer({ port: await freePort() });
  dir = mkdtempSync(join(tmpdir(), "data-load-"));
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const CSV = 'day,product,amount,paid\n2026-03-01,Seats,1263.04,true\n2026-03-02,Licences,99,false\n2026-03-02,"Seats, extra",5,\n';

function admin(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["ADMIN_URL", "CUSTOMER_API_URL", "PORT"]) delete env[name];
  env.STATE_DIR = server.stateDir;
  return spawnSync(process.execPath, [join(root, "scripts", "admin.mjs"), ...args], { cwd: root, encoding: "utf8", env });
}

async function call(path: string, body: unknown, auth: "admin" | "api"): Promise<any> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (auth === "admin") headers.Authorization = `Bearer ${server.vars.ADMIN_TOKEN}`;
  else headers["Service-Authorization"] = `Token ${server.vars.DEV_API_TOKEN}`;
  return (await fetch(`${server.base}${path}`, { method: "POST", headers, body: JSON.stringify(body) })).json();
}

/** A dashboard over `table` on schema 1, shown to `customer`: the page's HTML. */
async function panelOver(table: string, customer: string, embedId: string): Promise<string> {
  const definition = {
    panels: [
      {
        id: "total",
        type: "kpi",
        title: "Total",
        schema_id: 1,
        sql: `SELECT SUM(amount) AS value FROM ${table}`,
        layout: { x: 0, y: 0, w: 3, h: 2 },
      },
      {
        id: "rows",
        type: "table",
        title: "Rows",
        schema_id: 1,
        sql: `SELECT day, product, amount FROM ${table} ORDER BY amount DESC`,
        layout: { x: 3, y: 0, w: 9, h: 4 },
      },
    ],
  };
  expect((await call("/admin/dashboards/", { embed_id: embedId, name: `Over ${table}` }, "admin")).success).toBe(1);
  const saved = await call("/admin/dashboard_versions/", { embed_id: embedId, definition }, "admin");
  expect(saved.success, JSON.stringify(saved)).toBe(1);
  const minted = await call("/api/generate_embed_token/", { provided_id: customer, dashboard_embed_id: embedId }, "api");
  expect(minted.success, JSON.stringify(minted)).toBe(1);
  const page = await fetch(minted.embed_url);
  expect(page.status).toBe(200);
  return page.text();
}

describe("data load", () => {
  it("loads a CSV into the local demo D1 (types inferred), and a panel over it shows its rows", async () => {
    const file = join(dir, "sales.csv");
    writeFileSync(file, CSV);
    const loaded = admin(["data", "load", file, "--table", "firstday_sales"]);
    expect(loaded.status, `${loaded.stdout}\n${loaded.stderr}`).toBe(0);
    expect(loaded.stdout).toContain("Loaded 3 rows into firstday_sales in the demo D1");
    expect(loaded.stdout).toMatch(/day\s+date/);
    expect(loaded.stdout).toMatch(/amount\s+number/);
    expect(loaded.stdout).toMatch(/paid\s+boolean/);

    const html = await panelOver("firstday_sales", "acme", "firstday-d1");
    expect(html).toContain("1,367.04"); // 1263.04 + 99 + 5
    expect(html).toContain("Seats, extra");
    expect(html).toContain("Licences");

    // Loading the same table again is refused unless --replace; with it, the new rows replace the old.
    const again = admin(["data", "load", file, "--table", "firstday_sales"]);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain("exists already");
    writeFileSync(file, "day,product,amount\n2026-04-01,Seats,10\n");
    expect(admin(["data", "load", file, "--table", "firstday_sales", "--replace"]).status).toBe(0);
    expect(await panelOver("firstday_sales", "acme", "firstday-d1-again")).not.toContain("Licences");
    // A malformed table name loads nothing.
    const bad = admin(["data", "load", file, "--table", "drop table; x"]);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain("--table must be a name");
  }, 120_000);

  it("loads a CSV into the local PostgreSQL behind a data source (in its namespace, types given), and a panel over it shows its rows", async () => {
    const namespace = `firstday_${Date.now()}`;
    const created = await call(
      "/admin/data_sources/",
      { name: `Warehouse ${namespace}`, provided_id: namespace, binding: "WAREHOUSE", kind: "postgres", namespace },
      "admin",
    );
    expect(created.success, JSON.stringify(created)).toBe(1);
    const file = join(dir, "pg.csv");
    writeFileSync(file, CSV);
    const loaded = admin(["data", "load", file, "--table", "sales", "--source", namespace, "--types", "product:text,amount:number"]);
    expect(loaded.status, `${loaded.stdout}\n${loaded.stderr}`).toBe(0);
    expect(loaded.stdout).toContain(`Loaded 3 rows into sales in data source ${created.data_source.id} (postgres, ${namespace})`);

    // A customer whose schema 1 maps to that data source sees the rows.
    const customer = `firstday-pg-${Date.now()}`;
    const made = await call("/api/create_customer/", { provided_id: customer, name: "PG", mapping: { 1: created.data_source.id } }, "api");
    expect(made.success, JSON.stringify(made)).toBe(1);
    const html = await panelOver("sales", customer, `firstday-pg-${Date.now()}`);
    expect(html).toContain("1,367.04");
    expect(html).toContain("Seats, extra");
  }, 120_000);
});

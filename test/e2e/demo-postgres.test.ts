// Runs the real `npm start`, then `npm run demo:postgres` (scripts/demo-postgres.mjs) against
// it and the local PostgreSQL: the same demo dashboard then shows globex numbers from
// PostgreSQL — the same numbers as from D1, since both hold the same demo rows.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startLocalServer, type LocalServer } from "../../scripts/lib/local-server.mjs";
import { demoPage } from "../helpers/demo-page";

const root = join(import.meta.dirname, "..", "..");
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer({ port });
});
afterAll(async () => {
  await server?.stop();
});

function demoPostgres(...args: string[]) {
  return spawnSync(process.execPath, [join(root, "scripts", "demo-postgres.mjs"), "--base", base, ...args], {
    cwd: root,
    encoding: "utf8",
  });
}

const globexPage = () => demoPage(server, "globex");

describe("npm run demo:postgres", () => {
  it("loads the demo orders into PostgreSQL, registers a postgres data source and maps globex to it", async () => {
    const onD1 = await globexPage();
    expect(onD1.headers.get("X-Data-Round-Trips-By-Source")).toBe("1=1");

    const run = demoPostgres();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("table orders with 288 demo rows");
    // The connection string (with its password) is never printed.
    expect(run.stdout + run.stderr).not.toMatch(/postgres(ql)?:\/\//);

    const onPostgres = await globexPage();
    expect(onPostgres.status).toBe(200);
    const sources = await fetch(`${base}/admin/data_sources/`, { headers: { Authorization: `Bearer ${server.vars.ADMIN_TOKEN}` } }).then(
      (r) => r.json() as Promise<any>,
    );
    const warehouse = sources.data_sources.find((s: { provided_id: string }) => s.provided_id === "warehouse");
    expect(warehouse).toMatchObject({ binding: "WAREHOUSE", kind: "postgres" });
    expect(onPostgres.headers.get("X-Data-Round-Trips-By-Source")).toBe(`${warehouse.id}=8`);
    expect(onPostgres.headers.get("X-Data-Connections")).toBe("1");
    expect(onPostgres.html).not.toContain('class="message message-failed"');
    for (const id of ["revenue", "orders", "average"]) expect(onPostgres.kpi(id)).toBe(onD1.kpi(id));

    // Running it again changes nothing; --d1 maps globex back.
    expect(demoPostgres().status).toBe(0);
    expect(demoPostgres("--d1").status).toBe(0);
    expect((await globexPage()).headers.get("X-Data-Round-Trips-By-Source")).toBe("1=1");
  });
});

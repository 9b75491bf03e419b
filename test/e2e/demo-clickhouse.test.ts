// Runs the real `npm start`, then `npm run demo:clickhouse` (scripts/demo-clickhouse.mjs) as a
// vendor does, against it: the demo starts the tests' ClickHouse server (the real engine from
// chdb) itself, or uses CLICKHOUSE_TEST_URL's, loads the demo orders, registers the `events`
// data source and maps globex to it. The demo dashboard then shows globex the same numbers as
// from D1 (both hold the same demo rows) — read from ClickHouse: once the demo's server is
// stopped, globex's panels say the source could not be reached while acme-berlin (the control,
// on D1) still shows its numbers.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startLocalServer, type LocalServer } from "../../scripts/lib/local-server.mjs";
import { demoPage } from "../helpers/demo-page";

const root = join(import.meta.dirname, "..", "..");
// The run has a ClickHouse (scripts/lib/local-clickhouse.mjs): chdb loads here, or CLICKHOUSE_TEST_URL names a server.
const available = Boolean(process.env.CLICKHOUSE_TEST_SERVER);
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let server: LocalServer;
let demo: ChildProcess | undefined;

beforeAll(async () => {
  if (available) server = await startLocalServer({ port });
});
afterAll(async () => {
  if (demo && demo.exitCode === null) demo.kill("SIGKILL");
  await server?.stop();
});

/** The demo as `npm run demo:clickhouse` runs it; answers once it has mapped the customer (and keeps its own server running) or has ended. */
function startDemo(): Promise<{ out: string; exited: boolean; code: number | null }> {
  demo = spawn(process.execPath, [join(root, "scripts", "demo-clickhouse.mjs"), "--base", base], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const child = demo;
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo did not finish within 90 s:\n${out}`)), 90_000);
    const onData = (chunk: Buffer) => {
      out += chunk;
      if (out.includes("keeps running for the dashboard")) {
        clearTimeout(timer);
        resolve({ out, exited: false, code: null });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ out, exited: true, code });
    });
  });
}

function demoToD1() {
  return spawnSync(process.execPath, [join(root, "scripts", "demo-clickhouse.mjs"), "--base", base, "--d1"], {
    cwd: root,
    encoding: "utf8",
  });
}

const page = (customer: string) => demoPage(server, customer);

const KPIS = ["revenue", "orders", "average"];

describe.skipIf(!available)("npm run demo:clickhouse", () => {
  it("loads the demo orders into ClickHouse, registers a clickhouse data source and maps globex to it; acme-berlin stays on D1", async () => {
    const onD1 = await page("globex");
    const control = await page("acme-berlin");
    expect(onD1.headers.get("X-Data-Round-Trips-By-Source")).toBe("1=1");
    // The two customers' numbers differ, so a page showing the other's would be seen.
    expect(KPIS.map(onD1.kpi)).not.toEqual(KPIS.map(control.kpi));

    const run = await startDemo();
    expect(run.code ?? 0, run.out).toBe(0);
    // Its own server (none named) lives as long as the demo; a named one is left to its owner.
    expect(run.exited).toBe(Boolean(process.env.CLICKHOUSE_TEST_URL));
    expect(run.out).toContain("demo.orders with 288 demo rows");
    expect(run.out).toContain("Customer globex now reads schema 1 from ClickHouse.");
    // The password is written once and never printed or answered.
    expect(run.out).toMatch(/"password_set":true/);
    expect(run.out).not.toMatch(/"password":/);

    const sources = await fetch(`${base}/admin/data_sources/`, { headers: { Authorization: `Bearer ${server.vars.ADMIN_TOKEN}` } }).then(
      (r) => r.json() as Promise<any>,
    );
    const events = sources.data_sources.find((s: { provided_id: string }) => s.provided_id === "events");
    expect(events).toMatchObject({ kind: "clickhouse", connection: { database: "demo", password_set: true } });
    expect(events.connection).not.toHaveProperty("password");

    const onClickhouse = await page("globex");
    expect(onClickhouse.status).toBe(200);
    // One request per panel (the demo dashboard's seven data panels), none to D1.
    expect(onClickhouse.headers.get("X-Data-Round-Trips-By-Source")).toBe(`${events.id}=7`);
    expect(onClickhouse.html).not.toContain('class="message message-failed"');
    for (const id of KPIS) expect(onClickhouse.kpi(id), id).toBe(onD1.kpi(id));
    // The control customer is not on ClickHouse: D1, its own numbers.
    const controlAfter = await page("acme-berlin");
    expect(controlAfter.headers.get("X-Data-Round-Trips-By-Source")).toBe("1=1");
    for (const id of KPIS) expect(controlAfter.kpi(id), id).toBe(control.kpi(id));

    if (!run.exited) {
      // Ctrl-C stops the demo's server: globex's numbers were ClickHouse's, the control's are still there.
      const exited = new Promise((resolve) => demo?.once("exit", resolve));
      demo?.kill("SIGINT");
      expect(await exited).toBe(0);
      const stopped = await page("globex");
      expect(stopped.status).toBe(200);
      expect(stopped.html).toContain('class="message message-failed"');
      expect(stopped.html).toMatch(/could not be reached/);
      for (const id of KPIS) expect(stopped.kpi(id), id).not.toBe(onD1.kpi(id));
      expect((await page("acme-berlin")).kpi("revenue")).toBe(control.kpi("revenue"));
    }

    // --d1 maps globex back.
    const back = demoToD1();
    expect(back.status, back.stderr).toBe(0);
    const again = await page("globex");
    expect(again.headers.get("X-Data-Round-Trips-By-Source")).toBe("1=1");
    for (const id of KPIS) expect(again.kpi(id)).toBe(onD1.kpi(id));
  });
});

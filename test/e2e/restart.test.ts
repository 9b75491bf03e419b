// Runs the real `npm start` (scripts/start.mjs): migrations, .dev.vars, demo seed,
// `wrangler dev` with local bindings — then restarts it and checks nothing was lost.
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readDevVars } from "../../scripts/lib/dev-vars.mjs";
import { freePort, startLocalServer, type LocalServer } from "../../scripts/lib/local-server.mjs";

const root = join(import.meta.dirname, "..", "..");
const stateDir = mkdtempSync(join(tmpdir(), "customer-api-state-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let server: LocalServer | undefined;

async function start(): Promise<void> {
  server = await startLocalServer({ port, stateDir });
}

async function stop(): Promise<void> {
  await server?.stop();
  server = undefined;
}

function devVars(): Record<string, string> {
  return readDevVars(join(root, ".dev.vars"));
}

async function api(path: string, token: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "Service-Authorization": `Token ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

afterAll(async () => {
  await stop();
  rmSync(stateDir, { recursive: true, force: true });
});

describe("npm start", () => {
  it("refuses a port another server already holds, instead of reporting that server as its own", async () => {
    const holder = createServer((_, response) => response.end("someone else")).listen(0, "127.0.0.1");
    await once(holder, "listening");
    const taken = (holder.address() as AddressInfo).port;
    const busyState = mkdtempSync(join(tmpdir(), "customer-api-busy-"));
    try {
      await expect(startLocalServer({ port: taken, stateDir: busyState })).rejects.toThrow(`Port ${taken} is already in use`);
      // The other server was left alone.
      expect(await (await fetch(`http://127.0.0.1:${taken}/`)).text()).toBe("someone else");
    } finally {
      holder.closeAllConnections();
      holder.close();
      rmSync(busyState, { recursive: true, force: true });
    }
  });

  it("serves the seeded demo workspace and keeps data and tokens across a restart", async () => {
    await start();
    // Its devtools listen on the port the harness drew for this server (INSPECTOR_PORT), not on
    // wrangler's default, which two servers starting at once both took ("Address already in use").
    const devtools = await fetch(`http://127.0.0.1:${server!.inspectorPort}/json/version`);
    expect(((await devtools.json()) as { Browser: string }).Browser).toMatch(/^wrangler\//);
    expect(server!.inspectorPort).not.toBe(9229);
    const vars = devVars();
    expect(vars.ADMIN_TOKEN).toMatch(/^[0-9a-f]{64}$/);
    expect(vars.DEV_API_TOKEN).toMatch(/^cdk_[0-9a-f]{64}$/);

    // The curl printed by npm start works: a demo child customer inherits from its parent.
    const demo = await api("/api/get_customer/", vars.DEV_API_TOKEN, { provided_id: "acme-berlin" });
    expect(demo.status).toBe(200);
    expect(demo.body.customer).toMatchObject({ access_group: "Development", hierarchy_level: "User", is_demo_group: true });
    expect(demo.body.customer.computed_properties).toMatchObject({ region: "EU", city: "Berlin" });

    // The demo dashboards were pushed through the admin API and render the customer's data.
    for (const embedId of ["sales-overview", "monthly-report"]) {
      const page = await fetch(`${base}/embed/${embedId}?customer_token=${demo.body.customer.token}&environment=production`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('data-render-complete="true"');
      expect(html).toContain('<svg class="chart"');
      expect(html).not.toContain('class="message');
    }

    const levels = await fetch(`${base}/admin/hierarchy_levels/`, { headers: { Authorization: `Bearer ${vars.ADMIN_TOKEN}` } });
    expect(((await levels.json()) as any).levels).toEqual(["Customer", "User"]);

    const created = await api("/api/create_customer/", vars.DEV_API_TOKEN, { provided_id: "survives-restart", properties: { a: 1 } });
    expect(created.status).toBe(200);

    await stop();
    await start();

    expect(devVars()).toEqual(vars);
    const after = await api("/api/get_customer/", vars.DEV_API_TOKEN, { provided_id: "survives-restart" });
    expect(after.status).toBe(200);
    expect(after.body.customer).toEqual(created.body.customer);
    const demoAfter = await api("/api/get_customer/", vars.DEV_API_TOKEN, { provided_id: "acme-berlin" });
    expect(demoAfter.body.customer.token).toBe(demo.body.customer.token);
    const list = await api("/api/customers/", vars.DEV_API_TOKEN);
    expect(list.body.customers.filter((c: { provided_id: string }) => c.provided_id === "acme")).toHaveLength(1);
  });
});

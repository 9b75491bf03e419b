// `npm start` seeds the demo blueprint "Sales data" for acme-berlin and prints a signed
// report-builder link next to a signed dashboard link; both work as printed.
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startLocalServer, type LocalServer } from "../../scripts/lib/local-server.mjs";

const port = await freePort();
let server: LocalServer | undefined;
let output = "";

afterAll(async () => {
  await server?.stop();
});

describe("the demo report builder of npm start", () => {
  it("prints a signed builder link whose token reads acme-berlin's own orders, and a signed dashboard link", async () => {
    server = await startLocalServer({ port, onOutput: (text) => (output += text) });
    const local = (url: string) => url.replace("http://localhost", "http://127.0.0.1");
    const builderLink = /Report builder on the blueprint "Sales data" \(acme-berlin\), signed link valid 24 h:\s+(\S+)/.exec(output)?.[1];
    const dashboardLink = /Demo dashboard \(customer acme-berlin\), signed link valid 24 h:\s+(\S+)/.exec(output)?.[1];
    expect(builderLink).toMatch(/\/report-builder\/[a-z0-9]{20}\?token=[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(dashboardLink).toMatch(/\/embed\/sales-overview\?token=[\w-]+\.[\w-]+\.[\w-]+$/);

    const page = await fetch(local(dashboardLink!));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-render-complete="true"');

    const url = new URL(local(builderLink!));
    const headers = { Authorization: `Bearer ${url.searchParams.get("token")}`, "Content-Type": "application/json" };
    const datasets = (await (await fetch(`${url.origin}${url.pathname}/datasets`, { headers })).json()) as any;
    expect(datasets.datasets.map((d: { name: string }) => d.name)).toEqual(["orders"]);
    const totals: any = await (
      await fetch(`${url.origin}${url.pathname}/query`, {
        method: "POST",
        headers,
        body: JSON.stringify({ dataset: "orders", group_by: [{ column: "day", bucket: "quarter" }], values: [{ aggregate: "count" }] }),
      })
    ).json();
    // The demo data has 6 orders a month for acme-berlin (72 a year), none of the other customers'.
    expect(totals.rows).toEqual([
      { day_quarter: "2026-Q1", count: 18 },
      { day_quarter: "2026-Q2", count: 18 },
      { day_quarter: "2026-Q3", count: 18 },
      { day_quarter: "2026-Q4", count: 18 },
    ]);
  });
});

#!/usr/bin/env node
// Screenshots of the demo dashboards for the docs (docs/<embed_id>-<width>.png, shown in docs/embedding.md): starts the
// service on a fresh local state and opens each example dashboard for a demo customer, at a
// phone width (360 px) and a desktop width (1280 px), in headless Chromium (full page).
// Then a saved report of the report builder (revenue by month on the demo blueprint "Sales
// data") as the delivery pipeline captures it (`report_id` on /api/dashboard/screenshot):
// docs/saved-report-<width>.png.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchBrowser } from "./lib/chromium.mjs";
import { startLocalServer } from "./lib/local-server.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const customer = process.argv[2] ?? "acme-berlin";
const server = await startLocalServer({ port: 19887 });
const browser = await launchBrowser();
try {
  for (const file of readdirSync(join(root, "examples", "dashboards")).filter((f) => f.endsWith(".json"))) {
    const { embed_id } = JSON.parse(readFileSync(join(root, "examples", "dashboards", file), "utf8"));
    const minted = await fetch(`${server.base}/api/generate_embed_token/`, {
      method: "POST",
      headers: { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ provided_id: customer, dashboard_embed_id: embed_id }),
    }).then((r) => r.json());
    for (const width of [360, 1280]) {
      const page = await browser.newPage();
      await page.setViewport({ width, height: 900, deviceScaleFactor: 1 });
      await page.goto(`${minted.embed_url}&width=${width}`);
      await page.waitForSelector('body[data-render-complete="true"]');
      const out = join(root, "docs", `${embed_id}-${width}.png`);
      await page.screenshot({ path: out, fullPage: true });
      await page.close();
      console.log(`wrote ${out}`);
    }
  }
  const api = (path, body, headers = { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}` }) =>
    fetch(`${server.base}${path}`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  const { blueprints } = await api("/api/get_customer_blueprints/", { customer_id: customer });
  const blueprint = blueprints?.find((b) => b.name === "Sales data");
  if (blueprint) {
    const { token } = await api("/api/generate_embed_token/", { provided_id: customer, blueprint_id: blueprint.id });
    const { report } = await api(
      `/report-builder/${blueprint.embed_id}/reports`,
      {
        name: "Revenue by month",
        query: {
          dataset: "orders",
          group_by: [{ column: "day", bucket: "month" }],
          values: [{ column: "amount", aggregate: "sum" }, { aggregate: "count" }],
        },
        chart: { type: "bar", x: "day_month", y: ["sum_amount"] },
      },
      { Authorization: `Bearer ${token}` },
    );
    for (const width of [360, 1280]) {
      const job = await api("/api/dashboard/screenshot", { provided_id: customer, report_id: report.id, width });
      const file = await fetch(`${job.url}?wait=30`);
      if (file.status !== 200) throw new Error(`saved report capture answered ${file.status}: ${await file.text()}`);
      const out = join(root, "docs", `saved-report-${width}.png`);
      writeFileSync(out, new Uint8Array(await file.arrayBuffer()));
      console.log(`wrote ${out}`);
    }
  }
} finally {
  await browser.close();
  await server.stop();
}

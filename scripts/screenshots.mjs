#!/usr/bin/env node
// Screenshots of the demo dashboards for the README (docs/<embed_id>-<width>.png): starts the
// service on a fresh local state and opens each example dashboard for a demo customer, at a
// phone width (360 px) and a desktop width (1280 px), in headless Chromium (full page).
import { readFileSync, readdirSync } from "node:fs";
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
} finally {
  await browser.close();
  await server.stop();
}

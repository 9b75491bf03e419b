#!/usr/bin/env node
// End-to-end delivery latency with a warm browser: from POST /api/dashboard/screenshot to
// the file being downloadable (polling the download link every 10 ms), median of 20, PNG
// and PDF of the demo dashboard — against the floor: the same HTML captured by a bare
// script driving Chromium directly (puppeteer-core, warm browser and page).
// Usage: npm run bench:delivery [-- --runs 20]
import { existsSync } from "node:fs";
import puppeteer from "puppeteer-core";
import { startLocalServer } from "../scripts/lib/local-server.mjs";

const runsArg = process.argv.indexOf("--runs");
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 20;
const port = 19987;
const base = `http://127.0.0.1:${port}`;
const chromium = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/lib/chromium/chromium"].filter(Boolean).find((p) => existsSync(p));
const server = await startLocalServer({
  port,
  args: ["--var", "RATE_LIMIT_PER_MINUTE:1000000", "--var", "DELIVERY_LIMIT_PER_MINUTE:1000000", "--var", "LOG_LEVEL:warn"],
});
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  const vars = server.vars;
  const headers = { "Service-Authorization": `Token ${vars.DEV_API_TOKEN}`, "Content-Type": "application/json" };
  const customer = await fetch(`${base}/api/get_customer/`, { method: "POST", headers, body: JSON.stringify({ provided_id: "acme-berlin" }) }).then((r) => r.json());

  async function endToEnd(exportType) {
    const started = performance.now();
    const res = await fetch(`${base}/api/dashboard/screenshot`, {
      method: "POST",
      headers,
      body: JSON.stringify({ provided_id: "acme-berlin", dashboard_embed_id: "sales-overview", export_type: exportType, width: 1280 }),
    }).then((r) => r.json());
    if (res.success !== 1) throw new Error(JSON.stringify(res));
    for (;;) {
      const download = await fetch(res.url);
      if (download.status === 200) {
        await download.arrayBuffer();
        return performance.now() - started;
      }
      await download.arrayBuffer();
      if (download.status !== 202) throw new Error(`download answered ${download.status}`);
      await sleep(10);
    }
  }

  const ours = { image: [], pdf: [] };
  for (const type of ["image", "pdf"]) {
    for (let i = 0; i < 3; i++) await endToEnd(type); // warm the browser session
    for (let i = 0; i < runs; i++) ours[type].push(await endToEnd(type));
  }

  // The floor: the same HTML, Chromium driven directly.
  const html = await fetch(`${base}/embed/sales-overview?customer_token=${customer.customer.token}`).then((r) => r.text());
  const browser = await puppeteer.launch({
    executablePath: chromium,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const floor = { image: [], pdf: [] };
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800, deviceScaleFactor: 1 });
    for (const type of ["image", "pdf"]) {
      for (let i = 0; i < runs + 3; i++) {
        const started = performance.now();
        await page.setContent(html, { waitUntil: "load" });
        await page.waitForSelector('body[data-render-complete="true"]');
        if (type === "pdf") await page.pdf({ printBackground: true, width: "1280px", height: `${Math.round(1280 * 1.414)}px` });
        else await page.screenshot({ fullPage: true, type: "png" });
        if (i >= 3) floor[type].push(performance.now() - started);
      }
    }
  } finally {
    await browser.close();
  }

  console.log(`\nDelivery latency, warm browser, sales-overview at 1280 px, median of ${runs}:`);
  for (const type of ["image", "pdf"]) {
    const a = median(ours[type]);
    const b = median(floor[type]);
    console.log(`  ${type === "image" ? "PNG" : "PDF"}  API call → downloadable ${a.toFixed(0).padStart(5)} ms   bare Chromium ${b.toFixed(0).padStart(5)} ms   ratio ${(a / b).toFixed(2)}`);
  }
} finally {
  await server.stop();
}
process.exit(0);

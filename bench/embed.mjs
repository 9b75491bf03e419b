#!/usr/bin/env node
// `npm run bench:embed`: how long a vendor's page waits for an embedded dashboard.
//   component = <dashboard-embed token-url> inserted → `dashboard-load` (token fetch through
//               the vendor endpoint + mint API call + page render + height message)
//   floor     = a plain <iframe src=embed_url> with a token minted beforehand → iframe `load`
// Median of 10 each, in one run, against the real `npm start` and the local Chromium.
import { gzipSync } from "node:zlib";
import { launchBrowser } from "../scripts/lib/chromium.mjs";
import { startEmbedHost } from "../scripts/lib/embed-host.mjs";
import { startLocalServer } from "../scripts/lib/local-server.mjs";

const RUNS = 10;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.floor((sorted.length - 1) / 2)] + sorted[Math.ceil((sorted.length - 1) / 2)]) / 2;
};

const server = await startLocalServer({ port: 19987 });
const host = await startEmbedHost({ apiBase: server.base, apiToken: server.vars.DEV_API_TOKEN });
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  await page.goto(`${host.origin}/`);

  const component = [];
  const floor = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const ms = await page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          document.querySelectorAll("dashboard-embed, iframe").forEach((e) => {
            e.remove();
          });
          const element = document.createElement("dashboard-embed");
          element.setAttribute("embed-id", "sales-overview");
          element.setAttribute("token-url", "/token?customer=acme-berlin&dashboard=sales-overview");
          const started = performance.now();
          element.addEventListener("dashboard-load", () => resolve(performance.now() - started), { once: true });
          element.addEventListener("dashboard-error", (e) => reject(new Error(JSON.stringify(e.detail))), { once: true });
          document.body.appendChild(element);
        }),
    );
    if (i > 0) component.push(ms); // the first run warms the isolate

    const minted = await fetch(`${server.base}/api/generate_embed_token/`, {
      method: "POST",
      headers: { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ provided_id: "acme-berlin", dashboard_embed_id: "sales-overview" }),
    }).then((r) => r.json());
    const plain = await page.evaluate(
      (url) =>
        new Promise((resolve) => {
          document.querySelectorAll("dashboard-embed, iframe").forEach((e) => {
            e.remove();
          });
          const frame = document.createElement("iframe");
          frame.style.cssText = "width:100%;height:900px;border:0";
          const started = performance.now();
          frame.addEventListener("load", () => resolve(performance.now() - started), { once: true });
          frame.src = url;
          document.body.appendChild(frame);
        }),
      minted.embed_url,
    );
    if (i > 0) floor.push(plain);
  }

  const minted = await fetch(`${server.base}/api/generate_embed_token/`, {
    method: "POST",
    headers: { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ provided_id: "acme-berlin", dashboard_embed_id: "sales-overview" }),
  }).then((r) => r.json());
  const html = await fetch(minted.embed_url).then((r) => r.text());
  const script = await fetch(`${server.base}/embed.js`).then((r) => r.text());

  console.log(`\n<dashboard-embed> load time, median of ${RUNS} (sales-overview, acme-berlin, 1200 px)`);
  console.log(`  component (insert → dashboard-load) ${median(component).toFixed(0)} ms`);
  console.log(`  floor (plain iframe, pre-minted)    ${median(floor).toFixed(0)} ms`);
  console.log(`  ratio                               ${(median(component) / median(floor)).toFixed(2)}`);
  console.log(
    `  embed page ${(Buffer.byteLength(html) / 1024).toFixed(1)} KiB (${(gzipSync(html).length / 1024).toFixed(1)} KiB gzip), embed.js ${(Buffer.byteLength(script) / 1024).toFixed(1)} KiB (${(gzipSync(script).length / 1024).toFixed(1)} KiB gzip)`,
  );
} finally {
  await browser.close();
  await host.stop();
  await server.stop();
}

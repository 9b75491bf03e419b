#!/usr/bin/env node
// `npm run bench:embed`: how long a vendor's page waits for an embedded dashboard.
//   component = <dashboard-embed token-url> inserted → `dashboard-load` (token fetch through
//               the vendor endpoint + mint API call + page render + height message)
//   floor     = a plain <iframe src=embed_url> with a token minted beforehand → iframe `load`
// Median of 10 each, in one run, against the real `npm start` and the local Chromium.
import { interleave, median, postJson, ratio, sizeWithGzip, startEmbedBench } from "./lib/harness.mjs";

const RUNS = 10;

const { server, host, browser, stop } = await startEmbedBench(19987);
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  await page.goto(`${host.origin}/`);
  const mint = () => postJson(server, "/api/generate_embed_token/", { provided_id: "acme-berlin", dashboard_embed_id: "sales-overview" });

  // The first round warms the isolate.
  const { component, floor } = await interleave(
    RUNS,
    {
      component: () =>
        page.evaluate(
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
        ),
      floor: async () =>
        page.evaluate(
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
          (await mint()).embed_url,
        ),
    },
    { warmup: 1 },
  );

  const html = await fetch((await mint()).embed_url).then((r) => r.text());
  const script = await fetch(`${server.base}/embed.js`).then((r) => r.text());

  console.log(`\n<dashboard-embed> load time, median of ${RUNS} (sales-overview, acme-berlin, 1200 px)`);
  console.log(`  component (insert → dashboard-load) ${median(component).toFixed(0)} ms`);
  console.log(`  floor (plain iframe, pre-minted)    ${median(floor).toFixed(0)} ms`);
  console.log(`  ratio                               ${ratio(median(component), median(floor))}`);
  console.log(`  embed page ${sizeWithGzip(html)}, embed.js ${sizeWithGzip(script)}`);
} finally {
  await stop();
}

#!/usr/bin/env node
// `npm run bench:embed-load`: how long a vendor's page waits from connecting <dashboard-embed>
// to its `dashboard-load`, on a warm and a cold view of the demo dashboard in the dark theme
// "Acme night" (its own WOFF2 font).
//   warm = the same vendor page again (the browser has the theme's font and its connections)
//   cold = a new browser context each time (no cache: the font is fetched anew)
// Median of 8 each, against the real `npm start` and the local Chromium. (Issue 56's before and
// after: dashboard-load waits for the page's fonts now.)
import { median, startEmbedBench } from "./lib/harness.mjs";

const RUNS = 8;
const TOKEN_URL = `/token?customer=acme-berlin&dashboard=sales-overview&locale=en-US&theme=${encodeURIComponent("Acme night")}`;

/** Inserts the element; resolves with the ms from connecting it to its dashboard-load. */
function connectAndWait(page) {
  return page.evaluate(
    (tokenUrl) =>
      new Promise((resolve, reject) => {
        document.querySelectorAll("dashboard-embed").forEach((e) => {
          e.remove();
        });
        const element = document.createElement("dashboard-embed");
        element.setAttribute("embed-id", "sales-overview");
        element.setAttribute("token-url", tokenUrl);
        const started = performance.now();
        element.addEventListener(
          "dashboard-load",
          () => {
            resolve({ ms: performance.now() - started });
          },
          { once: true },
        );
        element.addEventListener("dashboard-error", (e) => reject(new Error(JSON.stringify(e.detail))), { once: true });
        document.body.appendChild(element);
      }),
    TOKEN_URL,
  );
}

const { host, browser, stop } = await startEmbedBench(19986);
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  await page.goto(`${host.origin}/`);
  await connectAndWait(page); // warms the isolate and the cache
  const warm = [];
  for (let i = 0; i < RUNS; i++) warm.push((await connectAndWait(page)).ms);
  await page.close();

  const cold = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.createBrowserContext();
    const fresh = await context.newPage();
    await fresh.setViewport({ width: 1200, height: 900 });
    await fresh.goto(`${host.origin}/`);
    cold.push((await connectAndWait(fresh)).ms);
    await context.close();
  }
  console.log(`\n<dashboard-embed> connect → dashboard-load, median of ${RUNS} (sales-overview, theme "Acme night", 1200 px)`);
  console.log(`  warm (same page again)        ${median(warm).toFixed(0)} ms  [${warm.map((v) => v.toFixed(0)).join(", ")}]`);
  console.log(`  cold (a new browser context)  ${median(cold).toFixed(0)} ms  [${cold.map((v) => v.toFixed(0)).join(", ")}]`);
} finally {
  await stop();
}

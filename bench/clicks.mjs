#!/usr/bin/env node
// `npm run bench:clicks`: what clickable panels (on_click, docs/embedding.md "Clicks") cost,
// against the real `npm start`, all in one run:
//   bytes       what the click script and its data add to the demo page (HTML, gzip), against
//               the same definition without on_click saved as another dashboard;
//   throughput  embed page requests/s (8 at a time) with and without on_click panels, against
//               the floor of GET /health measured in the same run, rounds interleaved;
//   click       a click on a pie slice (a filter) → the filtered page complete in the local
//               Chromium, median of 10 (half set the filter, half clear it).
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { launchBrowser } from "../scripts/lib/chromium.mjs";
import { adminHeaders, apiHeaders, interleave, median, startServer, throughput as rate, timed } from "./lib/harness.mjs";

const ROUNDS = 3;
const ROUND_MS = 4000;
const CONCURRENCY = 8;
const CLICKS = 10;

const server = await startServer({
  port: 19994,
  vars: { RATE_LIMIT_PER_MINUTE: 1000000000, LOG_LEVEL: "warn" },
  flags: ["--log-level", "warn"],
});
const call = async (path, body, headers) => {
  const response = await fetch(`${server.base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
};
const api = (path, body) => call(path, body, apiHeaders(server));
const admin = (path, body) => call(path, body, adminHeaders(server));

/** Requests/s of `url` with CONCURRENCY requests in flight for `ms`. */
const throughput = (url, ms) => rate(url, ms, CONCURRENCY);

let browser;
try {
  // The demo dashboard without on_click: the control.
  const sales = JSON.parse(readFileSync(new URL("../examples/dashboards/sales.json", import.meta.url), "utf8"));
  const plain = { ...sales.definition, panels: sales.definition.panels.map(({ on_click: _click, ...panel }) => panel) };
  await admin("/admin/dashboards/", { embed_id: "sales-no-clicks", name: "Sales (no clicks)" });
  const saved = await admin("/admin/dashboard_versions/", { embed_id: "sales-no-clicks", definition: plain });
  if (saved.status !== 200) throw new Error(JSON.stringify(saved.body));

  const mint = async (dashboard) => {
    const res = await api("/api/generate_embed_token/", {
      provided_id: "acme-berlin",
      dashboard_embed_id: dashboard,
      expires_in: 3600,
      locale: "en-US",
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return `${res.body.embed_url}&width=1280`;
  };
  const clicksUrl = await mint("sales-overview");
  const plainUrl = await mint("sales-no-clicks");
  const health = `${server.base}/health`;
  for (const url of [clicksUrl, plainUrl, health]) await throughput(url, 500); // warm

  const clicksHtml = await fetch(clicksUrl).then((r) => r.text());
  const plainHtml = await fetch(plainUrl).then((r) => r.text());
  const script = /<script>([\s\S]*?)<\/script>/.exec(clicksHtml.slice(clicksHtml.indexOf('id="dashboard-clicks"')))?.[1] ?? "";
  const data = /id="dashboard-clicks">([\s\S]*?)<\/script>/.exec(clicksHtml)?.[1] ?? "";

  const rates = await interleave(ROUNDS, {
    floor: () => throughput(health, ROUND_MS),
    plain: () => throughput(plainUrl, ROUND_MS),
    clicks: () => throughput(clicksUrl, ROUND_MS),
  });

  browser = await launchBrowser();
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(clicksUrl, { waitUntil: "load" });
  const times = [];
  const slice = 'section[data-panel-id="by_product"] svg path[data-pick]';
  for (let i = 0; i < CLICKS; i++) {
    await page.waitForSelector(slice);
    const before = page.url();
    const { ms } = await timed(async () => {
      await Promise.all([
        page.waitForNavigation({ waitUntil: "load" }),
        page.evaluate((s) => document.querySelector(s).dispatchEvent(new MouseEvent("click", { bubbles: true })), slice),
      ]);
      await page.waitForSelector("body[data-render-complete]");
    });
    times.push(ms);
    if (page.url() === before) throw new Error("the click did not change the page");
  }

  const gz = (text) => gzipSync(text).length;
  const floor = median(rates.floor);
  console.log(`bench:clicks (one run, ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s, ${CONCURRENCY} in flight)
  bytes the clicks add to the demo page (1280 px)
    click script                 ${script.length} bytes (${gz(script)} gzip)
    click data (rows of 3 panels) ${data.length} bytes (${gz(data)} gzip)
    page with on_click           ${clicksHtml.length} bytes (${gz(clicksHtml)} gzip)
    same page without on_click   ${plainHtml.length} bytes (${gz(plainHtml)} gzip)
    difference                   ${clicksHtml.length - plainHtml.length} bytes (${gz(clicksHtml) - gz(plainHtml)} gzip)
  throughput
    floor GET /health            ${floor.toFixed(0)} req/s
    without on_click             ${median(rates.plain).toFixed(1)} req/s  (${(median(rates.plain) / floor).toFixed(3)} of the floor)
    with on_click                ${median(rates.clicks).toFixed(1)} req/s  (${(median(rates.clicks) / floor).toFixed(3)} of the floor; ${(median(rates.clicks) / median(rates.plain)).toFixed(2)}× without)
  click on a slice → filtered page complete (Chromium, page opened directly)
    median of ${CLICKS}                 ${median(times).toFixed(0)} ms  (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)})`);
} finally {
  await browser?.close();
  await server.stop();
}

#!/usr/bin/env node
// `npm run bench:report-builder`: how long a vendor's user waits for the report builder.
//   load    = <report-builder token-url> inserted → `report-builder-load` (token through the
//             vendor endpoint + mint + page + script + first result drawn + height message)
//   floor   = <dashboard-embed token-url> inserted → `dashboard-load` (same path, server-drawn page)
//   change  = a control changed in the builder → the new chart in the page (one /view round
//             trip: query + server-drawn chart + table)
//   floor   = the same query alone, POST /report-builder/<id>/query from the page (fetch + JSON)
// Median of 10 each (after one warm-up), in one run, against the real `npm start` and the
// local Chromium; then the page's and its script's sizes.
import { gzipSync } from "node:zlib";
import { launchBrowser } from "../scripts/lib/chromium.mjs";
import { startEmbedHost } from "../scripts/lib/embed-host.mjs";
import { startLocalServer } from "../scripts/lib/local-server.mjs";

const RUNS = 10;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.floor((sorted.length - 1) / 2)] + sorted[Math.ceil((sorted.length - 1) / 2)]) / 2;
};

const server = await startLocalServer({ port: 19887 });
const host = await startEmbedHost({ apiBase: server.base, apiToken: server.vars.DEV_API_TOKEN });
const browser = await launchBrowser();
const api = (path, body) =>
  fetch(`${server.base}${path}`, {
    method: "POST",
    headers: { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  }).then((r) => r.json());

try {
  const created = await api("/api/create_blueprint/", {
    customer_id: "acme-berlin",
    blueprint_name: "Bench sales",
    tables: [
      {
        table_name: "orders",
        schema_id: 1,
        dataset_name: "Orders",
        query: "SELECT day, product, amount FROM orders WHERE customer_id = {{customer.provided_id}}",
        columns: [
          { name: "day", type: "DATE" },
          { name: "product", type: "STRING" },
          { name: "amount", type: "FLOAT", can_be_grouped: false },
        ],
      },
    ],
  });
  const blueprint = (await api("/api/get_blueprint/", { blueprint_id: created.blueprint_id })).blueprint;
  const tokenUrl = `/token?customer=acme-berlin&blueprint=${blueprint.id}`;

  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(`${host.origin}/`);
  const insert = (tag, embedId, url, load, error) =>
    page.evaluate(
      (tag, embedId, url, load, error) =>
        new Promise((resolve, reject) => {
          document.querySelectorAll("report-builder, dashboard-embed").forEach((e) => {
            e.remove();
          });
          const element = document.createElement(tag);
          element.setAttribute("embed-id", embedId);
          element.setAttribute("token-url", url);
          const started = performance.now();
          element.addEventListener(load, () => resolve(performance.now() - started), { once: true });
          element.addEventListener(error, (e) => reject(new Error(JSON.stringify(e.detail))), { once: true });
          document.body.appendChild(element);
        }),
      tag,
      embedId,
      url,
      load,
      error,
    );

  const load = [];
  const loadFloor = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const builder = await insert("report-builder", blueprint.embed_id, tokenUrl, "report-builder-load", "report-builder-error");
    const dashboard = await insert(
      "dashboard-embed",
      "sales-overview",
      "/token?customer=acme-berlin&dashboard=sales-overview",
      "dashboard-load",
      "dashboard-error",
    );
    if (i > 0) {
      load.push(builder);
      loadFloor.push(dashboard);
    }
  }

  await insert("report-builder", blueprint.embed_id, tokenUrl, "report-builder-load", "report-builder-error");
  const frame = page.frames().find((f) => f.url().includes("/report-builder/"));
  // Group by product once, then flip the time bucket of a day group back and forth: each
  // flip is one change with a new chart.
  const change = [];
  const changeFloor = [];
  await frame.evaluate(() => document.getElementById("rb-add-group").click());
  await frame.waitForSelector("#rb-g0-bucket");
  for (let i = 0; i < RUNS + 1; i++) {
    const ms = await frame.evaluate(
      (bucket) =>
        new Promise((resolve) => {
          const area = document.getElementById("rb-chart-area");
          const result = document.getElementById("rb-result");
          const select = document.getElementById("rb-g0-bucket");
          const started = performance.now();
          const observer = new MutationObserver(() => {
            if (result.getAttribute("aria-busy") === "false" && area.querySelector("svg")) {
              observer.disconnect();
              resolve(performance.now() - started);
            }
          });
          observer.observe(area, { childList: true, subtree: true });
          select.value = bucket;
          select.dispatchEvent(new Event("change", { bubbles: true }));
        }),
      i % 2 ? "month" : "quarter",
    );
    const floor = await frame.evaluate(
      (bucket) => {
        const token = new URLSearchParams(location.search).get("token");
        const started = performance.now();
        return fetch(`${location.pathname}/query`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          body: JSON.stringify({ dataset: "Orders", group_by: [{ column: "day", bucket }], values: [{ aggregate: "count" }] }),
        })
          .then((r) => r.json())
          .then(() => performance.now() - started);
      },
      i % 2 ? "month" : "quarter",
    );
    if (i > 0) {
      change.push(ms);
      changeFloor.push(floor);
    }
  }

  const minted = await api("/api/generate_embed_token/", { provided_id: "acme-berlin", blueprint_id: blueprint.id });
  const html = await fetch(minted.embed_url).then((r) => r.text());
  const script = await fetch(`${server.base}/report-builder.js`).then((r) => r.text());
  const embedJs = await fetch(`${server.base}/embed.js`).then((r) => r.text());
  const kib = (text) => `${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB (${(gzipSync(text).length / 1024).toFixed(1)} KiB gzip)`;

  console.log(`\n<report-builder>, median of ${RUNS} (acme-berlin, 1280 px)`);
  console.log(`  insert → report-builder-load          ${median(load).toFixed(0)} ms`);
  console.log(
    `  floor: insert → dashboard-load        ${median(loadFloor).toFixed(0)} ms   ratio ${(median(load) / median(loadFloor)).toFixed(2)}`,
  );
  console.log(`  change → updated chart                ${median(change).toFixed(0)} ms`);
  console.log(
    `  floor: the query alone (POST /query)  ${median(changeFloor).toFixed(0)} ms   ratio ${(median(change) / median(changeFloor)).toFixed(2)}`,
  );
  console.log(`  page ${kib(html)}, report-builder.js ${kib(script)}, embed.js ${kib(embedJs)}`);
} finally {
  await browser.close();
  await host.stop();
  await server.stop();
}

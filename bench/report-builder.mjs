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
import { interleave, median, postJson, ratio, sizeWithGzip, startEmbedBench } from "./lib/harness.mjs";

const RUNS = 10;

const { server, host, browser, stop } = await startEmbedBench(19887);
const api = (path, body) => postJson(server, path, body);

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

  const { load, loadFloor } = await interleave(
    RUNS,
    {
      load: () => insert("report-builder", blueprint.embed_id, tokenUrl, "report-builder-load", "report-builder-error"),
      loadFloor: () =>
        insert(
          "dashboard-embed",
          "sales-overview",
          "/token?customer=acme-berlin&dashboard=sales-overview",
          "dashboard-load",
          "dashboard-error",
        ),
    },
    { warmup: 1 },
  );

  await insert("report-builder", blueprint.embed_id, tokenUrl, "report-builder-load", "report-builder-error");
  const frame = page.frames().find((f) => f.url().includes("/report-builder/"));
  // Group by product once, then flip the time bucket of a day group back and forth: each
  // flip is one change with a new chart.
  await frame.evaluate(() => document.getElementById("rb-add-group").click());
  await frame.waitForSelector("#rb-g0-bucket");
  const { change, changeFloor } = await interleave(
    RUNS,
    {
      change: (i) =>
        frame.evaluate(
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
        ),
      changeFloor: (i) =>
        frame.evaluate(
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
        ),
    },
    { warmup: 1 },
  );

  const minted = await api("/api/generate_embed_token/", { provided_id: "acme-berlin", blueprint_id: blueprint.id });
  const html = await fetch(minted.embed_url).then((r) => r.text());
  const script = await fetch(`${server.base}/report-builder.js`).then((r) => r.text());
  const embedJs = await fetch(`${server.base}/embed.js`).then((r) => r.text());

  console.log(`\n<report-builder>, median of ${RUNS} (acme-berlin, 1280 px)`);
  console.log(`  insert → report-builder-load          ${median(load).toFixed(0)} ms`);
  console.log(
    `  floor: insert → dashboard-load        ${median(loadFloor).toFixed(0)} ms   ratio ${ratio(median(load), median(loadFloor))}`,
  );
  console.log(`  change → updated chart                ${median(change).toFixed(0)} ms`);
  console.log(
    `  floor: the query alone (POST /query)  ${median(changeFloor).toFixed(0)} ms   ratio ${ratio(median(change), median(changeFloor))}`,
  );
  console.log(`  page ${sizeWithGzip(html)}, report-builder.js ${sizeWithGzip(script)}, embed.js ${sizeWithGzip(embedJs)}`);
} finally {
  await stop();
}

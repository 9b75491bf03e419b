#!/usr/bin/env node
// Languages and time zones, in one run of the local runtime (`npm start` on its own port):
//   1. the embed page of the demo dashboard (acme-berlin, sales-overview) in en-US, de-DE and
//      ar-EG: pages per second, one client after another, interleaved rounds — are the Intl
//      formatters cached per isolate (src/view/format.ts)? Then the locales cost the same.
//   2. a report-builder query bucketed by month in Europe/Berlin vs UTC, on D1 and on
//      PostgreSQL (WAREHOUSE): on D1 a zone costs a range query first (SQLite has no zone
//      database; the zone's offsets over the data's range are bound), on PostgreSQL AT TIME ZONE.
// Every figure against the floor measured in the same run: GET /health, and the UTC query.
// Usage: npm run bench:locales [-- --runs 30]
import { interleave, mapCustomerData, median, numberArg, postJson, ratio, startServer, timed } from "./lib/harness.mjs";

const runs = numberArg("runs", 30);
const port = 19994;
const base = `http://127.0.0.1:${port}`;

const server = await startServer({
  port,
  vars: { RATE_LIMIT_PER_MINUTE: 1000000, BUILDER_REQUESTS_PER_MINUTE: 1000000, LOG_LEVEL: "warn" },
});
try {
  const api = (path, body) => postJson(server, path, body);
  const timedGet = async (url, init) => {
    const { ms, value } = await timed(async () => {
      const response = await fetch(url, init);
      return { response, text: await response.text() };
    });
    if (value.response.status !== 200) throw new Error(`${url}: HTTP ${value.response.status} ${value.text.slice(0, 300)}`);
    return ms;
  };

  // ---- 1. the embed page in three locales ------------------------------------------------------
  const locales = ["en-US", "de-DE", "ar-EG"];
  const urls = {};
  for (const locale of locales) {
    const minted = await api("/api/generate_embed_token/", {
      provided_id: "acme-berlin",
      dashboard_embed_id: "sales-overview",
      locale,
      expires_in: 3600,
    });
    urls[locale] = `${minted.embed_url}&width=1280`;
  }
  const { health, ...page } = await interleave(
    runs,
    { ...Object.fromEntries(locales.map((locale) => [locale, () => timedGet(urls[locale])])), health: () => timedGet(`${base}/health`) },
    { warmup: 1 },
  );

  // ---- 2. a month bucket in a zone vs UTC, D1 and PostgreSQL -----------------------------------
  const { blueprints } = await api("/api/get_customer_blueprints/", { customer_id: "acme-berlin" });
  const demo = blueprints.find((b) => b.name === "Sales data");
  if (!demo) throw new Error("npm start did not seed the demo blueprint 'Sales data'");
  const schemaId = (await api("/api/get_blueprint/", { blueprint_id: demo.id })).blueprint.tables[0].schema_id;
  const created = await api("/api/create_blueprint/", {
    customer_id: "acme-berlin",
    blueprint_name: "Bench zones",
    tables: [
      {
        table_name: "orders",
        schema_id: schemaId,
        // The demo's days as instants at noon UTC: a DATETIME column (a DATE has no zone).
        query: "SELECT day || 'T12:00:00Z' AS at, amount FROM orders WHERE customer_id = {{customer.provided_id}}",
        columns: [
          { name: "at", type: "DATETIME" },
          { name: "amount", type: "FLOAT", can_be_grouped: false },
        ],
      },
    ],
  });
  if (!created.blueprint_id) throw new Error(JSON.stringify(created));
  const blueprint = (await api("/api/get_blueprint/", { blueprint_id: created.blueprint_id })).blueprint;
  const tokens = {};
  for (const timezone of ["UTC", "Europe/Berlin"]) {
    tokens[timezone] = (
      await api("/api/generate_embed_token/", { provided_id: "acme-berlin", blueprint_id: blueprint.id, timezone, expires_in: 3600 })
    ).token;
  }
  const query = { dataset: "orders", group_by: [{ column: "at", bucket: "month" }], values: [{ aggregate: "sum", column: "amount" }] };
  const ask = async (timezone) => {
    const { ms, value } = await timed(async () => {
      const response = await fetch(`${base}/report-builder/${blueprint.embed_id}/query`, {
        method: "POST",
        headers: { Authorization: `Bearer ${tokens[timezone]}`, "Content-Type": "application/json" },
        body: JSON.stringify(query),
      });
      return { response, answer: await response.json() };
    });
    const { response, answer } = value;
    if (response.status !== 200) throw new Error(`query: HTTP ${response.status} ${JSON.stringify(answer)}`);
    return { ms, answer, trips: response.headers.get("X-Data-Round-Trips") };
  };
  const mapTo = (kind) => mapCustomerData(base, "acme-berlin", kind);
  const zoned = [];
  for (const kind of ["d1", "postgres"]) {
    mapTo(kind);
    const times = { UTC: [], "Europe/Berlin": [] };
    let trips = {};
    let rows = 0;
    for (let i = 0; i <= runs; i++) {
      for (const timezone of ["UTC", "Europe/Berlin"]) {
        const { ms, answer, trips: t } = await ask(timezone);
        if (i === 0) {
          rows = answer.row_count;
          continue;
        }
        times[timezone].push(ms);
        trips[timezone] = t;
      }
    }
    zoned.push({ kind, utc: median(times.UTC), zone: median(times["Europe/Berlin"]), rows, trips });
    trips = {};
  }
  mapTo("d1"); // leave the demo as npm start seeds it

  const floor = median(health);
  console.log(`\nLocales and time zones, median of ${runs}, one run, Node ${process.version}`);
  console.log(`  GET /health (floor): ${floor.toFixed(2)} ms`);
  for (const locale of locales) {
    const ms = median(page[locale]);
    console.log(
      `  embed page sales-overview ${locale}: ${ms.toFixed(2).padStart(6)} ms = ${(1000 / ms).toFixed(0).padStart(4)} pages/s one client; ` +
        `${ratio(ms, floor, 1)}× floor; ${ratio(ms, median(page["en-US"]))}× en-US`,
    );
  }
  for (const r of zoned) {
    console.log(
      `  builder month bucket on ${r.kind.padEnd(8)} UTC ${r.utc.toFixed(2).padStart(6)} ms   Europe/Berlin ${r.zone.toFixed(2).padStart(6)} ms   ` +
        `${ratio(r.zone, r.utc)}× UTC (+${(r.zone - r.utc).toFixed(2)} ms)   ${r.rows} rows   data round trips UTC ${r.trips.UTC}, zone ${r.trips["Europe/Berlin"]}`,
    );
  }
} finally {
  await server.stop();
}

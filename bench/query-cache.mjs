#!/usr/bin/env node
// `npm run bench:query-cache`: local throughput of the embed page when its panel results
// come from the query cache (hit), when every view misses (each request a new variable value:
// a cache look-up, the queries, the store), with caching off, and GET /health — same local
// server, same load, interleaved rounds, medians, ratios to /health in each round.
// The dashboard is the demo's sales overview (7 data panels on DEMO_DATA), pushed once more
// under another embed id with `cache_ttl_seconds`.
// Usage: npm run bench:query-cache [-- --duration 5 --connections 20 --rounds 3]
import autocannon from "autocannon";
import { readFileSync } from "node:fs";
import { adminHeaders, interleave, median, numberArg, postJson, roundsText, startServer } from "./lib/harness.mjs";

const duration = numberArg("duration", 5);
const connections = numberArg("connections", 20);
const rounds = numberArg("rounds", 3);
const port = 19887;

const server = await startServer({ port, vars: { LOG_LEVEL: "warn" }, flags: ["--log-level", "warn"] });
try {
  const { base } = server;
  const admin = (path, body) => postJson(server, path, body, adminHeaders(server));
  const sales = JSON.parse(readFileSync(new URL("../examples/dashboards/sales.json", import.meta.url), "utf8"));
  await admin("/admin/dashboards/", { embed_id: "sales-cached", name: "Sales (cached)" });
  const saved = await admin("/admin/dashboard_versions/", {
    embed_id: "sales-cached",
    definition: { ...sales.definition, cache_ttl_seconds: 3600 },
  });
  if (!saved.success) throw new Error(JSON.stringify(saved));
  const customer = await postJson(server, "/api/get_customer/", { provided_id: "acme-berlin" });
  const token = customer.customer.token;

  // Every `since` before the first order shows the same rows; each request's own value makes its own keys.
  let n = 0;
  const routes = {
    health: { url: `${base}/health` },
    hit: { url: `${base}/embed/sales-cached?customer_token=${token}&var_since=2026-01-01` },
    miss: {
      url: `${base}/embed/sales-cached?customer_token=${token}`,
      requests: [{ setupRequest: (req) => ({ ...req, path: `/embed/sales-cached?customer_token=${token}&var_since=2025-12-31T${++n}` }) }],
    },
    off: { url: `${base}/embed/${sales.embed_id}?customer_token=${token}&var_since=2026-01-01` },
  };
  // What each route is, from the headers the Worker reports outside production.
  for (const [name, opts] of Object.entries(routes)) {
    if (name === "health") continue;
    const path =
      name === "miss"
        ? `/embed/sales-cached?customer_token=${token}&var_since=2025-12-31Tcheck`
        : new URL(opts.url).pathname + new URL(opts.url).search;
    await fetch(`${base}${path}`).then((r) => r.text());
    const res = await fetch(`${base}${path}`);
    await res.text();
    const expected = { hit: "hit", miss: "hit", off: "off" }[name]; // the second look at the same miss URL hits
    if (res.headers.get("X-Query-Cache") !== expected) throw new Error(`${name}: X-Query-Cache ${res.headers.get("X-Query-Cache")}`);
    console.log(
      `${name.padEnd(5)} ${res.headers.get("X-Query-Cache")} on a repeat, X-Data-Round-Trips ${res.headers.get("X-Data-Round-Trips")} (miss: 1 per request)`,
    );
  }

  const run = (opts, seconds = duration) => autocannon({ connections, duration: seconds, ...opts });
  for (const opts of Object.values(routes)) await run(opts, 2); // warm-up
  const measure = async (name, opts) => {
    const result = await run(opts);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
  };
  const results = await interleave(
    rounds,
    Object.fromEntries(Object.entries(routes).map(([name, opts]) => [name, () => measure(name, opts)])),
  );
  const med = (name, key) => median(results[name].map((r) => r[key]));
  const ratios = (name) => results[name].map((r, i) => r.rps / results.health[i].rps);
  console.log(
    `\nautocannon, ${connections} connections, ${rounds} rounds × ${duration}s per route, interleaved, loopback via wrangler dev (medians):`,
  );
  const labels = {
    health: "GET /health",
    hit: "embed page, all 7 panels hit",
    miss: "embed page, every panel misses",
    off: "embed page, caching off",
  };
  for (const name of Object.keys(routes)) {
    const ratio = name === "health" ? "" : `   ×${median(ratios(name)).toFixed(2)} of /health (rounds ${roundsText(ratios(name))})`;
    console.log(
      `  ${labels[name].padEnd(32)} ${med(name, "rps").toFixed(0).padStart(5)} req/s   p50 ${med(name, "p50").toFixed(1)} ms   p99 ${med(name, "p99").toFixed(1)} ms${ratio}`,
    );
  }
  const hitOverMiss = results.hit.map((r, i) => r.rps / results.miss[i].rps);
  console.log(`  hit / miss per round: ${roundsText(hitOverMiss)}`);
} finally {
  await server.stop();
}
process.exit(0);

#!/usr/bin/env node
// `npm run bench:sources`: per engine of the vendor's databases, the demo dashboard's panel
// time — its panels through the data plane (one connection, the READ ONLY transaction, limits,
// namespace) — against the bare driver (mysql2, pg) running the same bound statements in the
// same run, and for ClickHouse against @clickhouse/client-web sending the same queries with
// their parameters, all inside the Worker on the same path to the database (a development
// route, src/dev/source-floor.ts), taking turns which goes first. Also the embed page's round trips
// and connections per render (goal: one connection per data source per render).
// MySQL: acme-berlin in its own namespace (npm run demo:mysql; npm start starts a local
// MariaDB/MySQL when one is installed); PostgreSQL: globex (npm run demo:postgres);
// ClickHouse: acme (npm run demo:clickhouse) on the tests' ClickHouse server (the real engine
// from chdb, scripts/lib/clickhouse-test-server.mjs), started here, or CLICKHOUSE_URL.
// Usage: npm run bench:sources [-- --runs 30]  (BENCH_DEBUG=1 shows the server's output)
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ensureLocalClickhouse } from "../scripts/lib/local-clickhouse.mjs";
import { adminHeaders, interleave, mapCustomerData, median, numberArg, postJson, ratio, root, startServer } from "./lib/harness.mjs";

const runs = numberArg("runs", 30);
const port = 19993;
const base = `http://127.0.0.1:${port}`;
const EMBED = "sales-overview";
const engines = [
  { kind: "mysql", customer: "acme-berlin", name: "MySQL (MariaDB here)" },
  { kind: "postgres", customer: "globex", name: "PostgreSQL" },
  { kind: "clickhouse", customer: "acme", name: "ClickHouse (chdb here)" },
];

function demoMysql(...args) {
  const result = spawnSync(process.execPath, [join(root, "scripts", "demo-mysql.mjs"), "--base", base, ...args], {
    cwd: root,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`demo-mysql failed:\n${result.stdout}\n${result.stderr}`);
}

function demoClickhouse(clickhouse, ...args) {
  // The server started below, given to the demo as its own (an account that may create the demo database).
  const url = new URL(clickhouse.url);
  url.username = clickhouse.adminUser;
  url.password = clickhouse.adminPassword;
  const result = spawnSync(
    process.execPath,
    [join(root, "scripts", "demo-clickhouse.mjs"), "--base", base, "--customer", "acme", ...args],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, CLICKHOUSE_URL: url.href },
    },
  );
  if (result.status !== 0) throw new Error(`demo-clickhouse failed:\n${result.stdout}\n${result.stderr}`);
}

if (process.env.CLICKHOUSE_URL) process.env.CLICKHOUSE_TEST_URL = process.env.CLICKHOUSE_URL;
const clickhouse = await ensureLocalClickhouse();
if (clickhouse.skipped) throw new Error(`No ClickHouse server: ${clickhouse.skipped}`);
const server = await startServer({
  port,
  vars: { RATE_LIMIT_PER_MINUTE: 1000000, LOG_LEVEL: "warn" },
  onOutput: process.env.BENCH_DEBUG ? (t) => process.stderr.write(t) : undefined,
});
try {
  demoMysql();
  mapCustomerData(base, "globex", "postgres");
  demoClickhouse(clickhouse);
  for (const engine of engines) {
    const viewer = await postJson(server, "/api/get_customer/", { provided_id: engine.customer });
    engine.token = viewer.customer.token;
  }

  const floorOf = async (engine, bareFirst) => {
    const url = `${base}/_dev/floor/source-panels/${EMBED}?customer_token=${engine.token}${bareFirst ? "&bare_first=1" : ""}`;
    const body = await fetch(url, { headers: adminHeaders(server) }).then((r) => r.json());
    const source = body.sources?.find((s) => s.kind === engine.kind);
    if (!source) throw new Error(`${engine.name}: no ${engine.kind} source answered: ${JSON.stringify(body)}`);
    if (source.failed) throw new Error(`${engine.name}: ${source.failed} panel(s) failed`);
    return source;
  };
  const steps = Object.fromEntries(engines.map((engine) => [engine.kind, (i) => floorOf(engine, i % 2 === 1)]));
  const measured = await interleave(runs, steps, { warmup: 2 });

  const pages = {};
  for (const engine of engines) {
    const response = await fetch(`${base}/embed/${EMBED}?customer_token=${engine.token}`);
    const html = await response.text();
    pages[engine.kind] = {
      status: response.status,
      failed: (html.match(/class="message message-failed"/g) ?? []).length,
      trips: response.headers.get("X-Data-Round-Trips-By-Source"),
      connections: response.headers.get("X-Data-Connections"),
    };
  }

  console.log(`\nDemo dashboard ${EMBED}: panel time per data source, median of ${runs} (turns taken), Node ${process.version}`);
  for (const engine of engines) {
    const samples = measured[engine.kind];
    const ours = median(samples.map((s) => s.ours_ms));
    const bare = median(samples.map((s) => s.bare_ms));
    const per = samples.map((s) => s.ours_ms / Math.max(1, s.bare_ms));
    const page = pages[engine.kind];
    console.log(
      `  ${engine.name.padEnd(22)} ${samples[0].panels} panels: data plane ${ours.toFixed(1)} ms, bare driver ${bare.toFixed(1)} ms, ` +
        `${ratio(ours, bare)}× (median of per-turn ratios ${median(per).toFixed(2)}×); ` +
        `per render: round trips ${samples[0].round_trips}, connections ${samples[0].connections}; ` +
        `embed page HTTP ${page.status}, by source ${page.trips}, connections ${page.connections}${page.failed ? `, ${page.failed} panel(s) failed` : ""}`,
    );
  }
} finally {
  try {
    demoMysql("--d1");
    mapCustomerData(base, "globex", "d1");
    demoClickhouse(clickhouse, "--d1");
  } catch {}
  await server.stop();
  await clickhouse.stop();
}

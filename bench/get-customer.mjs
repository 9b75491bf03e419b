#!/usr/bin/env node
// Benchmark: get_customer against a trivial JSON route (/health) and three floor routes
// (/_dev/floor/d1: one trivial D1 query; /_dev/floor/echo: a JSON body; /_dev/floor/body-d1:
// both) of the same local server, same run, same load (autocannon on loopback, interleaved
// rounds, medians), with the CPU each request costs the Worker's process, plus the D1 round
// trips each customer operation costs (read from the X-D1-Round-Trips header the Worker
// reports outside production).
// Usage: npm run bench [-- --duration 8 --connections 20 --rounds 5]
import autocannon from "autocannon";
import { readdirSync, readFileSync } from "node:fs";
import { adminHeaders, apiHeaders, interleave, median, numberArg, roundsText, startServer } from "./lib/harness.mjs";

const duration = numberArg("duration", 8);
const connections = numberArg("connections", 20);
const rounds = numberArg("rounds", 5);
const port = 19787;
const base = `http://127.0.0.1:${port}`;
// The per-token rate limit would otherwise refuse most of the load.
const server = await startServer({
  port,
  vars: { RATE_LIMIT_PER_MINUTE: 1000000000, LOG_LEVEL: "warn" },
  flags: ["--log-level", "warn"],
});

try {
  const vars = server.vars;
  const headers = apiHeaders(server);
  const call = async (method, path, body) => {
    const res = await fetch(`${base}${path}`, { method, headers, body: body && JSON.stringify(body) });
    return { status: res.status, trips: Number(res.headers.get("X-D1-Round-Trips")), body: await res.json() };
  };

  // A three-level chain so get_customer has ancestors to merge.
  await fetch(`${base}/admin/hierarchy_levels/`, {
    method: "PUT",
    headers: adminHeaders(server),
    body: JSON.stringify({ levels: ["Customer", "Team", "User"] }),
  });
  await call("POST", "/api/create_group_tag/", { name: "bench" });
  await call("POST", "/api/create_customer/", { provided_id: "bench-root", properties: { a: 1 }, mapping: { 1: "demo" } });
  await call("POST", "/api/create_customer/", {
    provided_id: "bench-team",
    parent_provided_id: "bench-root",
    hierarchy_level_name: "Team",
    properties: { b: 2 },
  });
  const created = await call("POST", "/api/create_customer/", {
    provided_id: "bench-user",
    parent_provided_id: "bench-team",
    hierarchy_level_name: "User",
    group_tags: ["bench"],
    properties: { c: 3 },
  });

  const trips = {
    "create_customer (new, with parent + tag)": created.trips,
    "create_customer (existing)": (await call("POST", "/api/create_customer/", { provided_id: "bench-user" })).trips,
    "get_customer (3-level chain)": (await call("POST", "/api/get_customer/", { provided_id: "bench-user" })).trips,
    "list v1": (await call("GET", "/api/customers/")).trips,
    "list v2 (one page)": (await call("GET", "/api/v2/customers/?page_size=2")).trips,
    update_customer: (await call("POST", "/api/update_customer/", { provided_id: "bench-user", name: "Bench user" })).trips,
    refresh_customer_token: (await call("POST", "/api/refresh_customer_token/", { current_token: created.body.customer.token })).trips,
  };
  console.log("\nD1 round trips per request (X-D1-Round-Trips):");
  for (const [name, count] of Object.entries(trips)) console.log(`  ${name.padEnd(42)} ${count}`);

  const run = (opts) => autocannon({ connections, duration, ...opts });
  const health = { url: `${base}/health` };
  const get = { url: `${base}/api/get_customer/`, method: "POST", headers, body: JSON.stringify({ provided_id: "bench-user" }) };
  // Floors (development-only routes): one trivial D1 query; the JSON body rules and an echo.
  // They need the admin token, as every /_dev/ route but the outbox.
  const devAuth = { Authorization: `Bearer ${vars.ADMIN_TOKEN}` };
  const floorD1 = { url: `${base}/_dev/floor/d1`, headers: devAuth };
  const floorEcho = {
    url: `${base}/_dev/floor/echo`,
    method: "POST",
    headers: { ...devAuth, "Content-Type": "application/json" },
    body: JSON.stringify({ provided_id: "bench-user" }),
  };
  // get_customer is a POST with a JSON body: its own floor is the body rules plus one query.
  const floorBodyD1 = { ...floorEcho, url: `${base}/_dev/floor/body-d1` };
  const routes = { health, get, d1: floorD1, echo: floorEcho, bodyD1: floorBodyD1 };
  for (const opts of Object.values(routes)) await run({ ...opts, duration: 2 }); // warm-up
  const measure = async (name, opts) => {
    const before = serverCpu(server.pid);
    const result = await run(opts);
    if (result.non2xx > 0) throw new Error(`${name}: ${result.non2xx} non-2xx responses`);
    return {
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      cpu: { before, after: serverCpu(server.pid) },
      requests: result.requests.total,
    };
  };
  const results = await interleave(
    rounds,
    Object.fromEntries(Object.entries(routes).map(([name, opts]) => [name, () => measure(name, opts)])),
  );
  // The Worker's workerd process (single-threaded; wrangler's proxy runs in another): the one
  // that spent the most CPU over the whole run.
  const spent = new Map();
  for (const list of Object.values(results))
    for (const { cpu } of list)
      for (const [pid, ticks] of cpu.after) spent.set(pid, (spent.get(pid) ?? 0) + ticks - (cpu.before.get(pid) ?? ticks));
  const worker = [...spent].sort((a, b) => b[1] - a[1])[0]?.[0];
  for (const list of Object.values(results))
    for (const r of list) r.cpuUs = worker === undefined ? NaN : cpuUsPerRequest(worker, r.cpu, r.requests);
  const med = (name, pick) => median(results[name].map(pick));
  // Each round's ratio compares routes measured seconds apart, so the machine's drift cancels
  // as far as it can; the median and the range of those ratios are what to compare.
  const roundRatios = (name) => results[name].map((r, i) => r.rps / results.health[i].rps);
  const ratioText = (name) => {
    const ratios = roundRatios(name);
    return `${median(ratios).toFixed(2)} (rounds ${roundsText(ratios)})`;
  };
  const cpuText = (us) => (Number.isNaN(us) ? "CPU n/a (no /proc)" : `${(us / 1000).toFixed(2)} ms CPU`);
  const line = (label, name, note = "") =>
    console.log(
      `  ${label.padEnd(25)} ${med(name, (r) => r.rps)
        .toFixed(0)
        .padStart(
          5,
        )} req/s   p50 ${med(name, (r) => r.p50).toFixed(1)} ms   p99 ${med(name, (r) => r.p99).toFixed(1)} ms   ${cpuText(med(name, (r) => r.cpuUs))}${note}`,
    );
  console.log(
    `\nautocannon, ${connections} connections, ${rounds} rounds × ${duration}s per route, interleaved, loopback via wrangler dev;`,
  );
  console.log("medians over the rounds; CPU = the Worker's workerd process (single-threaded, the bottleneck) per request:");
  line("GET  /health", "health");
  line("POST /api/get_customer", "get");
  line("GET  /_dev/floor/d1", "d1", "   (one trivial D1 query)");
  line("POST /_dev/floor/echo", "echo", "   (JSON body rules + echo)");
  line("POST /_dev/floor/body-d1", "bodyD1", "   (JSON body rules + one trivial D1 query)");
  console.log(`  to health, per round: get_customer ${ratioText("get")}`);
  console.log(`                        floor d1     ${ratioText("d1")}`);
  console.log(`                        floor echo   ${ratioText("echo")}`);
  console.log(`                        floor body+d1 ${ratioText("bodyD1")}`);
  const toFloor = results.get.map((r, i) => r.rps / results.bodyD1[i].rps);
  console.log(`  get_customer / floor body+d1: ${median(toFloor).toFixed(2)} (rounds ${roundsText(toFloor)})`);
  console.log(`  ratio get_customer / health: ${median(roundRatios("get")).toFixed(2)}`);
} finally {
  await server.stop();
}
process.exit(0);

/** CPU ticks (user + system) of every process in the server's process group, by pid; none without /proc (not Linux). */
function serverCpu(group) {
  const ticks = new Map();
  let pids = [];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return ticks;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === group) ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks;
}

/** CPU µs per request of one process over a measurement. */
function cpuUsPerRequest(pid, { before, after }, requests) {
  const TICKS_PER_SECOND = 100; // USER_HZ on Linux
  const ticks = (after.get(pid) ?? 0) - (before.get(pid) ?? after.get(pid) ?? 0);
  return ((ticks / TICKS_PER_SECOND) * 1e6) / Math.max(1, requests);
}

#!/usr/bin/env node
// Benchmark: get_customer against a trivial JSON route (/health) and two floor routes
// (/_dev/floor/d1: one trivial D1 query; /_dev/floor/echo: a JSON body) of the same local
// server, same run, same load (autocannon on loopback), plus the D1 round trips each customer
// operation costs (read from the X-D1-Round-Trips header the Worker reports outside
// production). Usage: npm run bench [-- --duration 10 --connections 20]
import autocannon from "autocannon";
import { startLocalServer } from "../scripts/lib/local-server.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const duration = arg("duration", 10);
const connections = arg("connections", 20);
const rounds = arg("rounds", 2);
const port = 19787;
const base = `http://127.0.0.1:${port}`;
// The per-token rate limit would otherwise refuse most of the load.
const server = await startLocalServer({
  port,
  args: ["--var", "RATE_LIMIT_PER_MINUTE:1000000000", "--var", "LOG_LEVEL:warn", "--log-level", "warn"],
});

try {
  const vars = server.vars;
  const headers = { "Service-Authorization": `Token ${vars.DEV_API_TOKEN}`, "Content-Type": "application/json" };
  const call = async (method, path, body) => {
    const res = await fetch(`${base}${path}`, { method, headers, body: body && JSON.stringify(body) });
    return { status: res.status, trips: Number(res.headers.get("X-D1-Round-Trips")), body: await res.json() };
  };

  // A three-level chain so get_customer has ancestors to merge.
  await fetch(`${base}/admin/hierarchy_levels/`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${vars.ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ levels: ["Customer", "Team", "User"] }),
  });
  await call("POST", "/api/create_group_tag/", { name: "bench" });
  await call("POST", "/api/create_customer/", { provided_id: "bench-root", properties: { a: 1 }, mapping: { 1: "demo" } });
  await call("POST", "/api/create_customer/", { provided_id: "bench-team", parent_provided_id: "bench-root", hierarchy_level_name: "Team", properties: { b: 2 } });
  const created = await call("POST", "/api/create_customer/", {
    provided_id: "bench-user", parent_provided_id: "bench-team", hierarchy_level_name: "User", group_tags: ["bench"], properties: { c: 3 },
  });

  const trips = {
    "create_customer (new, with parent + tag)": created.trips,
    "create_customer (existing)": (await call("POST", "/api/create_customer/", { provided_id: "bench-user" })).trips,
    "get_customer (3-level chain)": (await call("POST", "/api/get_customer/", { provided_id: "bench-user" })).trips,
    "list v1": (await call("GET", "/api/customers/")).trips,
    "list v2 (one page)": (await call("GET", "/api/v2/customers/?page_size=2")).trips,
    "update_customer": (await call("POST", "/api/update_customer/", { provided_id: "bench-user", name: "Bench user" })).trips,
    "refresh_customer_token": (await call("POST", "/api/refresh_customer_token/", { current_token: created.body.customer.token })).trips,
  };
  console.log("\nD1 round trips per request (X-D1-Round-Trips):");
  for (const [name, count] of Object.entries(trips)) console.log(`  ${name.padEnd(42)} ${count}`);

  const run = (opts) => autocannon({ connections, duration, ...opts });
  const health = { url: `${base}/health` };
  const get = { url: `${base}/api/get_customer/`, method: "POST", headers, body: JSON.stringify({ provided_id: "bench-user" }) };
  // Floors (development-only routes): one trivial D1 query; the JSON body rules and an echo.
  const floorD1 = { url: `${base}/_dev/floor/d1` };
  const floorEcho = { url: `${base}/_dev/floor/echo`, method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ provided_id: "bench-user" }) };
  const routes = [["health", health], ["get", get], ["d1", floorD1], ["echo", floorEcho]];
  for (const [, opts] of routes) await run({ ...opts, duration: 2 }); // warm-up
  const results = { health: [], get: [], d1: [], echo: [] };
  for (let r = 0; r < rounds; r++) {
    for (const [name, opts] of routes) {
      const result = await run(opts);
      if (result.non2xx > 0) throw new Error(`${name}: ${result.non2xx} non-2xx responses`);
      results[name].push(result);
    }
  }
  const mean = (list, pick) => list.reduce((sum, r) => sum + pick(r), 0) / list.length;
  const rps = (name) => mean(results[name], (r) => r.requests.average);
  const p50 = (name) => mean(results[name], (r) => r.latency.p50);
  const p99 = (name) => mean(results[name], (r) => r.latency.p99);
  console.log(`\nautocannon, ${connections} connections, ${rounds} × ${duration}s per route, interleaved, loopback via wrangler dev:`);
  console.log(`  GET  /health          ${rps("health").toFixed(0).padStart(6)} req/s   p50 ${p50("health").toFixed(1)} ms   p99 ${p99("health").toFixed(1)} ms`);
  console.log(`  POST /api/get_customer ${rps("get").toFixed(0).padStart(5)} req/s   p50 ${p50("get").toFixed(1)} ms   p99 ${p99("get").toFixed(1)} ms`);
  console.log(`  GET  /_dev/floor/d1    ${rps("d1").toFixed(0).padStart(6)} req/s   p50 ${p50("d1").toFixed(1)} ms   p99 ${p99("d1").toFixed(1)} ms   (one trivial D1 query)`);
  console.log(`  POST /_dev/floor/echo  ${rps("echo").toFixed(0).padStart(5)} req/s   p50 ${p50("echo").toFixed(1)} ms   p99 ${p99("echo").toFixed(1)} ms   (JSON body rules + echo)`);
  const ratio = (name) => (rps(name) / rps("health")).toFixed(2);
  console.log(`  ratios to health: get_customer ${ratio("get")}   floor d1 ${ratio("d1")}   floor echo ${ratio("echo")}`);
  console.log(`  ratio get_customer / health: ${ratio("get")}`);
} finally {
  await server.stop();
}
process.exit(0);

#!/usr/bin/env node
// Where the Worker's CPU goes: starts the service with an inspector port, drives one load
// for 10 s while V8's sampling profiler runs (DevTools protocol), and prints the functions
// with the most self time, each with its source line. The profile (.cpuprofile, opens in
// Chrome DevTools) is written to the system's temp directory.
//   npm run bench:profile                 get_customer under 20 connections (autocannon)
//   npm run bench:profile -- delivery     screenshots one after the other, each downloaded
//                                         with ?wait=30, charts forgotten before each
// Inside workerd the Durable Objects of this Worker share its isolate locally, so their
// CPU (the capture station's) shows up too.
import autocannon from "autocannon";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { startLocalServer } from "../scripts/lib/local-server.mjs";

const target = process.argv[2] === "delivery" ? "delivery" : "get_customer";
const port = 19799;
const inspectorPort = 9331;
const base = `http://127.0.0.1:${port}`;
const server = await startLocalServer({
  port,
  args: [
    "--var",
    "RATE_LIMIT_PER_MINUTE:1000000000",
    "--var",
    "DELIVERY_LIMIT_PER_MINUTE:1000000",
    "--var",
    "LOG_LEVEL:warn",
    "--log-level",
    "warn",
    "--inspector-port",
    String(inspectorPort),
  ],
});

try {
  const headers = { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" };
  await fetch(`${base}/api/create_customer/`, {
    method: "POST",
    headers,
    body: JSON.stringify({ provided_id: "profiled", properties: { a: 1 } }),
  });
  const getCustomer = { url: `${base}/api/get_customer/`, method: "POST", headers, body: JSON.stringify({ provided_id: "profiled" }) };
  async function deliveries(ms) {
    let count = 0;
    for (const started = Date.now(); Date.now() - started < ms; count++) {
      await fetch(`${base}/_dev/charts/forget`, { method: "POST", headers: { Authorization: `Bearer ${server.vars.ADMIN_TOKEN}` } });
      const job = await fetch(`${base}/api/dashboard/screenshot`, {
        method: "POST",
        headers,
        body: JSON.stringify({ provided_id: "acme-berlin", dashboard_embed_id: "sales-overview", export_type: "image", width: 1280 }),
      }).then((r) => r.json());
      if (job.success !== 1) throw new Error(JSON.stringify(job));
      await (await fetch(`${job.url}?wait=30`)).arrayBuffer();
    }
    return `${count} deliveries`;
  }
  const load =
    target === "delivery"
      ? deliveries
      : async (ms) => `${(await autocannon({ ...getCustomer, connections: 20, duration: ms / 1000 })).requests.average} req/s`;
  await load(3000); // warm-up

  const [worker] = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const ws = new WebSocket(worker.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let nextId = 0;
  const pending = new Map();
  ws.on("message", (data) => {
    const message = JSON.parse(data);
    pending.get(message.id)?.(message.result);
    pending.delete(message.id);
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });

  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 200 });
  await send("Profiler.start");
  const done = await load(10_000);
  const { profile } = await send("Profiler.stop");
  const file = join(tmpdir(), `${target}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));

  // Self time per function (name, file, line), with the line's text from the script.
  await send("Debugger.enable");
  const sources = new Map();
  const lineOf = async ({ scriptId, lineNumber }) => {
    if (!scriptId || scriptId === "0") return "";
    if (!sources.has(scriptId))
      sources.set(scriptId, ((await send("Debugger.getScriptSource", { scriptId }))?.scriptSource ?? "").split("\n"));
    return (sources.get(scriptId)[lineNumber] ?? "").trim().slice(0, 90);
  };
  const selfTime = new Map();
  for (let i = 0; i < profile.samples.length; i++)
    selfTime.set(profile.samples[i], (selfTime.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const byFunction = new Map();
  let total = 0;
  for (const node of profile.nodes) {
    const time = selfTime.get(node.id) ?? 0;
    total += time;
    const frame = node.callFrame;
    const key = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber}`;
    const entry = byFunction.get(key) ?? { time: 0, frame };
    entry.time += time;
    byFunction.set(key, entry);
  }
  console.log(`\n${target}: ${done} in 10 s; profile in ${file}`);
  console.log(`self time, top 30 of ${(total / 1000).toFixed(0)} ms sampled:`);
  for (const [key, { time, frame }] of [...byFunction].sort((a, b) => b[1].time - a[1].time).slice(0, 30)) {
    console.log(
      `${(time / 1000).toFixed(0).padStart(7)} ms ${((100 * time) / total).toFixed(1).padStart(5)} %  ${key}  ${await lineOf(frame)}`,
    );
  }
  ws.close();
} finally {
  await server.stop();
}
process.exit(0);

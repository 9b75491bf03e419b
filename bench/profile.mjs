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
// Time is counted in samples, each one sampling interval of running JavaScript: workerd takes
// no samples while the isolate waits for I/O, so the gap before a sample is not its time (the
// sample after a D1 call would otherwise carry the whole call). For deliveries it also prints
// each part of a job's path with the samples under it (inclusive), per delivery.
import autocannon from "autocannon";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { adminHeaders, apiHeaders, startServer } from "./lib/harness.mjs";

const target = process.argv[2] === "delivery" ? "delivery" : "get_customer";
const port = 19799;
const inspectorPort = 9331;
const base = `http://127.0.0.1:${port}`;
const server = await startServer({
  port,
  vars: { RATE_LIMIT_PER_MINUTE: 1000000000, DELIVERY_LIMIT_PER_MINUTE: 1000000, LOG_LEVEL: "warn" },
  flags: ["--log-level", "warn", "--inspector-port", String(inspectorPort)],
});

try {
  const headers = apiHeaders(server);
  await fetch(`${base}/api/create_customer/`, {
    method: "POST",
    headers,
    body: JSON.stringify({ provided_id: "profiled", properties: { a: 1 } }),
  });
  const getCustomer = { url: `${base}/api/get_customer/`, method: "POST", headers, body: JSON.stringify({ provided_id: "profiled" }) };
  async function deliveries(ms) {
    let count = 0;
    for (const started = Date.now(); Date.now() - started < ms; count++) {
      await fetch(`${base}/_dev/charts/forget`, { method: "POST", headers: { Authorization: adminHeaders(server).Authorization } });
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
  // Each sample stands for one interval of running JavaScript (the median gap between samples).
  const gaps = profile.timeDeltas.slice(1).sort((a, b) => a - b);
  const interval = gaps[Math.floor(gaps.length / 2)] ?? 200;
  const selfTime = new Map();
  for (const sample of profile.samples) selfTime.set(sample, (selfTime.get(sample) ?? 0) + interval);
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
  console.log(
    `self time, top 30 of ${(total / 1000).toFixed(0)} ms of JavaScript sampled (${profile.samples.length} samples, one every ${interval} µs):`,
  );
  for (const [key, { time, frame }] of [...byFunction].sort((a, b) => b[1].time - a[1].time).slice(0, 30)) {
    console.log(
      `${(time / 1000).toFixed(0).padStart(7)} ms ${((100 * time) / total).toFixed(1).padStart(5)} %  ${key}  ${await lineOf(frame)}`,
    );
  }
  if (target === "delivery") printDeliveryParts(profile, interval, Number.parseInt(done, 10));
  ws.close();
} finally {
  await server.stop();
}
process.exit(0);

/**
 * A delivery's path, part by part: the samples whose stack passes through the part's
 * function (the first part that matches, in this order), in ms per delivery. A part that
 * matches nothing is said so: a renamed function would otherwise vanish from the table.
 */
function printDeliveryParts(profile, interval, deliveries) {
  const parts = [
    ["charts (ECharts, drawn anew)", "drawnOnce"],
    ["rest of the page's render", "renderLoaded"],
    ["API call (checks, the job's batch)", "requestScreenshot"],
    ["capture station and tab", "captureNow"],
    ["attempt (store, record, hand-over)", "runJob"],
    ["download", "download"],
    ["garbage collector", "(garbage collector)"],
  ];
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const counts = new Map(parts.map(([label]) => [label, 0]));
  let other = 0;
  for (const sample of profile.samples) {
    const names = new Set();
    for (let id = sample; id !== undefined; id = parent.get(id)) names.add(byId.get(id).callFrame.functionName);
    const part = parts.find(([, name]) => names.has(name));
    if (part) counts.set(part[0], counts.get(part[0]) + 1);
    else other++;
  }
  const perDelivery = (count) => ((count * interval) / 1000 / Math.max(1, deliveries)).toFixed(1).padStart(6);
  const share = (count) => ((100 * count) / profile.samples.length).toFixed(0).padStart(4);
  console.log(`\nA delivery's JavaScript, part by part (ms per delivery, share of all samples):`);
  for (const [label] of parts) {
    const count = counts.get(label);
    console.log(`  ${label.padEnd(38)}${perDelivery(count)} ms ${share(count)} %${count === 0 ? "   (nothing sampled: renamed?)" : ""}`);
  }
  console.log(`  ${"everything else".padEnd(38)}${perDelivery(other)} ms ${share(other)} %`);
  console.log("  (code resumed after an await has only the promise under it: most D1 result mapping is in the last row)");
}

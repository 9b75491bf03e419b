// What bench/schedules.mjs and bench/alerts.mjs share (on top of harness.mjs): a local server (`npm start`'s
// runtime) whose "scheduler tick" log lines are collected, an API caller with the dev token,
// `fire` (the Worker's `scheduled` handler for a given time, as the Cron Trigger runs it each
// minute) and `createMany` (1,000 rules, 50 at a time).
import { apiHeaders, sleep, startServer } from "./harness.mjs";

export async function startSchedulerBench(port) {
  const base = `http://127.0.0.1:${port}`;
  const ticks = [];
  const server = await startServer({
    port,
    vars: { RATE_LIMIT_PER_MINUTE: 1000000, DELIVERY_LIMIT_PER_MINUTE: 1000000, LOG_LEVEL: "debug" },
    onOutput: (chunk) => {
      for (const line of chunk.split("\n")) {
        const at = line.indexOf('{"level":');
        if (at >= 0 && line.includes('"message":"scheduler tick"')) ticks.push(JSON.parse(line.slice(at)));
      }
    },
  });
  const headers = apiHeaders(server);
  const api = async (path, body) => {
    const res = await fetch(`${base}${path}`, { method: body === undefined ? "GET" : "POST", headers, body: body && JSON.stringify(body) });
    const json = await res.json();
    if (json.success !== 1) throw new Error(`${path}: ${JSON.stringify(json)}`);
    return json;
  };
  /** Fires the Worker's `scheduled` handler for `time` (what the Cron Trigger does each minute); answers its wall time and its tick's log line. */
  const fire = async (time) => {
    const before = ticks.length;
    const started = performance.now();
    await (await fetch(`${base}/cdn-cgi/local/scheduled?cron=*+*+*+*+*&time=${time}`)).text();
    const wall = performance.now() - started;
    for (let i = 0; i < 50 && ticks.length === before; i++) await sleep(20);
    return { wall, log: ticks[before] };
  };
  /** 1,000 rules through `path`, 50 requests at a time; `body(i)` is the i-th rule. */
  const createMany = async (path, body) => {
    const created = [];
    for (let i = 0; i < 1000; i += 50) created.push(...(await Promise.all(Array.from({ length: 50 }, (_, j) => api(path, body(i + j))))));
    return created;
  };
  return { server, api, fire, createMany };
}

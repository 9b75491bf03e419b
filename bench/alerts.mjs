#!/usr/bin/env node
// Alerts next to schedules under `npm start` (local workerd, real D1, Queues, data sources):
// the scheduler's cost per tick with 1,000 rules of which 50 are due — 1,000 schedules,
// then 1,000 alerts (each due alert evaluates its customer's Revenue panel and fires, so
// both ticks start 50 report jobs) — D1 round trips (the tick's own count: the rules'
// database, not the data source) and handler time from the tick's "scheduler tick" log
// line, against the floor of an idle tick over the same 2,000 rules (nothing due), median
// of 5, measured in the same run.
// Usage: npm run bench:alerts
import { median, ratio } from "./lib/harness.mjs";
import { startSchedulerBench } from "./lib/scheduler.mjs";

const { server, fire, createMany } = await startSchedulerBench(19889);

try {
  const common = { dashboard_embed_id: "sales-overview", provided_id: "acme-berlin" };
  const schedules = await createMany("/api/create_report_schedule/", (i) => ({
    ...common,
    cron: i < 50 ? "0 3 * * *" : "30 4 1 1 *",
    recipients: [`s-${i}@bench.example`],
  }));
  const alerts = await createMany("/api/create_alert/", (i) => ({
    ...common,
    panel_id: "revenue",
    condition: { op: "gt", value: -1e12 },
    notify: "always",
    cron: i < 50 ? "0 5 * * *" : "30 4 1 1 *",
    recipients: [`a-${i}@bench.example`],
  }));
  const scheduleDue = Date.parse(schedules[0].schedule.next_run_at);
  const alertDue = Date.parse(alerts[0].alert.next_run_at);
  const first = Math.min(scheduleDue, alertDue);
  const idle = [];
  for (let i = 0; i < 5; i++) idle.push(await fire(first - (i + 1) * 60_000));
  // The earlier slot first: each tick moves its rules a day on, past the other's slot.
  const order = scheduleDue < alertDue ? ["schedules", "alerts"] : ["alerts", "schedules"];
  const result = {};
  for (const kind of order) result[kind] = await fire(kind === "schedules" ? scheduleDue : alertDue);
  for (const kind of order) {
    const log = result[kind].log;
    if (log?.due !== 50 || log.claimed !== 50 || log.deliveries !== 50) throw new Error(`unexpected ${kind} tick: ${JSON.stringify(log)}`);
  }
  const idleTrips = median(idle.map((t) => t.log.round_trips));
  const idleMs = median(idle.map((t) => t.log.ms));
  const line = (kind) => {
    const { log } = result[kind];
    return `    ${kind.padEnd(9)} handler ${String(log.ms).padStart(5)} ms, D1 round trips ${log.round_trips}  (${ratio(log.ms, Math.max(1, idleMs), 1)}× idle time; per due rule ${((log.ms - idleMs) / 50).toFixed(1)} ms, ${((log.round_trips - idleTrips) / 50).toFixed(2)} round trips)`;
  };
  console.log(`
Scheduler tick, 1,000 rules of a kind with 50 due (50 claimed, 50 report jobs started), local runtime (npm start)
${line("schedules")}
${line("alerts")}
    alerts/schedules: ${ratio(result.alerts.log.ms, result.schedules.log.ms)}× handler time, ${ratio(result.alerts.log.round_trips, result.schedules.log.round_trips)}× D1 round trips
  Floor: idle tick over the same 2,000 rules (none due), median of ${idle.length}: handler ${idleMs} ms, D1 round trips ${idleTrips}
  (An alert's panel query per customer goes to its data source, not the rules' D1: not in the round-trip count.)`);
} finally {
  await server.stop();
}
process.exit(0);

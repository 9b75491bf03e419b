#!/usr/bin/env node
// Scheduled reports under `npm start` (local workerd, real D1, Queues, Browser Rendering):
//  1. The scheduler's cost per tick with 1,000 schedules of which 50 are due: D1 round trips
//     and wall time of the `scheduled` handler (from its own "scheduler tick" log line),
//     against the floor of an idle tick over the same 1,000 schedules (nothing due).
//  2. From a slot's minute to the last e-mail of a 20-customer group-tag run, with the real
//     clock and the every-minute trigger of `npm start` — against the floor of the same 20
//     reports requested at once through /api/dashboard/report.
// Usage: npm run bench:schedules
import { median, ratio, sleep } from "./lib/harness.mjs";
import { startSchedulerBench } from "./lib/scheduler.mjs";

const { server, api, fire, createMany } = await startSchedulerBench(19887);

try {
  const waitForJobs = async (jobIds) => {
    const pending = new Set(jobIds);
    while (pending.size > 0) {
      for (const id of [...pending]) {
        const { job } = await api("/api/dashboard/job_status/", { job_id: id });
        if (job.status === "failed") throw new Error(`job ${id} failed: ${job.error}`);
        if (job.status === "done") pending.delete(id);
      }
      if (pending.size > 0) await sleep(100);
    }
    return performance.now();
  };

  // ---- 1. 1,000 schedules, 50 due ----------------------------------------------------------
  const dueCron = "0 3 * * *";
  const created = await createMany("/api/create_report_schedule/", (i) => ({
    dashboard_embed_id: "sales-overview",
    provided_id: "globex",
    cron: i < 50 ? dueCron : "30 4 1 1 *",
    recipients: [`bench-${i}@globex.example`],
  }));
  const dueAt = Date.parse(created[0].schedule.next_run_at);
  const idle = [];
  for (let i = 0; i < 5; i++) idle.push(await fire(dueAt - (i + 1) * 60_000)); // the same 1,000 schedules, none due yet
  const busy = await fire(dueAt);
  if (busy.log?.due !== 50 || busy.log.claimed !== 50) throw new Error(`unexpected tick: ${JSON.stringify(busy.log)}`);
  const runJobs = [];
  for (const { schedule } of created.slice(0, 50))
    runJobs.push(...(await api("/api/get_report_schedule/", { id: schedule.id })).runs[0].job_ids);
  await waitForJobs(runJobs); // let the 50 e-mails go out before measuring latency

  // ---- 2. 20-customer group-tag run -------------------------------------------------------
  const tag = "bench-monthly";
  await api("/api/create_group_tag/", { name: tag });
  for (let i = 1; i <= 20; i++) {
    await api("/api/create_customer/", {
      provided_id: `bench-c${i}`,
      name: `Bench ${i}`,
      emails: [`owner@bench-c${i}.example`],
      group_tags: [tag],
      mapping: { 1: "1" },
    });
  }
  // Floor: the same 20 reports requested at once, to the last e-mail.
  const floorStart = performance.now();
  const floorJobs = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      api("/api/dashboard/report", {
        provided_id: `bench-c${i + 1}`,
        dashboard_embed_id: "sales-overview",
        email: `owner@bench-c${i + 1}.example`,
      }),
    ),
  );
  const floorMs = (await waitForJobs(floorJobs.map((j) => j.job_id))) - floorStart;

  // The schedule fires at the next minute that is at least 20 s away, by the real clock.
  const slot = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
  const { schedule } = await api("/api/create_report_schedule/", {
    dashboard_embed_id: "sales-overview",
    group_tag: tag,
    cron: `${slot.getUTCMinutes()} ${slot.getUTCHours()} * * *`,
  });
  if (Date.parse(schedule.next_run_at) !== slot.getTime())
    throw new Error(`next_run_at ${schedule.next_run_at} is not ${slot.toISOString()}`);
  let run;
  for (;;) {
    const { runs } = await api("/api/get_report_schedule/", { id: schedule.id });
    run = runs[0];
    if (run?.status === "done") break;
    if (run?.status === "failed" || run?.status === "partial") throw new Error(JSON.stringify(run));
    if (Date.now() > slot.getTime() + 180_000) throw new Error("the scheduled run did not finish");
    await sleep(100);
  }
  const lastMail = Date.now();
  const slotToLastMail = lastMail - slot.getTime();
  if (run.job_ids.length !== 20) throw new Error(`expected 20 jobs, got ${run.job_ids.length}`);

  const perTickTrips = busy.log.round_trips;
  const idleTrips = median(idle.map((t) => t.log.round_trips));
  const idleWall = median(idle.map((t) => t.wall));
  console.log(`
Scheduled reports, local runtime (npm start), sales-overview dashboard
  Tick with 1,000 schedules, 50 due (50 claims, 50 report jobs started):
    handler ${busy.log.ms} ms (HTTP-triggered wall ${busy.wall.toFixed(0)} ms), D1 round trips ${perTickTrips}
  Floor: idle tick over the same 1,000 schedules (none due), median of ${idle.length}:
    wall ${idleWall.toFixed(0)} ms, D1 round trips ${idleTrips}
    ratio ${ratio(busy.wall, idleWall, 1)}× wall, ${ratio(perTickTrips, idleTrips, 0)}× round trips; per due schedule ${((busy.wall - idleWall) / 50).toFixed(1)} ms, ${((perTickTrips - idleTrips) / 50).toFixed(2)} round trips
  20-customer group-tag run (real clock, npm start's every-minute trigger):
    slot ${slot.toISOString()} → last e-mail ${slotToLastMail} ms (20 jobs, ${run.skipped} skipped)
  Floor: the same 20 reports requested at once via /api/dashboard/report → last e-mail ${floorMs.toFixed(0)} ms
    ratio ${ratio(slotToLastMail, floorMs)}`);
} finally {
  await server.stop();
}
process.exit(0);

import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createDatabase, RoundTripCounter } from "../../src/db/client";
import { deliveryEffects } from "../../src/delivery/run/effects";
import { capture } from "../../src/delivery/run/capture-station";
import { JOB_STATUSES, type JobStatus } from "../../src/db/job-vocabulary";
import { jobs } from "../../src/db/schema";
import { FAILURE_REASONS, JobFailure, TRANSITIONS, TransitionNotAllowed, transition } from "../../src/delivery/job-state";
import { runJob } from "../../src/delivery/run/job";
import { STUCK_AFTER_SECONDS, sweepStuckJobs } from "../../src/delivery/sweep";
import { errorPage } from "../../src/http/pages";
import {
  age,
  bindings,
  call,
  createCustomer,
  dashboard,
  deliverByHand,
  deliverySetup,
  jobRow,
  kpi,
  sentMails,
  unique,
  unqueuedJob,
  waitForJob,
} from "../helpers/delivery";

let ctx: Awaited<ReturnType<typeof deliverySetup>>;
const db = () => createDatabase(bindings.DB);
beforeAll(async () => {
  ctx = await deliverySetup();
});

const job = (email: string | null = null, status = "queued") => unqueuedJob(ctx.customer.provided_id, ctx.embedId, email, status);

describe("the job state machine", () => {
  const pairs = JOB_STATUSES.flatMap((from) => JOB_STATUSES.map((to) => [from, to] as [JobStatus, JobStatus]));
  const allowed = pairs.filter(([from, to]) => TRANSITIONS[from].includes(to));
  const refused = pairs.filter(([from, to]) => !TRANSITIONS[from].includes(to));

  it("allows exactly these moves", () => {
    expect(allowed.map(([from, to]) => `${from}→${to}`)).toEqual([
      "queued→queued",
      "queued→rendering",
      "queued→failed",
      "rendering→queued",
      "rendering→rendering",
      "rendering→sending",
      "rendering→done",
      "rendering→failed",
      "sending→queued",
      "sending→done",
      "sending→failed",
    ]);
  });

  it.each(allowed)("moves %s → %s when the job is there", async (from, to) => {
    const id = await job(null, from);
    const [row] = await transition(db(), id, [from], to);
    expect(row).toMatchObject({ id, status: to });
    expect((await jobRow(id))!.status).toBe(to);
  });

  it.each(allowed)("does not move %s → %s when the job is elsewhere (compare-and-set)", async (from, to) => {
    for (const actual of JOB_STATUSES.filter((s) => s !== from)) {
      const id = await job(null, actual);
      expect(await transition(db(), id, [from], to)).toEqual([]);
      expect((await jobRow(id))!.status).toBe(actual);
    }
  });

  it.each(refused)("refuses %s → %s before touching the database", async (from, to) => {
    const id = await job(null, from);
    expect(() => transition(db(), id, [from], to)).toThrow(TransitionNotAllowed);
    expect((await jobRow(id))!.status).toBe(from);
  });
});

describe("the hot path", () => {
  // Before the state machine: download 3 (start, render, file), e-mail 5 (+ claim, sent).
  it.each([
    ["a download job", 3, null],
    ["an e-mailed screenshot", 4, "trips@alpha.example"],
  ] as const)("%s takes %i D1 round trips (start, render, [claim,] finish)", async (_name, trips, email) => {
    const id = await job(email);
    const counter = new RoundTripCounter();
    const done = await runJob(createDatabase(bindings.DB, counter), env as never, deliveryEffects(env as never), { jobId: id }, 1);
    expect(done).toMatchObject({ id, status: "done" });
    expect(counter.count).toBe(trips);
  });

  // An e-mail that draws no dashboard page reads the view it wears with the start (before: a round trip of its own).
  const runCounted = async (id: string, attempt: number) => {
    const [row] = await db().select().from(jobs).where(eq(jobs.id, id));
    const page = {
      customerId: row.customerId as number,
      target: { kind: "dashboard" as const, embedId: ctx.embedId },
      request: row.request,
    };
    const counter = new RoundTripCounter();
    const done = await runJob(
      createDatabase(bindings.DB, counter),
      env as never,
      deliveryEffects(env as never),
      { jobId: id, page },
      attempt,
    );
    expect(done).toMatchObject({ id, status: "done" });
    return counter.count;
  };

  it("an e-mailed workbook takes 4 D1 round trips (start with the e-mail's view, the panels' reads, claim, finish; before: 5)", async () => {
    const id = await unqueuedJob(ctx.customer.provided_id, ctx.embedId, "xlsx-trips@alpha.example", "queued", {
      exportType: "xlsx",
      fileName: "manual.xlsx",
    });
    expect(await runCounted(id, 1)).toBe(4);
    expect(await sentMails(id)).toHaveLength(1);
  });

  // The page named in the message is read while the start runs, before the row says the file is stored.
  it("a retry that finds its file stored takes 4 D1 round trips (start with the e-mail's view, the early render's read, claim, finish; before: 5)", async () => {
    const id = await job("stored-trips@alpha.example");
    const key = `jobs/${id}/manual.png`;
    await bindings.FILES.put(key, new Uint8Array([137, 80, 78, 71]), { httpMetadata: { contentType: "image/png" } });
    await bindings.DB.prepare("UPDATE jobs SET file_key = ?, content_type = 'image/png', attempts = 1 WHERE id = ?").bind(key, id).run();
    expect(await runCounted(id, 2)).toBe(4);
    expect(await sentMails(id)).toHaveLength(1);
  });
});

describe("at most one e-mail per job, never silently lost", () => {
  it("sends once when two consumers race on one message", async () => {
    const id = await job("race@alpha.example");
    await Promise.all([deliverByHand(id, 1), deliverByHand(id, 1)]);
    expect(await sentMails(id)).toHaveLength(1);
    expect((await jobRow(id))!.status).toBe("done");
  });

  it("retries a send that is known to have failed, then sends once", async () => {
    const id = await job("retry-send@alpha.example");
    await bindings.LINKS.put("fault:send", "1");
    const first = await deliverByHand(id, 1);
    expect(first.retryMessages).toHaveLength(1);
    expect(await jobRow(id)).toMatchObject({ status: "queued", error: FAILURE_REASONS.send_failed });
    expect(await sentMails(id)).toHaveLength(0);
    await deliverByHand(id, 2);
    expect(await jobRow(id)).toMatchObject({ status: "done", error: null });
    expect(await sentMails(id)).toHaveLength(1);
  });

  it("records a send once the recording works again on the second try", async () => {
    const id = await job("record-later@alpha.example");
    await bindings.LINKS.put("fault:after_send", "1");
    await deliverByHand(id, 1);
    expect((await jobRow(id))!.status).toBe("done");
    expect(await sentMails(id)).toHaveLength(1);
  });

  it("never sends a second e-mail when recording the send fails; the sweep reports the outcome as unknown", async () => {
    const id = await job("unrecorded@alpha.example");
    await bindings.LINKS.put("fault:after_send", "2");
    const first = await deliverByHand(id, 1);
    expect(first.explicitAcks).toHaveLength(1);
    expect((await jobRow(id))!.status).toBe("sending");
    // The queue delivers the message again: the claim is taken, nothing is sent.
    await deliverByHand(id, 2);
    expect(await sentMails(id)).toHaveLength(1);
    await age(id, STUCK_AFTER_SECONDS + 1);
    const swept = await sweepStuckJobs(db(), env as never);
    expect(swept.ended.map((j) => j.id)).toContain(id);
    expect(await jobRow(id)).toMatchObject({ status: "failed", error: "delivery outcome unknown" });
    expect(await sentMails(id)).toHaveLength(1);
  });

  it("a consumer killed between claim and send: the job ends failed 'delivery outcome unknown' after the bound, no e-mail twice", async () => {
    const id = await job("killed@alpha.example");
    // What a consumer leaves behind when it dies right after claiming the e-mail.
    await bindings.DB.prepare("UPDATE jobs SET status = 'sending', email_claimed_at = updated_at, attempts = 1 WHERE id = ?")
      .bind(id)
      .run();
    await deliverByHand(id, 2); // the queue's redelivery
    expect(await sentMails(id)).toHaveLength(0);
    // Within the bound the sweep leaves it alone …
    await sweepStuckJobs(db(), env as never);
    expect((await jobRow(id))!.status).toBe("sending");
    // … beyond it the job ends failed, and is never sent.
    await age(id, STUCK_AFTER_SECONDS + 1);
    await sweepStuckJobs(db(), env as never);
    expect(await jobRow(id)).toMatchObject({ status: "failed", error: "delivery outcome unknown" });
    await deliverByHand(id, 3);
    expect(await sentMails(id)).toHaveLength(0);
  });

  it("a job stuck in rendering beyond the bound is queued again and finishes (real queue)", async () => {
    const id = await job("stuck-render@alpha.example", "rendering");
    await bindings.DB.prepare("UPDATE jobs SET attempts = 1 WHERE id = ?").bind(id).run();
    await age(id, STUCK_AFTER_SECONDS + 1);
    const swept = await sweepStuckJobs(db(), env as never);
    expect(swept.requeued.map((j) => j.id)).toContain(id);
    const done = await waitForJob(ctx.read, id, (s) => s === "done" || s === "failed", 30_000);
    expect(done).toMatchObject({ status: "done", attempts: 2 });
    expect(await sentMails(id)).toHaveLength(1);
  }, 45_000);

  it("the every-minute Cron Trigger sweeps too, so a stuck job is found without any queue traffic", async () => {
    const { createScheduledController } = await import("cloudflare:test");
    const { default: worker } = await import("../../src/index");
    const id = await job("cron@alpha.example", "sending");
    await age(id, STUCK_AFTER_SECONDS + 1);
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "* * * * *" }), env as never);
    expect(await jobRow(id)).toMatchObject({ status: "failed", error: "delivery outcome unknown" });
    expect(await sentMails(id)).toHaveLength(0);
  });

  it("a job whose message was lost (queued beyond the bound) is enqueued again and finishes (real queue)", async () => {
    const id = await job("lost-message@alpha.example");
    await age(id, STUCK_AFTER_SECONDS + 1);
    const swept = await sweepStuckJobs(db(), env as never);
    expect(swept.requeued.map((j) => j.id)).toContain(id);
    await waitForJob(ctx.read, id, (s) => s === "done", 30_000);
    expect(await sentMails(id)).toHaveLength(1);
  }, 45_000);

  it("a job stuck in rendering with every attempt used ends failed", async () => {
    const id = await job(null, "rendering");
    await bindings.DB.prepare("UPDATE jobs SET attempts = 3 WHERE id = ?").bind(id).run();
    await age(id, STUCK_AFTER_SECONDS + 1);
    await sweepStuckJobs(db(), env as never);
    expect(await jobRow(id)).toMatchObject({ status: "failed", error: FAILURE_REASONS.render_failed });
  });
});

describe("no blank or error capture is delivered", () => {
  it("refuses to capture an error page (not a dashboard)", async () => {
    const failure = await capture(bindings as never, errorPage("Not found", "This dashboard does not exist.", 404), {
      width: 800,
      scale: 1,
      format: "png",
    }).catch((e) => e);
    expect(failure).toBeInstanceOf(JobFailure);
    expect(failure).toMatchObject({ reason: "not_a_dashboard", final: true });
  });

  it("refuses a dashboard that never marks itself complete, within the wait's bound (incomplete_capture, retried)", async () => {
    const html = `<!doctype html><body><main class="dashboard"><section class="panel">…</section></main></body>`;
    const started = Date.now();
    const failure = await capture(bindings as never, html, { width: 800, scale: 1, format: "png", timeoutMs: 500 }).catch((e) => e);
    expect(failure).toBeInstanceOf(JobFailure);
    expect(failure).toMatchObject({ reason: "incomplete_capture", final: false });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("refuses an error page even if it claims to be complete", async () => {
    const html = `<!doctype html><body data-render-complete="true"><h1>Something went wrong</h1></body>`;
    const failure = await capture(bindings as never, html, { width: 800, scale: 1, format: "png" }).catch((e) => e);
    expect(failure).toMatchObject({ reason: "not_a_dashboard" });
  });

  it("fails a job whose every data panel failed, with a reason and no e-mail", async () => {
    const embedId = await dashboard(
      {
        title: "Broken",
        panels: [kpi("a", ctx.schema, "SELECT value FROM no_such_table"), kpi("b", ctx.schema, "SELECT x FROM no_such_table_either", 3)],
      },
      ["production"],
    );
    const id = await unqueuedJob(ctx.customer.provided_id, embedId, "broken@alpha.example");
    for (const attempt of [1, 2, 3]) await deliverByHand(id, attempt);
    expect(await jobRow(id)).toMatchObject({ status: "failed", attempts: 3, error: "Every data panel of the dashboard failed to load." });
    expect(await sentMails(id)).toHaveLength(0);
  });

  it("still delivers a dashboard where only some panels failed", async () => {
    const embedId = await dashboard(
      { title: "Half", panels: [kpi("ok", ctx.schema, "SELECT 1 AS value"), kpi("bad", ctx.schema, "SELECT x FROM no_such_table", 3)] },
      ["production"],
    );
    const id = await unqueuedJob(ctx.customer.provided_id, embedId, "half@alpha.example");
    await deliverByHand(id, 1);
    expect((await jobRow(id))!.status).toBe("done");
    expect(await sentMails(id)).toHaveLength(1);
  });

  it("fails at once, with a reason, a job whose customer was deleted between request and render", async () => {
    const doomed = await createCustomer(ctx.write, { provided_id: unique("gone"), mapping: { [ctx.schema]: ctx.demo } });
    const id = await unqueuedJob(doomed.provided_id, ctx.embedId, "gone@alpha.example");
    const deleted = await call("DELETE", "/api/delete_customer/", { token: ctx.write, body: { current_token: doomed.token } });
    expect(deleted.status).toBe(200);
    const result = await deliverByHand(id, 1);
    expect(result.retryMessages).toHaveLength(0);
    expect(await jobRow(id)).toMatchObject({ status: "failed", customer_id: null, error: "The customer was deleted before the job ran." });
    const status = await call("POST", "/api/dashboard/job_status/", { token: ctx.read, body: { job_id: id } });
    expect(status.body.job).toMatchObject({ status: "failed", error: "The customer was deleted before the job ran." });
    expect(await sentMails(id)).toHaveLength(0);
  });

  it("fails at once, with a reason, a job whose dashboard was removed before it ran", async () => {
    const embedId = await dashboard({ title: "Short-lived", panels: [kpi("k", ctx.schema, "SELECT 1 AS value")] }, ["production"]);
    const id = await unqueuedJob(ctx.customer.provided_id, embedId, "dashboard-gone@alpha.example");
    // There is no API to delete a dashboard; an operator removing it is what this stands for.
    await bindings.DB.prepare("DELETE FROM dashboards WHERE embed_id = ?").bind(embedId).run();
    const result = await deliverByHand(id, 1);
    expect(result.retryMessages).toHaveLength(0);
    expect(await jobRow(id)).toMatchObject({ status: "failed", error: "The dashboard was deleted before the job ran." });
    expect(await sentMails(id)).toHaveLength(0);
  });

  it("gives clients a short stable reason and logs the details with the job id", async () => {
    const warn = vi.spyOn(console, "warn");
    const id = await job(null);
    await bindings.LINKS.put("fault:browser", "1");
    await deliverByHand(id, 1);
    const status = await call("POST", "/api/dashboard/job_status/", { token: ctx.read, body: { job_id: id } });
    expect(status.body.job.error).toBe("The dashboard could not be captured.");
    const line = warn.mock.calls.map((c) => String(c[0])).find((l) => l.includes(id));
    expect(JSON.parse(line!)).toMatchObject({
      message: "delivery attempt failed",
      job_id: id,
      reason: "render_failed",
      detail: "injected browser failure",
    });
    warn.mockRestore();
  });
});

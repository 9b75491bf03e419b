import { beforeAll, describe, expect, it } from "vitest";
import { retryDelaySeconds } from "../../src/delivery/attempt";
import { BACKSTOP_DELAY_SECONDS, FIRST_ATTEMPT_LIFETIME_SECONDS } from "../../src/delivery/service";
import { age, bindings, call, deliverByHand, deliverySetup, jobRow, sentMails, unqueuedJob, waitForJob } from "./helpers";

let ctx: Awaited<ReturnType<typeof deliverySetup>>;
beforeAll(async () => {
  ctx = await deliverySetup();
});

/** A job as a first attempt left it: `status` with `attempts` used, last touched `ageSeconds` ago. */
async function jobLeftAt(status: string, attempts: number, ageSeconds = 0, email: string | null = null): Promise<string> {
  const id = await unqueuedJob(ctx.customer.provided_id, ctx.embedId, email, status);
  await bindings.DB.prepare("UPDATE jobs SET attempts = ? WHERE id = ?").bind(attempts, id).run();
  if (ageSeconds > 0) await age(id, ageSeconds);
  return id;
}

/** The backstop message the API sends with every job, delivered now (as if its delay had passed). */
const backstop = (jobId: string) => deliverByHand(jobId, 1, 1, { jobId, after: 1, backstop: true });

describe("the first attempt runs in the API call", () => {
  it("delivers a requested screenshot long before the backstop is due (one attempt, no queue hand-over)", async () => {
    const started = Date.now();
    const res = await call("POST", "/api/dashboard/screenshot", { token: ctx.write, body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId } });
    expect(res.status).toBe(200);
    // Born claimed by the attempt the call runs: never `queued`, already on attempt 1.
    const atOnce = await jobRow(res.body.job_id);
    expect(atOnce!.status).not.toBe("queued");
    expect(atOnce!.attempts).toBe(1);
    const job = await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed", 20_000);
    expect(job).toMatchObject({ status: "done", attempts: 1, error: null });
    expect(Date.now() - started).toBeLessThan(BACKSTOP_DELAY_SECONDS * 1000);
  });

  it("sends a requested report once; its backstop arriving afterwards sends nothing more", async () => {
    const res = await call("POST", "/api/dashboard/report", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, email: "first-attempt@alpha.example" },
    });
    expect(res.status).toBe(200);
    await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed", 20_000);
    const result = await backstop(res.body.job_id);
    expect(result.explicitAcks).toHaveLength(1);
    expect(await sentMails(res.body.job_id)).toHaveLength(1);
    expect(await jobRow(res.body.job_id)).toMatchObject({ status: "done", attempts: 1 });
  });

  it("waits out the first attempt's lifetime before the backstop arrives", () => {
    expect(BACKSTOP_DELAY_SECONDS).toBeGreaterThan(FIRST_ATTEMPT_LIFETIME_SECONDS);
    expect(retryDelaySeconds(1)).toBeLessThan(BACKSTOP_DELAY_SECONDS); // a failed first attempt's retry comes first
    expect([1, 2].map(retryDelaySeconds)).toEqual([5, 10]);
  });
});

describe("the backstop runs a job only when its first attempt did not", () => {
  it("runs a job whose first attempt never started (queued, no attempt) as attempt 2", async () => {
    const id = await jobLeftAt("queued", 0);
    const result = await backstop(id);
    expect(result.explicitAcks).toHaveLength(1);
    expect(await jobRow(id)).toMatchObject({ status: "done", attempts: 2 });
  });

  it(`takes over a first attempt that died (rendering, untouched for over ${FIRST_ATTEMPT_LIFETIME_SECONDS} s)`, async () => {
    const id = await jobLeftAt("rendering", 1, FIRST_ATTEMPT_LIFETIME_SECONDS + 1);
    await backstop(id);
    expect(await jobRow(id)).toMatchObject({ status: "done", attempts: 2 });
  });

  it("runs a job whose retry message was lost (queued after one failed attempt)", async () => {
    const id = await jobLeftAt("queued", 1);
    await backstop(id);
    expect(await jobRow(id)).toMatchObject({ status: "done", attempts: 2 });
  });

  it("leaves a live attempt alone (rendering, touched within the lifetime): no second capture", async () => {
    const id = await jobLeftAt("rendering", 1, FIRST_ATTEMPT_LIFETIME_SECONDS - 5);
    const result = await backstop(id);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toHaveLength(0);
    expect(await jobRow(id)).toMatchObject({ status: "rendering", attempts: 1 });
  });

  it("leaves a job that its retries own alone (queued after two attempts)", async () => {
    const id = await jobLeftAt("queued", 2);
    await backstop(id);
    expect(await jobRow(id)).toMatchObject({ status: "queued", attempts: 2 });
  });

  it("never touches a job whose e-mail may have left (sending), however old", async () => {
    const id = await jobLeftAt("sending", 1, 3600, "backstop-sending@alpha.example");
    await backstop(id);
    expect(await jobRow(id)).toMatchObject({ status: "sending", attempts: 1 });
    expect(await sentMails(id)).toHaveLength(0);
  });

  it("does nothing to a job that ended (done or failed)", async () => {
    for (const status of ["done", "failed"]) {
      const id = await jobLeftAt(status, 1, 3600);
      await backstop(id);
      expect(await jobRow(id)).toMatchObject({ status, attempts: 1 });
    }
  });
});

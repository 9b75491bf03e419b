import { beforeAll, describe, expect, it } from "vitest";
import { FIRST_ATTEMPT_LIFETIME_SECONDS } from "../../../src/delivery/run/job";
import {
  age,
  bindings,
  call,
  callWithEnv,
  deliverByHand,
  deliverySetup,
  jobRow,
  sentMails,
  unique,
  unqueuedJob,
  waitForJob,
} from "../../helpers/delivery";

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

/** `binding` with some members replaced; everything else is the real binding's. */
function withReplaced<T extends object>(binding: T, replaced: Record<string, unknown>): T {
  return new Proxy(binding, {
    get(target, name) {
      if (typeof name === "string" && name in replaced) return replaced[name];
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const outage = (what: string) => () => Promise.reject(new Error(`injected ${what} outage`));

/** The KV namespace, refusing to store share links. */
function kvRefusingShareLinks(kv: KVNamespace): KVNamespace {
  const put = kv.put.bind(kv) as (key: string, ...rest: unknown[]) => Promise<void>;
  return withReplaced(kv, { put: (key: string, ...rest: unknown[]) => (key.startsWith("share:") ? outage("KV")() : put(key, ...rest)) });
}

/** The database, refusing every update of a job (as if it became unreachable after the job was created). */
function d1RefusingJobUpdates(db: D1Database): D1Database {
  const refused = /^\s*update\s+["`]?jobs["`]?\s/i;
  const refusing = new WeakSet<object>();
  const statementOf = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
    if (!refused.test(sql)) return statement;
    const stand = {
      bind: () => stand,
      run: outage("D1"),
      all: outage("D1"),
      first: outage("D1"),
      raw: outage("D1"),
    } as unknown as D1PreparedStatement;
    refusing.add(stand);
    return stand;
  };
  const sessionOf = <T extends D1Database | D1DatabaseSession>(source: T): T =>
    withReplaced(source, {
      prepare: (sql: string) => statementOf(source.prepare(sql), sql),
      batch: (statements: D1PreparedStatement[]) => (statements.some((s) => refusing.has(s)) ? outage("D1")() : source.batch(statements)),
      withSession: (constraint?: string) => sessionOf((source as D1Database).withSession(constraint)),
    });
  return sessionOf(db);
}

describe("a job whose start or first attempt meets an outage is not lost", () => {
  it("fails a report at once when its share link cannot be stored: 500, job failed 'could not be started', no e-mail", async () => {
    const email = `${unique("share-outage")}@alpha.example`;
    const res = await callWithEnv({ LINKS: kvRefusingShareLinks(bindings.LINKS) }, "POST", "/api/dashboard/report", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, email },
    });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ success: 0, error: { code: "internal_error" } });
    const jobs = await bindings.DB.prepare("SELECT id, status, attempts, error FROM jobs WHERE request LIKE ?")
      .bind(`%${email}%`)
      .all<{ id: string; status: string; error: string }>();
    expect(jobs.results).toEqual([expect.objectContaining({ status: "failed", error: "The job could not be started." })]);
    // The backstop, had it been sent, finds an ended job: nothing is ever sent for it.
    await backstop(jobs.results[0].id);
    expect(await sentMails(jobs.results[0].id)).toHaveLength(0);
    expect(await jobRow(jobs.results[0].id)).toMatchObject({ status: "failed" });
  });

  it("leaves a first attempt whose failure cannot be recorded to the backstop, which completes it as attempt 2", async () => {
    await bindings.LINKS.put("fault:browser", "1");
    const res = await callWithEnv({ DB: d1RefusingJobUpdates(bindings.DB) }, "POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId },
    });
    expect(res.status).toBe(200);
    const jobId = res.body.job_id;
    // The capture failed and the database refused to record it: the job is left as a dead attempt leaves it.
    expect(await bindings.LINKS.get("fault:browser")).toBe("0");
    expect(await jobRow(jobId)).toMatchObject({ status: "rendering", attempts: 1, error: null });
    await age(jobId, FIRST_ATTEMPT_LIFETIME_SECONDS + 1);
    const result = await backstop(jobId);
    expect(result.explicitAcks).toHaveLength(1);
    expect(await jobRow(jobId)).toMatchObject({ status: "done", attempts: 2, error: null });
  });
});

/** The backstop message the API sends with every job, delivered now (as if its delay had passed). */
const backstop = (jobId: string) => deliverByHand(jobId, 1, 1, { jobId, after: 1, backstop: true });

describe("a failed attempt is recorded at once and retried on the backoff", () => {
  it("records a first attempt whose capture throws as failed (queued, with its reason) at once, and retries it 5 s later (real queue)", async () => {
    await bindings.LINKS.put("fault:browser", "1");
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId },
    });
    expect(res.status).toBe(200);
    const jobId = res.body.job_id;
    const created = Date.now();
    const row = () =>
      bindings.DB.prepare("SELECT status, attempts, error, updated_at FROM jobs WHERE id = ?")
        .bind(jobId)
        .first<{ status: string; attempts: number; error: string | null; updated_at: string }>();
    let failed = await row();
    while (failed!.status === "rendering" && Date.now() - created < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      failed = await row();
    }
    // Not left rendering: the attempt itself recorded its failure, within moments.
    expect(failed).toMatchObject({ status: "queued", attempts: 1, error: "The dashboard could not be captured." });
    expect(Date.now() - created).toBeLessThan(3_000);
    const done = await waitForJob(ctx.read, jobId, (s) => s === "done" || s === "failed", 30_000);
    expect(done).toMatchObject({ status: "done", attempts: 2, error: null });
    // The second attempt came on the backoff: 5 s after the failure was recorded (and not much later).
    const retriedAfter = Date.parse(done.updated_at) - Date.parse(failed!.updated_at);
    expect(retriedAfter).toBeGreaterThanOrEqual(5_000);
    expect(retriedAfter).toBeLessThan(12_000);
  }, 45_000);
});

describe("the first attempt runs in the API call", () => {
  it("starts a requested screenshot in the call: born claimed (never queued, attempt 1 at once), done after that one attempt", async () => {
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId },
    });
    expect(res.status).toBe(200);
    const atOnce = await jobRow(res.body.job_id);
    expect(atOnce!.status).not.toBe("queued");
    expect(atOnce!.attempts).toBe(1);
    // As the contract's job_status shows it to the vendor.
    const status = await call("POST", "/api/dashboard/job_status/", { token: ctx.read, body: { job_id: res.body.job_id } });
    expect(["rendering", "done"]).toContain(status.body.job.status);
    expect(status.body.job.attempts).toBe(1);
    const job = await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed", 20_000);
    expect(job).toMatchObject({ status: "done", attempts: 1, error: null });
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
});

describe("the backstop runs a job only when its first attempt died", () => {
  it(`takes over a first attempt that died (rendering, untouched for over ${FIRST_ATTEMPT_LIFETIME_SECONDS} s) as attempt 2`, async () => {
    const id = await jobLeftAt("rendering", 1, FIRST_ATTEMPT_LIFETIME_SECONDS + 1);
    const result = await backstop(id);
    expect(result.explicitAcks).toHaveLength(1);
    expect(await jobRow(id)).toMatchObject({ status: "done", attempts: 2 });
  });

  it("queues its own failed attempt's retry as a plain message, which then claims the job (a backstop message would not)", async () => {
    const id = await jobLeftAt("rendering", 1, FIRST_ATTEMPT_LIFETIME_SECONDS + 1);
    await bindings.LINKS.put("fault:browser", "1");
    const failed = await backstop(id);
    expect(failed.explicitAcks).toHaveLength(1);
    expect(failed.retryMessages).toHaveLength(0);
    expect(await jobRow(id)).toMatchObject({ status: "queued", attempts: 2 });
    // Redelivered, the backstop leaves the queued job to its retry message …
    await backstop(id);
    expect(await jobRow(id)).toMatchObject({ status: "queued", attempts: 2 });
    // … which is the plain message queued above: attempt 3.
    await deliverByHand(id, 1, 1, { jobId: id, after: 2 });
    expect(await jobRow(id)).toMatchObject({ status: "done", attempts: 3 });
  });

  it("leaves a live attempt alone (rendering, touched within the lifetime): no second capture", async () => {
    const id = await jobLeftAt("rendering", 1, FIRST_ATTEMPT_LIFETIME_SECONDS - 5);
    const result = await backstop(id);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toHaveLength(0);
    expect(await jobRow(id)).toMatchObject({ status: "rendering", attempts: 1 });
  });

  it("leaves a queued job to its retry message (a lost one is the stuck-job sweep's)", async () => {
    for (const attempts of [1, 2]) {
      const id = await jobLeftAt("queued", attempts, 60);
      await backstop(id);
      expect(await jobRow(id)).toMatchObject({ status: "queued", attempts });
    }
  });

  it("leaves a later attempt alone (rendering after two attempts), however old", async () => {
    const id = await jobLeftAt("rendering", 2, 3600);
    await backstop(id);
    expect(await jobRow(id)).toMatchObject({ status: "rendering", attempts: 2 });
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

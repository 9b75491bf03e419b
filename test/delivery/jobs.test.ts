import { beforeAll, describe, expect, it } from "vitest";
import {
  bindings,
  call,
  deliverByHand,
  giveDownloadLink,
  deliverySetup,
  jobCount,
  sentMails,
  unqueuedJob as newJob,
  waitForJob,
  workspace,
} from "../helpers/delivery";

let ctx: Awaited<ReturnType<typeof deliverySetup>>;
beforeAll(async () => {
  ctx = await deliverySetup();
});

/** A job row as the API creates it for the test customer, not enqueued: delivered by hand. */
const unqueuedJob = (email: string | null) => newJob(ctx.customer.provided_id, ctx.embedId, email);

describe("delivery jobs", () => {
  it("retries after a browser failure and then succeeds (real queue)", async () => {
    await bindings.LINKS.put("fault:browser", "1");
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId },
    });
    const failedOnce = await waitForJob(ctx.read, res.body.job_id, (s) => s === "queued" || s === "done", 30_000);
    const done =
      failedOnce.status === "done"
        ? failedOnce
        : await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed", 60_000);
    expect(done).toMatchObject({ status: "done", attempts: 2, error: null });
  }, 90_000);

  it("records the reason and fails for good on the third failed attempt; the message goes on to the dead-letter queue", async () => {
    const jobId = await unqueuedJob(null);
    await bindings.LINKS.put("fault:browser", "3");
    for (const attempt of [1, 2]) {
      const result = await deliverByHand(jobId, attempt);
      expect(result.retryMessages).toHaveLength(1);
      const job = await bindings.DB.prepare("SELECT status, attempts, error FROM jobs WHERE id = ?").bind(jobId).first();
      expect(job).toMatchObject({ status: "queued", attempts: attempt, error: "The dashboard could not be captured." });
    }
    const last = await deliverByHand(jobId, 3);
    // retry() on the last attempt hands the message to the dead-letter queue (max_retries = 2).
    expect(last.retryMessages).toHaveLength(1);
    const job = await call("POST", "/api/dashboard/job_status/", { token: ctx.read, body: { job_id: jobId } });
    expect(job.body.job).toMatchObject({ status: "failed", attempts: 3, error: "The dashboard could not be captured." });

    // A download link of a failed job answers 500 render_failed.
    const link = await giveDownloadLink(jobId);
    const download = await call("GET", new URL(link).pathname);
    expect(download.status).toBe(500);
    expect(download.body.error.code).toBe("render_failed");
  });

  it("sends the e-mail once when the same message is delivered twice", async () => {
    await bindings.LINKS.delete("fault:browser");
    const jobId = await unqueuedJob("twice@alpha.example");
    const first = await deliverByHand(jobId, 1, 2);
    expect(first.explicitAcks).toHaveLength(2);
    await deliverByHand(jobId, 2);
    expect(await sentMails(jobId)).toHaveLength(1);
    const job = await bindings.DB.prepare("SELECT status FROM jobs WHERE id = ?").bind(jobId).first<{ status: string }>();
    expect(job?.status).toBe("done");
  });

  it("keeps jobs of one access group invisible to another (404 job_not_found)", async () => {
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId },
    });
    const other = await workspace();
    const status = await call("POST", "/api/dashboard/job_status/", { token: other.read, body: { job_id: res.body.job_id } });
    expect(status.status).toBe(404);
    expect(status.body.error).toMatchObject({ code: "job_not_found", field: "job_id" });
    await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed");
  });
});

describe("validation happens before any job exists", () => {
  const screenshotCases: [string, Record<string, unknown>, number, string, string | undefined][] = [
    ["width 0", { width: 0 }, 400, "validation_error", "width"],
    ["width 4097", { width: 4097 }, 400, "validation_error", "width"],
    ["a fractional width", { width: 1.5 }, 400, "validation_error", "width"],
    ["a width that is not a number", { width: "wide" }, 400, "validation_error", "width"],
    ["an unknown export_type", { export_type: "gif" }, 400, "validation_error", "export_type"],
    ["an invalid e-mail", { email: "not-an-address" }, 400, "validation_error", "email"],
    ["variables that are not an object", { variables: [1, 2] }, 400, "validation_error", "variables"],
    ["a missing dashboard_embed_id", { dashboard_embed_id: undefined }, 400, "validation_error", "dashboard_embed_id"],
    ["an unknown customer", { provided_id: "nobody" }, 404, "customer_not_found", "provided_id"],
    ["an unknown dashboard", { dashboard_embed_id: "no-such-dashboard" }, 404, "dashboard_not_found", "dashboard_embed_id"],
  ];

  it.each(screenshotCases)("screenshot: rejects %s", async (_name, patch, status, code, field) => {
    const before = await jobCount();
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, ...patch },
    });
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, field });
    expect(await jobCount()).toBe(before);
  });

  it.each([
    ["a missing email", { email: undefined }, "email"],
    ["an invalid email", { email: "x@" }, "email"],
    ["a custom_url that is not http(s)", { custom_url: "javascript:alert(1)" }, "custom_url"],
  ])("report: rejects %s (400)", async (_name, patch, field) => {
    const before = await jobCount();
    const res = await call("POST", "/api/dashboard/report", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, email: "a@b.example", ...patch },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field });
    expect(await jobCount()).toBe(before);
  });

  it("refuses a dashboard without any version (422 no_dashboard_version) and a read token (403)", async () => {
    const { admin } = await import("../helpers/delivery");
    await admin("POST", "/admin/dashboards/", { embed_id: "versionless", name: "Versionless" });
    const before = await jobCount();
    const res = await call("POST", "/api/dashboard/report", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: "versionless", email: "a@b.example" },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("no_dashboard_version");
    const readOnly = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.read,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId },
    });
    expect(readOnly.status).toBe(403);
    expect(await jobCount()).toBe(before);
  });
});

import { describe, expect, it } from "vitest";
import { call, deliverySetup, jobCount, waitForJob } from "../helpers/delivery";

// This project runs with DELIVERY_LIMIT_PER_MINUTE=5 (vitest.config.mts).
describe("delivery rate limit (DELIVERY_LIMIT_PER_MINUTE=5)", () => {
  it("answers 429 with Retry-After after 5 screenshot/report calls a minute, and creates no job for it", async () => {
    const ctx = await deliverySetup();
    const probe = await call("GET", "/api/group_tags/", { token: ctx.write });
    const reset = Number(probe.headers.get("RateLimit-Reset"));
    if (reset < 15) await new Promise((resolve) => setTimeout(resolve, (reset + 1) * 1000));

    const body = { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId };
    const accepted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const path = i % 2 === 0 ? "/api/dashboard/screenshot" : "/api/dashboard/report";
      const res = await call("POST", path, { token: ctx.write, body: { ...body, email: "limits@alpha.example" } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      accepted.push(res.body.job_id);
    }
    const before = await jobCount();
    const refused = await call("POST", "/api/dashboard/screenshot", { token: ctx.write, body });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await jobCount()).toBe(before);

    // Other calls of the same token still pass: the delivery limit is separate from the general one.
    expect((await call("GET", "/api/group_tags/", { token: ctx.write })).status).toBe(200);
    for (const jobId of accepted) await waitForJob(ctx.read, jobId, (s) => s === "done" || s === "failed", 90_000);
  }, 120_000);

  it("does not count calls refused before a job exists: 20 × width 0 (400) then a valid screenshot → 200; its 429 describes the delivery limit", async () => {
    const ctx = await deliverySetup();
    const probe = await call("GET", "/api/group_tags/", { token: ctx.write });
    const reset = Number(probe.headers.get("RateLimit-Reset"));
    if (reset < 25) await new Promise((resolve) => setTimeout(resolve, (reset + 1) * 1000));

    const body = { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId };
    const before = await jobCount();
    for (let i = 0; i < 20; i++) {
      const refused = await call("POST", "/api/dashboard/screenshot", { token: ctx.write, body: { ...body, width: 0 } });
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "validation_error", field: "width" });
    }
    // So are an unknown dashboard (404) and an unknown theme (422).
    expect(
      (await call("POST", "/api/dashboard/screenshot", { token: ctx.write, body: { ...body, dashboard_embed_id: "nope" } })).status,
    ).toBe(404);
    expect(
      (await call("POST", "/api/dashboard/report", { token: ctx.write, body: { ...body, email: "a@alpha.example", theme: "Nope" } }))
        .status,
    ).toBe(422);
    expect(await jobCount()).toBe(before);

    const accepted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call("POST", "/api/dashboard/screenshot", { token: ctx.write, body });
      expect(res.status, `valid call ${i + 1}: ${JSON.stringify(res.body)}`).toBe(200);
      accepted.push(res.body.job_id);
    }
    // The sixth is over the delivery limit (5), well within the general one (40): the headers say which.
    const limited = await call("POST", "/api/dashboard/screenshot", { token: ctx.write, body });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("RateLimit-Limit")).toBe("5");
    expect(limited.headers.get("RateLimit-Remaining")).toBe("0");
    const resetIn = Number(limited.headers.get("RateLimit-Reset"));
    expect(resetIn).toBeGreaterThanOrEqual(1);
    expect(resetIn).toBeLessThanOrEqual(60);
    expect(limited.headers.get("Retry-After")).toBe(String(resetIn));
    // Control: a general call of the same token reports the general limit.
    expect((await call("GET", "/api/group_tags/", { token: ctx.write })).headers.get("RateLimit-Limit")).toBe("40");
    for (const jobId of accepted) await waitForJob(ctx.read, jobId, (s) => s === "done" || s === "failed", 90_000);
  }, 150_000);
});

import { describe, expect, it } from "vitest";
import { call, createCustomer, unique, workspace } from "../helpers/api";
import { dashboard, kpi, sources } from "../helpers/dashboards";

// This project runs with DELIVERY_LIMIT_PER_MINUTE=5 (vitest.config.mts).
describe("run_report_schedule and the delivery limit (DELIVERY_LIMIT_PER_MINUTE=5)", () => {
  it("counts each call once: the sixth call in a minute is 429 and starts no run", async () => {
    const { write, read } = await workspace();
    const { schema } = await sources();
    const embedId = await dashboard({ panels: [kpi("one", schema, "SELECT 1 AS value")] }, ["production"]);
    const customer = await createCustomer(write, { provided_id: unique("limited") }); // no e-mails: runs start no jobs
    const created = await call("POST", "/api/create_report_schedule/", {
      token: write,
      body: { dashboard_embed_id: embedId, provided_id: customer.provided_id, cron: "0 9 * * *" },
    });
    const id = created.body.schedule.id;
    const probe = await call("GET", "/api/report_schedules/", { token: read });
    const reset = Number(probe.headers.get("RateLimit-Reset"));
    if (reset < 15) await new Promise((resolve) => setTimeout(resolve, (reset + 1) * 1000));

    for (let i = 0; i < 5; i++) expect((await call("POST", "/api/run_report_schedule/", { token: write, body: { id } })).status).toBe(200);
    const refused = await call("POST", "/api/run_report_schedule/", { token: write, body: { id } });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    const runs = (await call("POST", "/api/get_report_schedule/", { token: read, body: { id } })).body.runs;
    expect(runs).toHaveLength(5);
    // Changing the schedule is not a delivery: it still passes.
    expect((await call("POST", "/api/update_report_schedule/", { token: write, body: { id, subject: "Still allowed" } })).status).toBe(200);
  }, 90_000);
});

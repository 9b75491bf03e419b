import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createCustomer, createTag, roundTrips, unique, workspace } from "../helpers/api";
import { dashboard, kpi, sources } from "../helpers/dashboards";

const db = (env as unknown as { DB: D1Database }).DB;
const post = (token: string, path: string, body: unknown) => call("POST", path, { token, body });

let ws: Awaited<ReturnType<typeof workspace>>;
let other: Awaited<ReturnType<typeof workspace>>;
let embedId: string;
let customer: { provided_id: string; token: string };
let tag: string;

beforeAll(async () => {
  ws = await workspace();
  other = await workspace();
  const { schema } = await sources();
  embedId = await dashboard({ panels: [kpi("total", schema, "SELECT 1 AS value")] }, ["production"]);
  tag = unique("monthly");
  await createTag(ws.write, tag);
  customer = await createCustomer(ws.write, { provided_id: unique("acme"), name: "Acme" });
});

const base = () => ({ dashboard_embed_id: embedId, provided_id: customer.provided_id, cron: "0 9 * * 1-5" });

async function create(body: Record<string, unknown>, token = ws.write) {
  const res = await post(token, "/api/create_report_schedule/", body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.schedule;
}

/** Every stored schedule and run: a refused request must leave both unchanged. */
async function snapshot() {
  const schedules = await db.prepare("SELECT * FROM report_schedules ORDER BY id").all();
  const runs = await db.prepare("SELECT * FROM report_schedule_runs ORDER BY id").all();
  return JSON.stringify([schedules.results, runs.results]);
}

describe("create_report_schedule", () => {
  it("creates a schedule for one customer with every default", async () => {
    const schedule = await create(base());
    expect(schedule).toEqual({
      id: expect.stringMatching(/^sch_[A-Za-z0-9]{20}$/),
      dashboard_embed_id: embedId,
      provided_id: customer.provided_id,
      group_tag: null,
      cron: "0 9 * * 1-5",
      timezone: "UTC",
      recipients: [],
      format: "report",
      pdf: null,
      subject: null,
      variables: null,
      paused: false,
      next_run_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T09:00:00Z$/),
      source: "api",
      theme: null,
      locale: null,
      environment: null,
      created_at: expect.any(String),
    });
    expect(Date.parse(schedule.next_run_at)).toBeGreaterThan(Date.now());
  });

  it("creates a group-tag schedule at 08:00 Berlin on the first of the month, with every field given", async () => {
    const schedule = await create({
      dashboard_embed_id: embedId,
      group_tag: tag,
      cron: "0 8 1 * *",
      timezone: "Europe/Berlin",
      recipients: ["boss@acme.example"],
      format: "pdf",
      subject: "Your month",
      variables: { since: "2026-01-01" },
      paused: false,
    });
    expect(schedule).toMatchObject({
      provided_id: null,
      group_tag: tag,
      timezone: "Europe/Berlin",
      recipients: ["boss@acme.example"],
      format: "pdf",
      subject: "Your month",
      variables: { since: "2026-01-01" },
    });
    // 08:00 Berlin is 07:00 UTC in winter and 06:00 UTC in summer.
    expect(schedule.next_run_at).toMatch(/^\d{4}-\d{2}-01T0[67]:00:00Z$/);
  });

  it("a paused schedule has no next_run_at", async () => {
    expect((await create({ ...base(), paused: true })).next_run_at).toBeNull();
  });

  it.each([
    [{ provided_id: undefined }, "provided_id"],
    [{ group_tag: "x" }, "provided_id"],
    [{ dashboard_embed_id: undefined }, "dashboard_embed_id"],
    [{ cron: undefined }, "cron"],
    [{ cron: "0 9 * *" }, "cron"],
    [{ cron: "61 9 * * *" }, "cron"],
    [{ cron: "0 9 * * MON" }, "cron"],
    [{ cron: "0 0 30 2 *" }, "cron"],
    [{ timezone: "Mars/Olympus" }, "timezone"],
    [{ timezone: "" }, "timezone"],
    [{ recipients: ["not-an-address"] }, "recipients.0"],
    [{ recipients: "a@b.example" }, "recipients"],
    [{ format: "gif" }, "format"],
    [{ subject: "" }, "subject"],
    [{ variables: [1] }, "variables"],
    [{ paused: "yes" }, "paused"],
  ])("refuses %j (400 validation_error) and stores nothing", async (change, field) => {
    const before = await snapshot();
    const res = await post(ws.write, "/api/create_report_schedule/", { ...base(), ...change });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field });
    expect(await snapshot()).toBe(before);
  });

  it("refuses an unknown customer, a customer of another access group, an unknown dashboard (404) and an unknown group tag (422)", async () => {
    const foreign = await createCustomer(other.write, { provided_id: unique("foreign") });
    const before = await snapshot();
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ provided_id: "nobody-here" }, 404, "customer_not_found", "provided_id"],
      [{ provided_id: foreign.provided_id }, 404, "customer_not_found", "provided_id"],
      [{ dashboard_embed_id: "no-such-dashboard" }, 404, "dashboard_not_found", "dashboard_embed_id"],
      [{ provided_id: undefined, group_tag: "no-such-tag" }, 422, "unknown_group_tag", "group_tag"],
    ];
    for (const [change, status, code, field] of cases) {
      const res = await post(ws.write, "/api/create_report_schedule/", { ...base(), ...change });
      expect(res.status, code).toBe(status);
      expect(res.body.error).toMatchObject({ code, field });
    }
    expect(await snapshot()).toBe(before);
  });

  it("reports the missing customer before the missing dashboard (both 404)", async () => {
    const res = await post(ws.write, "/api/create_report_schedule/", { ...base(), provided_id: "nobody", dashboard_embed_id: "nothing" });
    expect(res.body.error.code).toBe("customer_not_found");
  });
});

describe("reading schedules", () => {
  it("lists the access group's schedules oldest first and gets one with its runs, to read tokens too", async () => {
    const mine = await workspace();
    const c = await createCustomer(mine.write, { provided_id: unique("lister") });
    const first = await create({ ...base(), provided_id: c.provided_id }, mine.write);
    const second = await create({ ...base(), provided_id: c.provided_id, cron: "*/5 * * * *" }, mine.write);
    const list = await call("GET", "/api/report_schedules/", { token: mine.read });
    expect(list.status).toBe(200);
    expect(list.body.schedules.map((s: { id: string }) => s.id)).toEqual([first.id, second.id]);
    const got = await post(mine.read, "/api/get_report_schedule/", { id: second.id });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ success: 1, schedule: second, unsubscribed: [], runs: [] });
    expect((await call("GET", "/api/report_schedules", { token: mine.read })).status).toBe(200);
  });

  it("answers 404 schedule_not_found for an unknown id and 400 without one", async () => {
    expect((await post(ws.read, "/api/get_report_schedule/", { id: "sch_nope" })).body.error).toMatchObject({
      code: "schedule_not_found",
      field: "id",
    });
    expect((await post(ws.read, "/api/get_report_schedule/", {})).body.error).toMatchObject({ code: "validation_error", field: "id" });
  });

  it("needs an API token", async () => {
    expect((await call("GET", "/api/report_schedules/")).body.error.code).toBe("missing_api_token");
    expect((await call("GET", "/api/report_schedules/", { token: "wrong" })).body.error.code).toBe("invalid_api_token");
  });
});

describe("isolation between access groups", () => {
  it("a schedule of group B is 404 for group A everywhere, and not listed", async () => {
    const b = await createCustomer(other.write, { provided_id: unique("b-cust") });
    const theirs = await create({ ...base(), provided_id: b.provided_id }, other.write);
    const before = await snapshot();
    for (const path of [
      "/api/get_report_schedule/",
      "/api/update_report_schedule/",
      "/api/delete_report_schedule/",
      "/api/run_report_schedule/",
    ]) {
      const res = await post(ws.write, path, { id: theirs.id, paused: true });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe("schedule_not_found");
    }
    const list = await call("GET", "/api/report_schedules/", { token: ws.read });
    expect(list.body.schedules.some((s: { id: string }) => s.id === theirs.id)).toBe(false);
    expect(await snapshot()).toBe(before);
  });
});

describe("read tokens cannot change or send", () => {
  it.each(["/api/create_report_schedule/", "/api/update_report_schedule/", "/api/delete_report_schedule/", "/api/run_report_schedule/"])(
    "%s answers 403 read_only_token and changes nothing",
    async (path) => {
      const schedule = await create(base());
      const before = await snapshot();
      const res = await post(ws.read, path, { ...base(), id: schedule.id });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("read_only_token");
      expect(await snapshot()).toBe(before);
    },
  );
});

describe("update_report_schedule", () => {
  it("replaces each given field and keeps the others", async () => {
    const schedule = await create({ ...base(), subject: "Old", variables: { a: 1 } });
    const res = await post(ws.write, "/api/update_report_schedule/", {
      id: schedule.id,
      subject: "New",
      format: "image",
      recipients: ["x@acme.example"],
    });
    expect(res.status).toBe(200);
    expect(res.body.schedule).toEqual({ ...schedule, subject: "New", format: "image", recipients: ["x@acme.example"] });
    const cleared = await post(ws.write, "/api/update_report_schedule/", { id: schedule.id, subject: null, variables: null });
    expect(cleared.body.schedule).toMatchObject({ subject: null, variables: null, format: "image" });
  });

  it("giving group_tag replaces the customer target, and the other way round", async () => {
    const schedule = await create(base());
    const toTag = await post(ws.write, "/api/update_report_schedule/", { id: schedule.id, group_tag: tag });
    expect(toTag.body.schedule).toMatchObject({ provided_id: null, group_tag: tag });
    const back = await post(ws.write, "/api/update_report_schedule/", { id: schedule.id, provided_id: customer.provided_id });
    expect(back.body.schedule).toMatchObject({ provided_id: customer.provided_id, group_tag: null });
  });

  it("pausing clears next_run_at; a new cron or time zone recomputes it", async () => {
    const schedule = await create(base());
    const paused = await post(ws.write, "/api/update_report_schedule/", { id: schedule.id, paused: true });
    expect(paused.body.schedule).toMatchObject({ paused: true, next_run_at: null });
    const resumed = await post(ws.write, "/api/update_report_schedule/", {
      id: schedule.id,
      paused: false,
      cron: "30 6 * * *",
      timezone: "Asia/Kolkata",
    });
    // 06:30 in Kolkata is 01:00 UTC.
    expect(resumed.body.schedule).toMatchObject({
      paused: false,
      cron: "30 6 * * *",
      timezone: "Asia/Kolkata",
      next_run_at: expect.stringMatching(/T01:00:00Z$/),
    });
  });

  it.each([
    [{ provided_id: "x", group_tag: "y" }, 400, "validation_error", "provided_id"],
    [{ cron: "every day" }, 400, "validation_error", "cron"],
    [{ timezone: "Europe/Nowhere" }, 400, "validation_error", "timezone"],
    [{ recipients: ["@"] }, 400, "validation_error", "recipients.0"],
    [{ provided_id: "nobody" }, 404, "customer_not_found", "provided_id"],
    [{ dashboard_embed_id: "nothing" }, 404, "dashboard_not_found", "dashboard_embed_id"],
    [{ group_tag: "never-made" }, 422, "unknown_group_tag", "group_tag"],
  ])("refuses %j (%i %s) and changes nothing", async (change, status, code, field) => {
    const schedule = await create(base());
    const before = await snapshot();
    const res = await post(ws.write, "/api/update_report_schedule/", { id: schedule.id, ...change });
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, field });
    expect(await snapshot()).toBe(before);
  });

  it("answers 404 schedule_not_found for an unknown id before looking at anything else", async () => {
    const res = await post(ws.write, "/api/update_report_schedule/", { id: "sch_unknown", provided_id: "nobody" });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "schedule_not_found", field: "id" });
  });
});

describe("delete_report_schedule", () => {
  it("deletes the schedule and its runs; a second delete is 404", async () => {
    const schedule = await create(base());
    await post(ws.write, "/api/run_report_schedule/", { id: schedule.id });
    const res = await post(ws.write, "/api/delete_report_schedule/", { id: schedule.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1 });
    expect((await post(ws.read, "/api/get_report_schedule/", { id: schedule.id })).status).toBe(404);
    expect(
      (await db.prepare("SELECT count(*) AS n FROM report_schedule_runs WHERE schedule_id = ?").bind(schedule.id).first<{ n: number }>())!
        .n,
    ).toBe(0);
    expect((await post(ws.write, "/api/delete_report_schedule/", { id: schedule.id })).body.error.code).toBe("schedule_not_found");
  });

  it("deleting a customer deletes its schedules", async () => {
    const doomed = await createCustomer(ws.write, { provided_id: unique("doomed") });
    const schedule = await create({ ...base(), provided_id: doomed.provided_id });
    const deleted = await call("DELETE", "/api/delete_customer/", { token: ws.write, body: { current_token: doomed.token } });
    expect(deleted.status).toBe(200);
    expect((await post(ws.read, "/api/get_report_schedule/", { id: schedule.id })).body.error.code).toBe("schedule_not_found");
  });
});

describe("targets follow renames; a deleted group tag takes its schedules along", () => {
  it("shows the renamed tag and customer, and deletes the tag's schedules with the tag", async () => {
    const own = unique("renamed");
    await createTag(ws.write, own);
    const c = await createCustomer(ws.write, { provided_id: unique("old-id") });
    const byTag = await create({ ...base(), provided_id: undefined, group_tag: own });
    const byCustomer = await create({ ...base(), provided_id: c.provided_id });
    const newTag = unique("renamed-to");
    const newId = unique("new-id");
    await post(ws.write, "/api/rename_group_tag/", { name: own, new_name: newTag });
    await post(ws.write, "/api/update_customer/", { provided_id: c.provided_id, new_provided_id: newId });
    expect((await post(ws.read, "/api/get_report_schedule/", { id: byTag.id })).body.schedule.group_tag).toBe(newTag);
    expect((await post(ws.read, "/api/get_report_schedule/", { id: byCustomer.id })).body.schedule.provided_id).toBe(newId);
    await post(ws.write, "/api/delete_group_tag/", { name: newTag });
    expect((await post(ws.read, "/api/get_report_schedule/", { id: byTag.id })).body.error.code).toBe("schedule_not_found");
    expect((await post(ws.read, "/api/get_report_schedule/", { id: byCustomer.id })).status).toBe(200);
  });
});

describe("run_report_schedule", () => {
  it("starts a manual run in the current minute; a customer without e-mails is skipped", async () => {
    const schedule = await create(base());
    const res = await post(ws.write, "/api/run_report_schedule/", { id: schedule.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: 1,
      run: {
        slot: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/),
        trigger: "manual",
        status: "done",
        job_ids: [],
        skipped: 1,
      },
    });
    expect(Math.abs(Date.parse(res.body.run.slot) - Date.now())).toBeLessThan(120_000);
    // One D1 trip inserts the run (for a visible schedule only) and reads what it delivers, one records it and reads it back.
    expect(roundTrips(res)).toBe(2);
    // Two calls in one minute are two runs: a manual run never claims a slot.
    await post(ws.write, "/api/run_report_schedule/", { id: schedule.id });
    const got = await post(ws.read, "/api/get_report_schedule/", { id: schedule.id });
    expect(got.body.runs).toHaveLength(2);
    expect(got.body.runs.every((r: { trigger: string }) => r.trigger === "manual")).toBe(true);
  });

  it("starts one report job per recipient, in one more D1 trip per job (and one for the e-mails' unsubscribe links)", async () => {
    const schedule = await create({ ...base(), recipients: ["ops@alpha.example", "cfo@alpha.example"] });
    const res = await post(ws.write, "/api/run_report_schedule/", { id: schedule.id });
    expect(res.status).toBe(200);
    expect(res.body.run).toMatchObject({ trigger: "manual", skipped: 0 });
    expect(res.body.run.job_ids).toHaveLength(2);
    expect(roundTrips(res)).toBe(5);
    const jobs = await db
      .prepare("SELECT kind, request FROM jobs WHERE id IN (?, ?)")
      .bind(...res.body.run.job_ids)
      .all<{ kind: string; request: string }>();
    expect(jobs.results.map((j) => j.kind)).toEqual(["report", "report"]);
    expect(jobs.results.map((j) => JSON.parse(j.request).email).sort()).toEqual(["cfo@alpha.example", "ops@alpha.example"]);
  });
});

describe("a schedule's PDF pages (pdf)", () => {
  it("stores and answers pdf, keeps it on an update that does not name it, clears it with null, and refuses an unknown size", async () => {
    const schedule = await create({ ...base(), format: "pdf", pdf: { page_size: "Letter", orientation: "landscape" } });
    expect(schedule.pdf).toEqual({ page_size: "Letter", orientation: "landscape" });
    const kept = await post(ws.write, "/api/update_report_schedule/", { id: schedule.id, subject: "Monthly" });
    expect(kept.body.schedule.pdf).toEqual({ page_size: "Letter", orientation: "landscape" });
    const before = await snapshot();
    const refused = await post(ws.write, "/api/update_report_schedule/", { id: schedule.id, pdf: { page_size: "A5" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("validation_error");
    expect(await snapshot()).toBe(before);
    expect((await post(ws.write, "/api/create_report_schedule/", { ...base(), format: "pdf", pdf: { page_size: "B5" } })).status).toBe(400);
    const cleared = await post(ws.write, "/api/update_report_schedule/", { id: schedule.id, pdf: null });
    expect(cleared.body.schedule.pdf).toBeNull();
  });

  it("a run of a PDF schedule starts screenshot jobs that ask for its pages", async () => {
    const schedule = await create({ ...base(), format: "pdf", pdf: { page_size: "A3" }, recipients: ["ops@alpha.example"] });
    const res = await post(ws.write, "/api/run_report_schedule/", { id: schedule.id });
    expect(res.status).toBe(200);
    const [jobId] = res.body.run.job_ids;
    const job = await db.prepare("SELECT kind, request FROM jobs WHERE id = ?").bind(jobId).first<{ kind: string; request: string }>();
    expect(job?.kind).toBe("screenshot");
    expect(JSON.parse(job?.request ?? "{}")).toMatchObject({ exportType: "pdf", pdf: { page_size: "A3" } });
  });
});

describe("operators and the API document", () => {
  it("the admin API lists every schedule and runs any of them", async () => {
    const schedule = await create(base());
    const list = await admin("GET", "/admin/report_schedules/");
    expect(list.status).toBe(200);
    expect(list.body.schedules.find((s: { id: string }) => s.id === schedule.id)).toMatchObject({
      ...schedule,
      access_group_id: expect.any(Number),
    });
    const run = await admin("POST", "/admin/run_report_schedule/", { id: schedule.id });
    expect(run.body).toMatchObject({ success: 1, run: { trigger: "manual", skipped: 1 } });
    expect((await admin("POST", "/admin/run_report_schedule/", { id: "sch_none" })).body.error.code).toBe("schedule_not_found");
    expect((await call("GET", "/admin/report_schedules/")).body.error.code).toBe("invalid_admin_token");
  });

  it("documents the six operations with their request and response schemas", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    for (const path of [
      "/api/create_report_schedule/",
      "/api/get_report_schedule/",
      "/api/update_report_schedule/",
      "/api/delete_report_schedule/",
      "/api/run_report_schedule/",
    ]) {
      expect(doc.paths[path]?.post?.requestBody, path).toBeDefined();
      expect(doc.paths[path].post.responses["200"]).toBeDefined();
      expect(doc.paths[path].post.responses["404"]).toBeDefined();
    }
    expect(doc.paths["/api/report_schedules/"]?.get?.responses["200"]).toBeDefined();
    expect(doc.components.schemas.ReportSchedule.properties.next_run_at).toBeDefined();
    expect(doc.components.schemas.ReportScheduleRun.properties.status.enum).toEqual(["running", "done", "partial", "failed"]);
  });
});

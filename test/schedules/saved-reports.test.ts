import Papa from "papaparse";
import { beforeAll, describe, expect, it } from "vitest";
import { call, type ApiResponse } from "../helpers/api";
import { bindings, dashboard, kpi, seedOrders, sources, workspace } from "../helpers/dashboards";
import { sentMails, waitForJob } from "../helpers/delivery";
import { parseMime } from "../helpers/mime";
import { builderRows, customerWithBlueprint, revenueByDay, saveReport, type CustomerWithBlueprint } from "../helpers/saved-reports";

// Schedules of saved reports: `report_id` instead of `dashboard_embed_id`, for the report's
// own customer, run with that customer's data.

let ws: Awaited<ReturnType<typeof workspace>>;
let embedId: string;
let alpha: CustomerWithBlueprint;
let beta: CustomerWithBlueprint;
let alphaReport: { id: string; name: string };
let betaReport: { id: string; name: string };

beforeAll(async () => {
  await seedOrders(); // alpha: 2026-01-05 100, 2026-02-05 250; beta: 2026-01-07 7, 2026-03-01 3
  ws = await workspace();
  const { schema, demo } = await sources();
  alpha = await customerWithBlueprint(ws.write, "alpha", "Alpha GmbH", schema, demo, { emails: ["team@alpha.example"] });
  beta = await customerWithBlueprint(ws.write, "beta", "Beta AG", schema, demo, { emails: ["team@beta.example"] });
  alphaReport = await saveReport(ws.write, alpha, { name: "Revenue by day", ...revenueByDay });
  betaReport = await saveReport(ws.write, beta, { name: "Beta revenue", ...revenueByDay });
  embedId = await dashboard({ title: "Numbers", panels: [kpi("n", schema, "SELECT 1 AS value")] }, ["production"]);
});

const create = (body: Record<string, unknown>, token = ws.write) =>
  call("POST", "/api/create_report_schedule/", { token, body: { cron: "0 9 * * *", ...body } });
const update = (body: Record<string, unknown>, token = ws.write) => call("POST", "/api/update_report_schedule/", { token, body });
const scheduleCount = async () => (await bindings.DB.prepare("SELECT count(*) AS n FROM report_schedules").first<number>("n"))!;

function expectError(res: ApiResponse, status: number, code: string, field: string) {
  expect({ status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({ status, code, field });
}

describe("create_report_schedule with report_id", () => {
  it("schedules a saved report of the customer (dashboard_embed_id null), csv allowed", async () => {
    const res = await create({ report_id: alphaReport.id, provided_id: alpha.providedId, format: "csv" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.schedule).toMatchObject({
      report_id: alphaReport.id,
      dashboard_embed_id: null,
      provided_id: "alpha",
      group_tag: null,
      format: "csv",
    });
    const got = await call("POST", "/api/get_report_schedule/", { token: ws.read, body: { id: res.body.schedule.id } });
    expect(got.body.schedule).toEqual(res.body.schedule);
    const listed = (await call("GET", "/api/report_schedules/", { token: ws.read })).body.schedules;
    expect(listed.find((s: { id: string }) => s.id === res.body.schedule.id)).toEqual(res.body.schedule);
  });

  it.each([
    ["neither dashboard_embed_id nor report_id", { provided_id: "alpha" }, "dashboard_embed_id"],
    ["both dashboard_embed_id and report_id", { provided_id: "alpha", dashboard_embed_id: "DASH", report_id: "REPORT" }, "report_id"],
    ["csv for a dashboard", { provided_id: "alpha", dashboard_embed_id: "DASH", format: "csv" }, "format"],
    ["a saved report with group_tag", { group_tag: "any", report_id: "REPORT" }, "group_tag"],
  ])("refuses %s (400 validation_error) and stores nothing", async (_, body, field) => {
    const filled = JSON.parse(JSON.stringify(body).replace("DASH", embedId).replace("REPORT", alphaReport.id));
    const before = await scheduleCount();
    expectError(await create(filled), 400, "validation_error", field);
    expect(await scheduleCount()).toBe(before);
  });

  it("controls: the dashboard alone, the report alone, xlsx for a dashboard", async () => {
    expect((await create({ provided_id: "alpha", dashboard_embed_id: embedId })).status).toBe(200);
    expect((await create({ provided_id: "alpha", report_id: alphaReport.id })).status).toBe(200);
    expect((await create({ provided_id: "alpha", dashboard_embed_id: embedId, format: "xlsx" })).status).toBe(200);
  });

  it("refuses a report of another customer, an unknown one, and one seen from another access group (404 report_not_found / customer_not_found), storing nothing", async () => {
    const before = await scheduleCount();
    expectError(await create({ provided_id: "alpha", report_id: betaReport.id }), 404, "report_not_found", "report_id");
    expectError(await create({ provided_id: "alpha", report_id: "no-such-report" }), 404, "report_not_found", "report_id");
    const stranger = await workspace();
    const { schema, demo } = await sources();
    const gamma = await customerWithBlueprint(stranger.write, "gamma", "Gamma", schema, demo);
    expectError(
      await create({ provided_id: gamma.providedId, report_id: alphaReport.id }, stranger.write),
      404,
      "report_not_found",
      "report_id",
    );
    expectError(
      await create({ provided_id: "alpha", report_id: alphaReport.id }, stranger.write),
      404,
      "customer_not_found",
      "provided_id",
    );
    expect(await scheduleCount()).toBe(before);
    // Control: the report's own customer in its own access group.
    expect((await create({ provided_id: "beta", report_id: betaReport.id })).status).toBe(200);
  });
});

describe("update_report_schedule and report_id", () => {
  it("switches between a dashboard and a saved report (the other becomes null)", async () => {
    const id = (await create({ provided_id: "alpha", dashboard_embed_id: embedId })).body.schedule.id;
    const toReport = await update({ id, report_id: alphaReport.id, format: "csv" });
    expect(toReport.status, JSON.stringify(toReport.body)).toBe(200);
    expect(toReport.body.schedule).toMatchObject({ report_id: alphaReport.id, dashboard_embed_id: null, format: "csv" });
    const toDashboard = await update({ id, dashboard_embed_id: embedId, format: "pdf" });
    expect(toDashboard.body.schedule).toMatchObject({ dashboard_embed_id: embedId, format: "pdf" });
    expect(toDashboard.body.schedule).not.toHaveProperty("report_id");
  });

  it("refuses what would leave a schedule wrong, and changes nothing", async () => {
    const onDashboard = (await create({ provided_id: "alpha", dashboard_embed_id: embedId })).body.schedule;
    const onReport = (await create({ provided_id: "alpha", report_id: alphaReport.id, format: "csv" })).body.schedule;
    // csv stays a saved report's format: a dashboard schedule cannot get it, a report schedule cannot keep it when moved to a dashboard.
    expectError(await update({ id: onDashboard.id, format: "csv" }), 400, "validation_error", "format");
    expectError(await update({ id: onReport.id, dashboard_embed_id: embedId }), 400, "validation_error", "format");
    expectError(
      await update({ id: onDashboard.id, dashboard_embed_id: embedId, report_id: alphaReport.id }),
      400,
      "validation_error",
      "report_id",
    );
    // The report is alpha's: not beta's, not a group tag's.
    expectError(await update({ id: onReport.id, provided_id: "beta" }), 404, "report_not_found", "report_id");
    expectError(await update({ id: onDashboard.id, report_id: betaReport.id }), 404, "report_not_found", "report_id");
    expectError(await update({ id: onReport.id, group_tag: "anything" }), 400, "validation_error", "group_tag");
    const stranger = await workspace();
    expectError(await update({ id: onReport.id, format: "xlsx" }, stranger.write), 404, "schedule_not_found", "id");
    for (const before of [onDashboard, onReport]) {
      expect((await call("POST", "/api/get_report_schedule/", { token: ws.read, body: { id: before.id } })).body.schedule).toEqual(before);
    }
    // Controls.
    expect((await update({ id: onReport.id, format: "xlsx" })).body.schedule.format).toBe("xlsx");
    expect((await update({ id: onReport.id, provided_id: "beta", report_id: betaReport.id })).body.schedule).toMatchObject({
      provided_id: "beta",
      report_id: betaReport.id,
    });
  });
});

describe("running a saved report's schedule", () => {
  it("e-mails the report's rows as CSV to its customer's addresses, with that customer's data", async () => {
    const id = (await create({ provided_id: "alpha", report_id: alphaReport.id, format: "csv" })).body.schedule.id;
    const run = await call("POST", "/api/run_report_schedule/", { token: ws.write, body: { id } });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.run.job_ids).toHaveLength(1);
    const [jobId] = run.body.run.job_ids;
    expect((await waitForJob(ws.read, jobId, (s) => s === "done" || s === "failed", 60_000)).status).toBe("done");
    const [raw] = await sentMails(jobId);
    const mail = parseMime(raw);
    expect(mail.to).toContain("team@alpha.example");
    expect(raw).toMatch(/^List-Unsubscribe: </m);
    const csv = mail.parts.find((p) => p.headers["content-type"]?.startsWith("text/csv"));
    expect(csv, raw.slice(0, 2000)).toBeTruthy();
    const text =
      csv!.headers["content-transfer-encoding"]?.toLowerCase() === "base64"
        ? new TextDecoder().decode(Uint8Array.from(atob(csv!.body.replace(/\s+/g, "")), (c) => c.charCodeAt(0)))
        : csv!.body;
    const rows = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
    const expected = (await builderRows(ws.write, alpha, revenueByDay.query)).rows.map((r) => ({
      day: String(r.day),
      sum_amount: String(r.sum_amount),
    }));
    expect(rows).toEqual(expected);
    expect(rows.map((r) => r.sum_amount)).toEqual(["100", "250"]); // alpha's, not beta's 7 and 3
  }, 90_000);
});

describe("a saved report's PDF schedule", () => {
  /** The MediaBox of every page of the PDF the run's e-mail attaches, in points. */
  async function pagesOfRun(id: string): Promise<string[]> {
    const run = await call("POST", "/api/run_report_schedule/", { token: ws.write, body: { id } });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    const [jobId] = run.body.run.job_ids;
    expect((await waitForJob(ws.read, jobId, (s) => s === "done" || s === "failed", 60_000)).status).toBe("done");
    const mail = parseMime((await sentMails(jobId))[0]);
    const pdf = mail.parts.find((p) => p.headers["content-type"]?.startsWith("application/pdf"));
    expect(pdf).toBeTruthy();
    const bytes = atob(pdf!.body.replace(/\s+/g, ""));
    return [...bytes.matchAll(/\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/g)].map((m) => `${m[1]}×${m[2]}`);
  }

  it("prints on the schedule's pages (A4 landscape: every page 842×595 pt); its control without pdf prints today's page from the width", async () => {
    const onPaper = await create({
      provided_id: "alpha",
      report_id: alphaReport.id,
      format: "pdf",
      pdf: { page_size: "A4", orientation: "landscape" },
    });
    expect(onPaper.body.schedule.pdf).toEqual({ page_size: "A4", orientation: "landscape" });
    const pages = await pagesOfRun(onPaper.body.schedule.id);
    expect(pages.length).toBeGreaterThan(0);
    expect(new Set(pages)).toEqual(new Set(["842×595"]));
    const today = await pagesOfRun((await create({ provided_id: "alpha", report_id: alphaReport.id, format: "pdf" })).body.schedule.id);
    expect(today).toHaveLength(1);
    expect(today[0]).not.toBe("842×595");
  }, 120_000);
});

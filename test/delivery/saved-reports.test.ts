import Papa from "papaparse";
import readXlsxFile from "read-excel-file/universal";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { seedOrders, sources, workspace } from "../helpers/dashboards";
import { admin, call, type ApiResponse } from "../helpers/api";
import {
  builderRows,
  customerWithBlueprint,
  dropColumn,
  revenueByDay,
  saveReport,
  shownDate,
  type CustomerWithBlueprint,
} from "../helpers/saved-reports";
import { fetchDownload, isPdf, jobCount, pngWidth, sentMails, waitForJob } from "../helpers/delivery";
import { base64Bytes, parseMime, type Part } from "../helpers/mime";
import { decodePng } from "../helpers/png";
import { createTheme, DARK } from "../helpers/themes";

// Saved reports delivered like dashboards: `report_id` on /api/dashboard/screenshot and
// /api/dashboard/report, drawn as one page (chart + table) through the real Browser Rendering
// pipeline, or written as CSV / XLSX — always for the report's own customer, on its own data.

let ws: Awaited<ReturnType<typeof workspace>>;
let schema: number;
let demo: number;
let alpha: CustomerWithBlueprint;
let beta: CustomerWithBlueprint;
let report: { id: string; name: string };
let betaReport: { id: string; name: string };

beforeAll(async () => {
  await seedOrders(); // alpha: 2026-01-05 Seats 100, 2026-02-05 Storage 250; beta: 7 and 3
  ws = await workspace();
  ({ schema, demo } = await sources());
  alpha = await customerWithBlueprint(ws.write, "alpha", "Alpha GmbH", schema, demo);
  beta = await customerWithBlueprint(ws.write, "beta", "Beta AG", schema, demo);
  report = await saveReport(ws.write, alpha, { name: "Revenue by day", ...revenueByDay });
  betaReport = await saveReport(ws.write, beta, { name: "Beta revenue", ...revenueByDay });
});

// Each test calls with a write token of its own: deliveries count against a token's DELIVERY_LIMIT_PER_MINUTE.
let writer = "";
beforeEach(async () => {
  writer = (await admin("POST", "/admin/api_tokens/", { access_group: ws.group, permission: "write" })).body.token;
});
const screenshot = (body: Record<string, unknown>, token = writer) =>
  call("POST", "/api/dashboard/screenshot", { token, body: { provided_id: "alpha", ...body } });
const reportMail = (body: Record<string, unknown>, token = writer) =>
  call("POST", "/api/dashboard/report", { token, body: { provided_id: "alpha", email: "boss@alpha.example", ...body } });

function expectError(res: ApiResponse, status: number, code: string, field: string) {
  expect({ status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({ status, code, field });
}

async function finished(jobId: string) {
  return waitForJob(ws.read, jobId, (s) => s === "done" || s === "failed", 60_000);
}

/** Pixels of the chart's palette and of table text: a blank or error page has neither. */
async function inkOf(bytes: Uint8Array): Promise<{ coloured: number; dark: number; width: number; height: number }> {
  const png = await decodePng(bytes);
  let coloured = 0;
  let dark = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    const [r, g, b] = [png.data[i], png.data[i + 1], png.data[i + 2]];
    if (Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
    if (0.2126 * r + 0.7152 * g + 0.0722 * b < 110) dark++;
  }
  return { coloured, dark, width: png.width, height: png.height };
}

const csvRows = (text: string) => Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
const expectedRows = async (owner: CustomerWithBlueprint) =>
  (await builderRows(ws.write, owner, revenueByDay.query)).rows.map((row) => ({
    day: String(row.day),
    sum_amount: String(row.sum_amount),
  }));

describe("a saved report e-mailed as PNG and CSV", () => {
  it("the report e-mail shows the report page inline (chart and table drawn) and the CSV e-mail carries that customer's rows", async () => {
    const png = await reportMail({ report_id: report.id });
    expect(png.status, JSON.stringify(png.body)).toBe(200);
    const csv = await screenshot({ report_id: report.id, export_type: "csv", email: "boss@alpha.example" });
    expect(csv.status, JSON.stringify(csv.body)).toBe(200);
    expect((await finished(png.body.job_id)).status).toBe("done");
    expect((await finished(csv.body.job_id)).status).toBe("done");

    const [rawPng] = await sentMails(png.body.job_id);
    const image = parseMime(rawPng).parts.find((p) => p.headers["content-type"]?.startsWith("image/png"));
    expect(image, rawPng.slice(0, 1500)).toBeTruthy();
    const ink = await inkOf(base64Bytes(image!.body));
    expect(ink.width).toBe(1440); // 720 CSS px at scale 2, as every report e-mail
    expect(ink.coloured, "the chart's bars").toBeGreaterThan(2000);
    expect(ink.dark, "the title and the table's text").toBeGreaterThan(2000);
    const text = parseMime(rawPng).parts.find((p) => p.headers["content-type"]?.startsWith("text/plain"))!.body;
    expect(text).toContain("Your report “Revenue by day” for Alpha GmbH");
    // Its link is a share link that draws the same report for that customer.
    const share = /Open the live report: (\S+)/.exec(text.replace(/=\r?\n/g, ""))?.[1];
    expect(share).toMatch(/\/share\/[0-9a-f]{64}$/);
    const page = await fetchDownload(share!);
    expect(page.status).toBe(200);
    const html = new TextDecoder().decode(page.bytes);
    expect(html).toContain("<h1>Revenue by day</h1>");
    expect(html).toContain(shownDate("2026-02-05"));
    expect(html).not.toContain(shownDate("2026-01-07")); // beta's

    const [rawCsv] = await sentMails(csv.body.job_id);
    const attachment = parseMime(rawCsv).parts.find((p: Part) => p.headers["content-type"]?.startsWith("text/csv"));
    expect(attachment, rawCsv.slice(0, 1500)).toBeTruthy();
    expect(attachment!.headers["content-disposition"]).toContain(".csv");
    const rows = csvRows(new TextDecoder().decode(base64Bytes(attachment!.body)));
    expect(rows).toEqual(await expectedRows(alpha));
    expect(rows.map((r) => r.sum_amount)).toEqual(["100", "250"]);
  }, 120_000);

  it("draws the report page in the delivery's theme: its margin pixel is the theme's background (control: the built-in)", async () => {
    expect((await createTheme(ws.write, { name: "Report night", theme: DARK })).status).toBe(200);
    const corner = async (body: Record<string, unknown>) => {
      const res = await screenshot({ report_id: report.id, width: 640, ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const png = await decodePng((await fetchDownload(`${res.body.url}?wait=30`)).bytes);
      return `#${[0, 1, 2].map((i) => png.data[(2 * png.width + 2) * 4 + i].toString(16).padStart(2, "0")).join("")}`;
    };
    expect(await corner({ theme: "Report night" })).toBe(DARK.colors.background);
    expect(await corner({})).toBe("#f4f6fb");
  }, 120_000);

  it("frames the saved report's e-mail in the delivery's theme as a dashboard's (background, text, accent on its link); control: the built-in", async () => {
    const name = "Report mail night";
    expect((await createTheme(ws.write, { name, theme: DARK })).status).toBe(200);
    const mailHtml = async (body: Record<string, unknown>) => {
      const res = await reportMail({ report_id: report.id, ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((await finished(res.body.job_id)).status).toBe("done");
      const html = parseMime((await sentMails(res.body.job_id))[0]).parts.find((p) => p.headers["content-type"]?.startsWith("text/html"))!;
      return html.body.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    };
    const themed = await mailHtml({ theme: name, locale: "de-DE" });
    expect(themed).toMatch(/<body style="[^"]*background:#0b1020;[^"]*color:#e8ecf8/);
    expect(themed).toMatch(/class="report-link" style="[^"]*background:#7c9cff/);
    expect(themed).toMatch(/<html lang="de-DE"/);
    const plain = await mailHtml({});
    expect(plain).toMatch(/<body style="[^"]*background:#f4f6fb;[^"]*color:#0f172a/);
    expect(plain).toMatch(/class="report-link" style="[^"]*background:#4f46e5/);
  }, 120_000);

  it("captures the report page as PNG at the asked width and as PDF, behind the download link", async () => {
    for (const width of [1280, 360]) {
      const res = await screenshot({ report_id: report.id, width });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const file = await fetchDownload(`${res.body.url}?wait=30`);
      expect(file.status).toBe(200);
      expect(pngWidth(file.bytes)).toBe(width);
      const ink = await inkOf(file.bytes);
      expect(ink.coloured, `bars at ${width} px`).toBeGreaterThan(1000);
      expect(ink.dark, `text at ${width} px`).toBeGreaterThan(1000);
    }
    const pdf = await screenshot({ report_id: report.id, export_type: "pdf" });
    const file = await fetchDownload(`${pdf.body.url}?wait=30`);
    expect(file.status).toBe(200);
    expect(isPdf(file.bytes)).toBe(true);
  }, 120_000);
});

describe("a saved report as a spreadsheet", () => {
  it("xlsx: one sheet named by the report, a date as a date and a known number as a number", async () => {
    const res = await screenshot({ report_id: report.id, export_type: "xlsx" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const file = await fetchDownload(`${res.body.url}?wait=30`);
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    const sheets = await readXlsxFile(new Blob([file.bytes]));
    expect(sheets.map((s) => s.sheet)).toEqual(["Revenue by day"]);
    const [header, first, second] = sheets[0].data;
    expect(header).toEqual(["Day", "Sum of Amount"]);
    expect((first[0] as unknown as Date).toISOString()).toBe("2026-01-05T00:00:00.000Z");
    expect([first[1], second[1]]).toEqual([100, 250]);
  });

  it("csv behind the download link: text/csv, that customer's rows", async () => {
    const res = await screenshot({ report_id: betaReport.id, provided_id: "beta", export_type: "csv", download_file_name: "beta" });
    const file = await fetchDownload(`${res.body.url}?wait=30`);
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(file.headers.get("Content-Disposition")).toContain('filename="beta.csv"');
    expect(csvRows(new TextDecoder().decode(file.bytes))).toEqual(await expectedRows(beta));
  });
});

describe("a saved report delivered under the locks it was saved with", () => {
  it("csv of a report saved by a locked user carries only the locked rows; the same query saved without locks carries all", async () => {
    const mintAndSave = async (filters: unknown[] | undefined, name: string) => {
      const minted = await call("POST", "/api/generate_embed_token/", {
        token: ws.write,
        body: { provided_id: "alpha", blueprint_id: alpha.blueprintId, filters },
      });
      const saved = await call("POST", `/report-builder/${alpha.blueprintEmbedId}/reports`, {
        body: { name, ...revenueByDay },
        headers: { Authorization: `Bearer ${minted.body.token}` },
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      return saved.body.report.id as string;
    };
    const csvOf = async (reportId: string) => {
      const res = await screenshot({ report_id: reportId, export_type: "csv" });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return csvRows(new TextDecoder().decode((await fetchDownload(`${res.body.url}?wait=30`)).bytes));
    };
    const locked = await mintAndSave([{ dataset: "orders", column: "product", op: "eq", value: "Seats" }], "Seats only");
    expect(await csvOf(locked)).toEqual([{ day: "2026-01-05", sum_amount: "100" }]);
    // Control: saved without locks, every row of the customer.
    expect(await csvOf(await mintAndSave(undefined, "Everything"))).toEqual(await expectedRows(alpha));
  });
});

describe("what a delivery of a saved report refuses", () => {
  it.each([
    ["screenshot: neither dashboard_embed_id nor report_id", "/api/dashboard/screenshot", {}, "dashboard_embed_id"],
    ["screenshot: both", "/api/dashboard/screenshot", { dashboard_embed_id: "sales", report_id: "REPORT" }, "report_id"],
    ["screenshot: csv of a dashboard", "/api/dashboard/screenshot", { dashboard_embed_id: "sales", export_type: "csv" }, "export_type"],
    ["report: neither", "/api/dashboard/report", { email: "a@b.example" }, "dashboard_embed_id"],
    ["report: both", "/api/dashboard/report", { email: "a@b.example", dashboard_embed_id: "sales", report_id: "REPORT" }, "report_id"],
  ])("%s → 400 validation_error, no job", async (_, path, body, field) => {
    const before = await jobCount();
    const filled = JSON.parse(JSON.stringify(body).replace("REPORT", report.id));
    expectError(await call("POST", path, { token: writer, body: { provided_id: "alpha", ...filled } }), 400, "validation_error", field);
    expect(await jobCount()).toBe(before);
  });

  it("refuses another customer's report, an unknown one and one of another access group (404), creating no job; the owner's call passes", async () => {
    const before = await jobCount();
    expectError(await screenshot({ report_id: betaReport.id }), 404, "report_not_found", "report_id");
    expectError(await reportMail({ report_id: betaReport.id }), 404, "report_not_found", "report_id");
    expectError(await screenshot({ report_id: "no-such-report", export_type: "csv" }), 404, "report_not_found", "report_id");
    const stranger = await workspace();
    const gamma = await customerWithBlueprint(stranger.write, "gamma", "Gamma", schema, demo);
    expectError(
      await screenshot({ provided_id: gamma.providedId, report_id: report.id }, stranger.write),
      404,
      "report_not_found",
      "report_id",
    );
    expectError(await screenshot({ report_id: report.id }, stranger.write), 404, "customer_not_found", "provided_id");
    expect(await jobCount()).toBe(before);
    const own = await screenshot({ report_id: report.id, export_type: "csv" });
    expect(own.status).toBe(200);
    expect((await finished(own.body.job_id)).status).toBe("done");
  });

  it("a report broken by update_blueprint fails its job with the builder's message (no e-mail, no crash)", async () => {
    const owner = await customerWithBlueprint(ws.write, "alpha-broken", "Broken", schema, demo);
    const saved = await saveReport(ws.write, owner, { name: "Soon broken", ...revenueByDay });
    await dropColumn(ws.write, owner, schema, "amount");
    for (const body of [{ export_type: "csv", email: "x@broken.example" }, { export_type: "image" }]) {
      const res = await screenshot({ provided_id: owner.providedId, report_id: saved.id, ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const job = await finished(res.body.job_id);
      expect(job).toMatchObject({ status: "failed", error: "Dataset 'orders' has no column 'amount'." });
      expect(job.attempts).toBe(1); // a broken report is not retried
      expect(await sentMails(res.body.job_id)).toEqual([]);
    }
    const mail = await reportMail({ provided_id: owner.providedId, report_id: saved.id });
    expect((await finished(mail.body.job_id)).error).toBe("Dataset 'orders' has no column 'amount'.");
  }, 60_000);
});

describe("isolation of saved reports' data", () => {
  it("the same report query delivered for two customers carries each one's own rows", async () => {
    const a = await screenshot({ report_id: report.id, export_type: "csv" });
    const b = await screenshot({ provided_id: "beta", report_id: betaReport.id, export_type: "csv" });
    const [fa, fb] = await Promise.all([fetchDownload(`${a.body.url}?wait=30`), fetchDownload(`${b.body.url}?wait=30`)]);
    expect(csvRows(new TextDecoder().decode(fa.bytes)).map((r) => r.sum_amount)).toEqual(["100", "250"]);
    expect(csvRows(new TextDecoder().decode(fb.bytes)).map((r) => r.sum_amount)).toEqual(["7", "3"]);
  });
});

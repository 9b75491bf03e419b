import { env } from "cloudflare:test";
import Papa from "papaparse";
import readXlsxFile from "read-excel-file/universal";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { ApiError } from "../../src/http/errors";
import { savedReportFile, savedReportHtml } from "../../src/report-builder/delivered";
import { bindings, seedOrders, sources, workspace } from "../helpers/dashboards";
import {
  builderRows,
  customerWithBlueprint,
  dropColumn,
  revenueByDay,
  saveReport,
  shownDate,
  type CustomerWithBlueprint,
} from "../helpers/saved-reports";

// A saved report as delivery sends it: the page a capture shows, its CSV and its workbook —
// each run for the report's own customer on that customer's data (real D1 data sources).

let write: string;
let schema: number;
let demo: number;
let alpha: CustomerWithBlueprint;
let beta: CustomerWithBlueprint;
let report: { id: string; name: string };
const db = () => createDatabase(bindings.DB);

beforeAll(async () => {
  await seedOrders(); // alpha: 2026-01-05 Seats 100, 2026-02-05 Storage 250; beta: 7 and 3
  ({ write } = await workspace());
  const s = await sources();
  schema = s.schema;
  demo = s.demo;
  alpha = await customerWithBlueprint(write, "alpha", "Alpha GmbH", s.schema, s.demo);
  beta = await customerWithBlueprint(write, "beta", "Beta AG", s.schema, s.demo);
  report = await saveReport(write, alpha, { name: "Revenue by day", ...revenueByDay });
});

describe("a saved report as delivery sends it", () => {
  it("is drawn as one page for its customer: the report's name, the chart (inline SVG) and the table of that customer's rows, complete for a capture", async () => {
    const html = await savedReportHtml(db(), env as never, { reportId: report.id, customerId: alpha.customerId, width: 1280 });
    expect(html).toContain('data-render-complete="true"');
    expect(html).toContain("<h1>Revenue by day</h1>");
    expect(html).toContain("Alpha GmbH");
    expect(html.match(/class="panel panel-bar"/g)).toHaveLength(1);
    expect(html.match(/class="panel panel-table"/g)).toHaveLength(1);
    expect(html).toMatch(/<svg[^>]*>/);
    const table = html.slice(html.indexOf('class="panel panel-table"'));
    expect(table).toContain(shownDate("2026-01-05"));
    expect(table).toContain(shownDate("2026-02-05"));
    expect(table).not.toContain(shownDate("2026-01-07")); // beta's order
  });

  it("writes CSV whose rows are the builder's rows of the report for that customer", async () => {
    const file = await savedReportFile(db(), env as never, { reportId: report.id, customerId: alpha.customerId, format: "csv" });
    expect(file.contentType).toBe("text/csv; charset=utf-8");
    const parsed = Papa.parse<Record<string, string>>(new TextDecoder().decode(file.bytes), { header: true, skipEmptyLines: true });
    expect(parsed.meta.fields).toEqual(["day", "sum_amount"]);
    const expected = await builderRows(write, alpha, revenueByDay.query);
    expect(parsed.data).toEqual(expected.rows.map((row) => ({ day: String(row.day), sum_amount: String(row.sum_amount) })));
    expect(parsed.data).toEqual([
      { day: "2026-01-05", sum_amount: "100" },
      { day: "2026-02-05", sum_amount: "250" },
    ]);
  });

  it("writes a workbook of one sheet named by the report, with number and date cells", async () => {
    const file = await savedReportFile(db(), env as never, { reportId: report.id, customerId: alpha.customerId, format: "xlsx" });
    expect(file.contentType).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    const sheets = await readXlsxFile(new Blob([file.bytes]));
    expect(sheets.map((s) => s.sheet)).toEqual(["Revenue by day"]);
    const [header, first, second] = sheets[0].data;
    expect(header).toEqual(["Day", "Sum of Amount"]);
    expect(first[0]).toBeInstanceOf(Date);
    expect((first[0] as unknown as Date).toISOString()).toBe("2026-01-05T00:00:00.000Z");
    expect(first[1]).toBe(100);
    expect(second[1]).toBe(250);
  });

  it("is report_not_found for any customer but its own (and runs for its own: control)", async () => {
    const other = await savedReportFile(db(), env as never, { reportId: report.id, customerId: beta.customerId, format: "csv" }).catch(
      (e) => e,
    );
    expect(other).toBeInstanceOf(ApiError);
    expect(other).toMatchObject({ code: "report_not_found", status: 404 });
    const unknown = await savedReportHtml(db(), env as never, { reportId: "nope", customerId: alpha.customerId, width: 1280 }).catch(
      (e) => e,
    );
    expect(unknown).toMatchObject({ code: "report_not_found" });
    const own = await savedReportFile(db(), env as never, { reportId: report.id, customerId: alpha.customerId, format: "csv" });
    expect(own.bytes.byteLength).toBeGreaterThan(0);
  });

  it("answers the builder's 422 when update_blueprint removed a column the report names (delivery fails the job with it)", async () => {
    const owner = await customerWithBlueprint(write, "alpha-broken", "Broken", schema, demo);
    const saved = await saveReport(write, owner, { name: "Soon broken", ...revenueByDay });
    const before = await savedReportFile(db(), env as never, { reportId: saved.id, customerId: owner.customerId, format: "csv" });
    expect(before.contentType).toContain("text/csv");
    await dropColumn(write, owner, schema, "amount");
    const broken = await savedReportFile(db(), env as never, { reportId: saved.id, customerId: owner.customerId, format: "xlsx" }).catch(
      (e) => e,
    );
    expect(broken).toBeInstanceOf(ApiError);
    expect(broken).toMatchObject({ code: "unknown_column", status: 422 });
    expect(broken.message).toContain("amount");
  });
});

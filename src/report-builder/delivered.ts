import type { Database } from "../db/client";
import type { Env } from "../env";
import { xlsx, XLSX_CONTENT_TYPE } from "../lib/xlsx";
import type { QueryCacheReport } from "../data/query-cache";
import { reportPage } from "./chart";
import { resultCsv } from "./export";
import type { ReportResult } from "./query";
import { runSavedReport, type Report } from "./service";

/**
 * A saved report as delivery sends it (screenshots, report e-mails, schedules): run for its
 * own customer (runSavedReport: that customer's mapping, data sources of its access group),
 * then drawn as a one-panel page for a capture, or written as a file. A report that is not
 * that customer's is 404 `report_not_found`; one that names a dataset or column its
 * blueprint no longer has answers the 422 of the builder — delivery fails the job with it.
 */

export interface SavedReportRun {
  reportId: string;
  customerId: number;
  cacheReport?: QueryCacheReport;
}

export const CSV_CONTENT_TYPE = "text/csv; charset=utf-8";

/** The page a capture of the report shows: its chart, then its table (src/report-builder/chart.ts). */
export async function savedReportHtml(
  db: Database,
  env: Env,
  run: SavedReportRun & { width: number; fitToWindow?: boolean },
): Promise<string> {
  const { report, result, customerName, isDemo } = await runSavedReport(db, env, run);
  return reportPage({
    title: report.name,
    customerName,
    result,
    chart: report.chart,
    width: run.width,
    isDemo,
    fitToWindow: run.fitToWindow,
  });
}

/** The report's rows as a file: CSV as the builder exports it, or a workbook of one sheet named by the report. */
export async function savedReportFile(
  db: Database,
  env: Env,
  run: SavedReportRun & { format: "csv" | "xlsx" },
): Promise<{ bytes: Uint8Array<ArrayBuffer>; contentType: string }> {
  const { report, result } = await runSavedReport(db, env, run);
  return run.format === "csv"
    ? { bytes: reportCsvBytes(result), contentType: CSV_CONTENT_TYPE }
    : { bytes: await reportWorkbook(report, result), contentType: XLSX_CONTENT_TYPE };
}

/** RFC 4180 CSV with a header row of result column names (formula-looking text prefixed with `'`). */
export function reportCsvBytes(result: Pick<ReportResult, "columns" | "rows">): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(resultCsv(result)) as Uint8Array<ArrayBuffer>;
}

/** One sheet named by the report (made a legal sheet name), typed by the result's column types. */
export async function reportWorkbook(
  report: Pick<Report, "name">,
  result: Pick<ReportResult, "columns" | "rows">,
): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await xlsx([{ name: report.name, columns: result.columns, rows: result.rows }]));
}

import { customerDataView } from "../data/customer-view";
import type { Database, RoundTripCounter } from "../db/client";
import type { Env } from "../env";
import { xlsx, XLSX_CONTENT_TYPE } from "../lib/xlsx";
import type { QueryCacheReport } from "../data/query-cache";
import * as customersRepo from "../customers/repository";
import * as dashboardsRepo from "../dashboards/repository";
import { reportPage } from "./chart";
import { datasetOf } from "./compiler";
import { resultCsv } from "./export";
import type { ReportResult } from "./query";
import * as repo from "./repository";
import { lockedFiltersFit, locksOnDataset, staleReportLockError } from "./locks";
import { type Presentation, type PresentationChoice, resolvePresentation } from "../view/presentation";
import type { Paper } from "../view/paper";
import { themesOfCustomerGroup } from "../themes/repository";
import { runReport } from "./run";
import { type ViewerCacheKey, viewerReads } from "../dashboards/viewer-cache";
import { ApiError } from "../http/errors";
import { reportNotFound, reportView, type Report } from "./saved-reports";

/**
 * A saved report as delivery sends it (screenshots, report e-mails, schedules): run for its
 * own customer (runSavedReport: that customer's mapping, data sources of its access group),
 * then drawn as a page for a capture (on paper for a PDF with a page size), or written as a file. A report that is not
 * that customer's is 404 `report_not_found`; one that names a dataset or column its
 * blueprint no longer has answers the 422 of the builder — delivery fails the job with it.
 */

export interface SavedReportRun {
  reportId: string;
  customerId: number;
  cacheReport?: QueryCacheReport;
  /** The delivery's time zone, when it names one; else the customer's computed one. */
  timezone?: string;
  /** The delivery's own theme and locale (and zone), else the customer's computed ones (20.1). */
  presentation?: PresentationChoice;
  /** A share link's page: its reads kept at the location (dashboards/viewer-cache.ts); absent = read D1. */
  viewerCache?: ViewerCacheKey;
  waitUntil?: (promise: Promise<unknown>) => void;
  /** Whether the customer may still see it (a share link: the customer token it was made under); else `customer_not_found`. */
  accept?: (customer: { tokenHash: string }) => Promise<boolean>;
}

export const CSV_CONTENT_TYPE = "text/csv; charset=utf-8";

/**
 * A saved report run for its own customer, as the builder runs it, with the locked filters
 * it was saved under — for deliveries of saved reports (screenshots, e-mails, files,
 * schedules, share links). One D1
 * round trip for the report, its blueprint, the customer chain and the data sources (a
 * share link's kept at the location: none on a hit); then the query. `report_not_found`
 * when the report is not that customer's.
 */
export async function runSavedReport(db: Database, env: Env, input: SavedReportRun & { dataRoundTrips?: RoundTripCounter }) {
  const { accept } = input;
  const read = () =>
    db.batch([
      repo.reportOfCustomer(db, input.reportId, input.customerId),
      customersRepo.customerChain(db, customersRepo.byId(input.customerId)),
      dashboardsRepo.dataSources(db),
      themesOfCustomerGroup(db, customersRepo.byId(input.customerId)),
    ]);
  const [report, chain, sources, themes] = await viewerReads(input.viewerCache, ["saved-report", input.reportId], read, {
    waitUntil: input.waitUntil,
    found: ([report, chain]) => report.length > 0 && chain.length > 0,
    usable: accept ? ([, chain]) => accept(chain[0]) : undefined,
  });
  if (report.length === 0 || chain.length === 0) throw reportNotFound(input.reportId, "report_id");
  if (accept && !(await accept(chain[0]))) throw new ApiError("customer_not_found", "The customer does not exist.");
  const saved = reportView(report[0].report);
  // The locks it was saved under go with it to every delivery; one that no longer fits refuses the run.
  if (!(await lockedFiltersFit(report[0].tables, report[0].report.lockedFilters ?? [], "by name"))) throw staleReportLockError();
  const view = customerDataView(chain, sources);
  // Drawn in the delivery's theme and locale, else the customer's, as a dashboard's job is.
  const presentation = resolvePresentation(input.presentation ?? {}, chain, themes);
  const table = datasetOf(report[0].tables, saved.query.dataset);
  const result = await runReport({
    env,
    table,
    query: saved.query,
    locked: locksOnDataset(report[0].report.lockedFilters ?? [], saved.query.dataset),
    context: view.context,
    mapping: view.mapping,
    sources: view.sources,
    dataRoundTrips: input.dataRoundTrips,
    // Buckets in the delivery's zone, else the customer's (20.1).
    timezone: input.timezone ?? presentation.timezone,
    // The locks are part of the compiled SQL and its values, so of the key: the builder's run with the same locks shares it.
    cache: { ttlSeconds: table.cache_ttl_seconds ?? 0, versions: view.cacheVersions, report: input.cacheReport },
  });
  return { report: saved, result, customerName: chain[0].name, isDemo: view.isDemo, presentation };
}

/** The page a capture of the report shows: its chart, then its table (src/report-builder/chart.ts). */
export async function savedReportHtml(
  db: Database,
  env: Env,
  run: SavedReportRun & { width: number; fitToWindow?: boolean; dataRoundTrips?: RoundTripCounter },
): Promise<string> {
  return (await savedReportPage(db, env, run)).html;
}

/**
 * The page of the report as `savedReportHtml` draws it, on `paper` for a PDF with a page size
 * (laid out for its pages as a dashboard is), and the view it was drawn in.
 */
export async function savedReportPage(
  db: Database,
  env: Env,
  run: SavedReportRun & { width: number; fitToWindow?: boolean; dataRoundTrips?: RoundTripCounter; paper?: Paper },
): Promise<{ html: string; view: Presentation }> {
  const { report, result, customerName, isDemo, presentation } = await runSavedReport(db, env, run);
  const html = reportPage({
    view: presentation,
    title: report.name,
    customerName,
    result,
    chart: report.chart,
    width: run.width,
    isDemo,
    fitToWindow: run.fitToWindow,
    paper: run.paper,
  });
  return { html, view: presentation };
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

import type { StoredTable } from "../blueprints/schemas";
import { customerNotFound } from "../customers/not-found";
import type { CustomerViewRow } from "../customers/repository";
import { customerDataView } from "../data/customer-view";
import { customerTokenFingerprint } from "../tokens/signed";
import type { Database, RoundTripCounter } from "../db/client";
import { config } from "../config";
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import { currentRequest } from "../http/request-state";
import { constantTimeEqual, randomAlphanumeric } from "../lib/crypto";
import type { BuilderClaims } from "../tokens/builder";
import { NO_CUSTOMER } from "../data/placeholders";
import { compileReportQuery, datasetOf, resultNames } from "./compiler";
import { resultCsv } from "./export";
import { xlsx, XLSX_CONTENT_TYPE } from "../lib/xlsx";
import type { ReportFilter } from "../data/filters";
import type { Chart, ReportQuery, ReportResult } from "./query";
import * as customersRepo from "../customers/repository";
import * as dashboardsRepo from "../dashboards/repository";
import * as repo from "./repository";
import type { QueryCacheReport } from "../data/query-cache";
import { compileFor, runReport } from "./run";

// ---- one builder request: who, which blueprint, within the limit ---------------------------------

export interface BuilderRequest {
  db: Database;
  env: Env;
  claims: BuilderClaims;
  dataRoundTrips?: RoundTripCounter;
  /** Notes whether query results came from the query cache (`X-Query-Cache`). */
  cacheReport?: QueryCacheReport;
  /** Work allowed to outlive the response: storing results, refreshing stale ones. */
  waitUntil?: (promise: Promise<unknown>) => void;
}

interface Opened {
  claims: BuilderClaims;
  tables: StoredTable[];
  context: { customer: { provided_id: string; name: string; properties: Record<string, unknown> }; variables: Record<string, unknown> };
  mapping: Record<string, string>;
  sources: Awaited<ReturnType<typeof dashboardsRepo.dataSources>>;
  /** The customer chain's invalidation versions, in every cache key. */
  cacheVersions: string[];
}

const WINDOW_MS = 60_000;

function builderLimit(env: Env): number {
  return config(env).BUILDER_REQUESTS_PER_MINUTE;
}

/**
 * What every builder request reads, plus its count against BUILDER_REQUESTS_PER_MINUTE —
 * statements for one batch that the operation extends with its own.
 */
function builderReads(request: BuilderRequest) {
  const { db, claims } = request;
  const windowStart = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS;
  return [
    customersRepo.customerChain(db, customersRepo.byId(claims.cid)),
    repo.blueprintOfCustomer(db, claims.bid, claims.cid),
    dashboardsRepo.dataSources(db),
    // A "not found" answered from a replica is served again from the primary (http/request-state):
    // that second attempt was counted by the first.
    currentRequest()?.isRetryOnPrimary
      ? repo.requestCount(db, claims.cid, windowStart)
      : repo.countRequest(db, claims.cid, windowStart, builderLimit(request.env)),
    repo.forgetOldWindows(db, claims.cid, windowStart),
  ] as const;
}

/**
 * The checks of every builder request, in the contract's order: the token's customer still
 * there with the token it was minted for (401), the blueprint still there (404), the
 * customer's requests this minute (429).
 */
async function opened(
  request: BuilderRequest,
  [chain, blueprint, sources, counted]: readonly [
    CustomerViewRow[],
    { tables: StoredTable[] }[],
    Opened["sources"],
    { count: number }[],
    unknown,
  ],
): Promise<Opened> {
  if (chain.length === 0 || !constantTimeEqual(request.claims.ctv, await customerTokenFingerprint(chain[0].tokenHash))) {
    throw new ApiError("invalid_embed_token", "This report builder link is no longer valid.");
  }
  if (blueprint.length === 0) throw new ApiError("blueprint_not_found", "This blueprint does not exist any more.");
  if (counted.length === 0) {
    const retryAfter = Math.max(1, Math.ceil((WINDOW_MS - (Date.now() % WINDOW_MS)) / 1000));
    throw new ApiError("rate_limited", `Too many report builder requests for this customer; retry in ${retryAfter} s.`, undefined, {
      "Retry-After": String(retryAfter),
    });
  }
  const { context, mapping, sources: usable, cacheVersions } = customerDataView(chain, sources);
  return { claims: request.claims, tables: blueprint[0].tables, context, mapping, sources: usable, cacheVersions };
}

async function open(request: BuilderRequest): Promise<Opened> {
  return opened(request, await request.db.batch(builderReads(request)));
}

// ---- datasets, queries, exports ------------------------------------------------------------------

export async function datasets(request: BuilderRequest) {
  return datasetsOf((await open(request)).tables);
}

function datasetsOf(tables: StoredTable[]) {
  return tables.map((table) => ({
    name: table.dataset_name,
    description: table.description,
    columns: table.columns.map((c) => ({ name: c.name, display_name: c.display_name, type: c.type, can_be_grouped: c.can_be_grouped })),
  }));
}

function lockedFor(claims: BuilderClaims, dataset: string): ReportFilter[] {
  return (claims.flt ?? []).filter((f) => f.dataset === dataset).map(({ dataset: _dataset, ...filter }) => filter);
}

/** What compiling a query needs for this customer: its dataset, the token's locked filters, the customer's context, mapping and sources. */
function compileInput(request: BuilderRequest, builder: Opened, query: ReportQuery) {
  return {
    env: request.env,
    table: datasetOf(builder.tables, query.dataset),
    query,
    locked: lockedFor(builder.claims, query.dataset),
    context: builder.context,
    mapping: builder.mapping,
    sources: builder.sources,
  };
}

async function run(request: BuilderRequest, builder: Opened, query: ReportQuery): Promise<ReportResult> {
  const input = compileInput(request, builder, query);
  return runReport({
    ...input,
    dataRoundTrips: request.dataRoundTrips,
    cache: {
      ttlSeconds: input.table.cache_ttl_seconds ?? 0,
      versions: builder.cacheVersions,
      waitUntil: request.waitUntil,
      report: request.cacheReport,
    },
  });
}

/** The statement a query compiles to for this customer and where it would run (nothing run: benchmarks). */
export async function compiledFor(request: BuilderRequest, query: ReportQuery) {
  return compileFor(compileInput(request, await open(request), query));
}

export async function runQuery(request: BuilderRequest, query: ReportQuery): Promise<ReportResult> {
  return run(request, await open(request), query);
}

/** `file_name` made safe for Content-Disposition, with the format's extension (not doubled). */
export function exportFileName(name: string | undefined, format: "csv" | "xlsx"): string {
  const safe =
    (name ?? "report")
      .replace(/[^A-Za-z0-9._ -]+/g, "_")
      .replace(/^[.\s]+/, "")
      .trim()
      .slice(0, 200) || "report";
  return safe.toLowerCase().endsWith(`.${format}`) ? safe : `${safe}.${format}`;
}

export async function exportQuery(request: BuilderRequest, input: { query: ReportQuery; format: "csv" | "xlsx"; file_name?: string }) {
  const result = await runQuery(request, input.query);
  const fileName = exportFileName(input.file_name, input.format);
  if (input.format === "csv") return { fileName, contentType: "text/csv; charset=utf-8", body: resultCsv(result) };
  const sheet = fileName.replace(/\.xlsx$/i, "") || input.query.dataset;
  return { fileName, contentType: XLSX_CONTENT_TYPE, body: await xlsx([{ name: sheet, columns: result.columns, rows: result.rows }]) };
}

// ---- saved reports -------------------------------------------------------------------------------

export interface Report {
  id: string;
  blueprint_id: number;
  name: string;
  query: ReportQuery;
  chart: Chart;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export function reportView(row: repo.SavedReportRow): Report {
  return {
    id: row.id,
    blueprint_id: row.blueprintId,
    name: row.name,
    query: row.query,
    chart: row.chart,
    created_by: row.createdBy,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

function reportNotFound(id: string, field?: string): ApiError {
  return new ApiError("report_not_found", `Report '${id}' does not exist.`, field);
}

/**
 * A report to save must run on the blueprint as it is (same 422s as a query, under
 * `query.`), and its chart may name only columns of its result (`chart.x`, `chart.y.<i>`).
 * Locked filters are not part of it.
 */
function checkSavable(tables: StoredTable[], query: ReportQuery, chart: Chart): void {
  try {
    compileReportQuery({
      table: datasetOf(tables, query.dataset),
      query,
      locked: [],
      dialect: "sqlite",
      context: NO_CUSTOMER,
      rowLimit: Number.MAX_SAFE_INTEGER,
    });
  } catch (error) {
    if (error instanceof ApiError && error.field !== undefined) throw new ApiError(error.code, error.message, `query.${error.field}`);
    throw error;
  }
  const names = new Set(resultNames(query));
  if (chart.x !== undefined && !names.has(chart.x))
    throw new ApiError("unknown_column", `The result has no column '${chart.x}' to chart.`, "chart.x");
  chart.y?.forEach((name, i) => {
    if (!names.has(name)) throw new ApiError("unknown_column", `The result has no column '${name}' to chart.`, `chart.y.${i}`);
  });
}

export async function listReports(request: BuilderRequest): Promise<Report[]> {
  const { db, claims } = request;
  const [chain, blueprint, sources, counted, forgot, reports] = await db.batch([
    ...builderReads(request),
    repo.blueprintReports(db, claims.bid, claims.cid),
  ]);
  await opened(request, [chain, blueprint, sources, counted, forgot]);
  return reports.map(reportView);
}

/**
 * What the builder page (page-routes.ts) starts with — the blueprint's name, the customer's,
 * the datasets and the saved reports — in the one batch of a builder request (same checks,
 * same count against the limit).
 */
export async function builderPageData(request: BuilderRequest) {
  const { db, claims } = request;
  const [chain, blueprint, sources, counted, forgot, saved] = await db.batch([
    ...builderReads(request),
    repo.blueprintReports(db, claims.bid, claims.cid),
  ]);
  const builder = await opened(request, [chain, blueprint, sources, counted, forgot]);
  return {
    blueprintName: blueprint[0].name,
    customerName: builder.context.customer.name,
    datasets: datasetsOf(builder.tables),
    reports: saved.map(reportView),
  };
}

/** Whether any blueprint has this embed id (the page tells "nothing here" from "not yours"). */
export async function blueprintExists(db: Database, embedId: string): Promise<boolean> {
  return (await repo.blueprintByEmbedId(db, embedId)).length > 0;
}

export async function saveReport(request: BuilderRequest, input: { name: string; query: ReportQuery; chart: Chart }): Promise<Report> {
  const builder = await open(request);
  checkSavable(builder.tables, input.query, input.chart);
  const [row] = await repo.insertReport(request.db, {
    id: randomAlphanumeric(20),
    blueprintId: request.claims.bid,
    customerId: request.claims.cid,
    name: input.name,
    query: input.query,
    chart: input.chart,
    createdBy: request.claims.uid ?? null,
  });
  return reportView(row);
}

export async function updateReport(
  request: BuilderRequest,
  id: string,
  input: { name?: string; query?: ReportQuery; chart?: Chart },
): Promise<Report> {
  const { db, claims } = request;
  const [chain, blueprint, sources, counted, forgot, existing] = await db.batch([
    ...builderReads(request),
    repo.reportOfBlueprint(db, id, claims.bid, claims.cid),
  ]);
  const builder = await opened(request, [chain, blueprint, sources, counted, forgot]);
  if (existing.length === 0) throw reportNotFound(id);
  const current = reportView(existing[0]);
  if (input.query !== undefined || input.chart !== undefined)
    checkSavable(builder.tables, input.query ?? current.query, input.chart ?? current.chart);
  const [row] = await repo.updateReport(db, id, claims.bid, claims.cid, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.query !== undefined ? { query: input.query } : {}),
    ...(input.chart !== undefined ? { chart: input.chart } : {}),
  });
  if (!row) throw reportNotFound(id);
  return reportView(row);
}

export async function deleteReport(request: BuilderRequest, id: string): Promise<void> {
  await open(request);
  const deleted = await repo.deleteReport(request.db, id, request.claims.bid, request.claims.cid);
  if (deleted.length === 0) throw reportNotFound(id);
}

// ---- saved reports outside the builder (deliveries) ----------------------------------------------

/**
 * A saved report run for its own customer, as the builder runs it (without locked filters:
 * those belong to a link, not to the report) — for deliveries of saved reports. One D1
 * round trip for the report, its blueprint, the customer chain and the data sources; then
 * the query. `report_not_found` when the report is not that customer's.
 */
export async function runSavedReport(
  db: Database,
  env: Env,
  input: { reportId: string; customerId: number; dataRoundTrips?: RoundTripCounter; cacheReport?: QueryCacheReport },
) {
  const [report, chain, sources] = await db.batch([
    repo.reportOfCustomer(db, input.reportId, input.customerId),
    customersRepo.customerChain(db, customersRepo.byId(input.customerId)),
    dashboardsRepo.dataSources(db),
  ]);
  if (report.length === 0 || chain.length === 0) throw reportNotFound(input.reportId, "report_id");
  const saved = reportView(report[0].report);
  const view = customerDataView(chain, sources);
  const table = datasetOf(report[0].tables, saved.query.dataset);
  const result = await runReport({
    env,
    table,
    query: saved.query,
    locked: [],
    context: view.context,
    mapping: view.mapping,
    sources: view.sources,
    dataRoundTrips: input.dataRoundTrips,
    // The same key as the builder's run of this query without locked filters: such a view, then a delivery, is one miss and one hit.
    cache: { ttlSeconds: table.cache_ttl_seconds ?? 0, versions: view.cacheVersions, report: input.cacheReport },
  });
  return { report: saved, result, customerName: chain[0].name, isDemo: view.isDemo };
}

// ---- the vendor's operations ---------------------------------------------------------------------

export async function customerReports(db: Database, accessGroupId: number, providedId: string): Promise<Report[]> {
  const [customer, reports] = await db.batch([
    repo.visibleCustomer(db, providedId, accessGroupId),
    repo.customerReports(db, providedId, accessGroupId),
  ]);
  if (customer.length === 0) throw customerNotFound(providedId, "customer_id");
  return reports.map((r) => reportView(r.report));
}

export async function deleteCustomerReport(db: Database, accessGroupId: number, reportId: string): Promise<void> {
  const deleted = await repo.deleteVisibleReport(db, reportId, accessGroupId);
  if (deleted.length === 0) throw reportNotFound(reportId, "report_id");
}

import type { StoredTable } from "../blueprints/schemas";
import { NO_CUSTOMER } from "../data/placeholders";
import { ApiError } from "../http/errors";
import { randomAlphanumeric } from "../lib/crypto";
import type { LockedFilter } from "../data/filters";
import type { BuilderClaims } from "../tokens/builder";
import { lockView, sameLockedFilters } from "./locks";
import { builderReads, openBuilder, opened, type BuilderRequest } from "./builder-request";
import { compileReportQuery, datasetOf, resultNames } from "./compiler";
import type { Chart, ReportQuery } from "./query";
import * as repo from "./repository";

/**
 * Saved reports as a customer's users keep them in the builder: list, save, change, delete —
 * each one builder request (builder-request.ts), on the token's blueprint and customer.
 */

export interface Report {
  id: string;
  blueprint_id: number;
  name: string;
  query: ReportQuery;
  chart: Chart;
  /** The locked filters of the token that saved it, applied to every run of it. */
  locked_filters: LockedFilter[];
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
    locked_filters: (row.lockedFilters ?? []).map(lockView),
    created_by: row.createdBy,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/**
 * Only the token that could have saved the report may change or delete it: the same user
 * (`user_id` = `created_by`, both absent counting as the same) under the same locked
 * filters. Anyone else of the customer may open and run it, with its locks.
 */
function requireOwner(report: Report, claims: BuilderClaims): void {
  if ((claims.uid ?? null) === report.created_by && sameLockedFilters(claims.flt ?? [], report.locked_filters)) return;
  throw new ApiError(
    "report_read_only",
    `Report '${report.id}' was saved by another user or under other locked filters; it may be run, not changed or deleted.`,
  );
}

export function reportNotFound(id: string, field?: string): ApiError {
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
  const [chain, blueprint, sources, reports] = await db.batch([
    ...builderReads(request),
    repo.blueprintReports(db, claims.bid, claims.cid),
  ]);
  await opened(request, [chain, blueprint, sources]);
  return reports.map(reportView);
}

export async function saveReport(request: BuilderRequest, input: { name: string; query: ReportQuery; chart: Chart }): Promise<Report> {
  const builder = await openBuilder(request);
  checkSavable(builder.tables, input.query, input.chart);
  const [row] = await repo.insertReport(request.db, {
    id: randomAlphanumeric(20),
    blueprintId: request.claims.bid,
    customerId: request.claims.cid,
    name: input.name,
    query: input.query,
    chart: input.chart,
    lockedFilters: request.claims.flt ?? [],
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
  const [chain, blueprint, sources, existing] = await db.batch([
    ...builderReads(request),
    repo.reportOfBlueprint(db, id, claims.bid, claims.cid),
  ]);
  const builder = await opened(request, [chain, blueprint, sources]);
  if (existing.length === 0) throw reportNotFound(id);
  const current = reportView(existing[0]);
  requireOwner(current, claims);
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
  const { db, claims } = request;
  const [chain, blueprint, sources, existing] = await db.batch([
    ...builderReads(request),
    repo.reportOfBlueprint(db, id, claims.bid, claims.cid),
  ]);
  await opened(request, [chain, blueprint, sources]);
  if (existing.length === 0) throw reportNotFound(id);
  // Who may delete never changes after saving (created_by and locked_filters are not updatable).
  requireOwner(reportView(existing[0]), claims);
  const deleted = await repo.deleteReport(request.db, id, request.claims.bid, request.claims.cid);
  if (deleted.length === 0) throw reportNotFound(id);
}

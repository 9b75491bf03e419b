import type { StoredTable } from "../blueprints/schemas";
import type { ReportFilter } from "../data/filters";
import { xlsx, XLSX_CONTENT_TYPE } from "../lib/xlsx";
import type { BuilderClaims } from "../tokens/builder";
import type { LockedFilter } from "../data/filters";
import { builderReads, openBuilder, opened, type BuilderRequest, type OpenedBuilder } from "./builder-request";
import { lockedFiltersFit, locksOnDataset, staleReportLockError } from "./locks";
import * as repo from "./repository";
import { reportNotFound } from "./saved-reports";
import { datasetOf } from "./compiler";
import { resultCsv } from "./export";
import type { ReportQuery, ReportResult } from "./query";
import { compileFor, runReport } from "./run";
import { entriesFor } from "../view/translations";

/** The builder's datasets, its queries on the customer's data and their exports as files. */

export async function datasets(request: BuilderRequest) {
  const builder = await openBuilder(request);
  return datasetsOf(builder.tables, builder.locale);
}

/**
 * The blueprint's tables as the builder lists them: name, description, columns — the words in
 * the view's locale (the table's `translations`: exact locale, then language, then its own);
 * `name`s, which queries use, stay the same.
 */
export function datasetsOf(tables: StoredTable[], locale = "en-US") {
  return tables.map((stored) => {
    const table = localizedTable(stored, locale);
    return {
      name: table.dataset_name,
      description: table.description,
      columns: table.columns.map((c) => ({ name: c.name, display_name: c.display_name, type: c.type, can_be_grouped: c.can_be_grouped })),
    };
  });
}

/** The dataset's name as the view's locale shows it (the page's words; queries keep `dataset_name`). */
export function datasetDisplayName(table: StoredTable, locale: string): string {
  return entriesFor(table.translations, locale).find((t) => t.dataset_name)?.dataset_name ?? table.dataset_name;
}

/** A table with its description and columns' display names in the view's locale (its names untouched). */
export function localizedTable(table: StoredTable, locale: string): StoredTable {
  const entries = entriesFor(table.translations, locale);
  if (entries.length === 0) return table;
  const description = entries.find((t) => t.description !== undefined)?.description ?? table.description;
  const columns = table.columns.map((c) => {
    const shown = entries.find((t) => t.columns?.[c.name] !== undefined)?.columns?.[c.name];
    return shown === undefined ? c : { ...c, display_name: shown };
  });
  return { ...table, description, columns };
}

function lockedFor(claims: BuilderClaims, dataset: string, reportLocks: readonly LockedFilter[] = []): ReportFilter[] {
  return locksOnDataset([...(claims.flt ?? []), ...reportLocks], dataset);
}

/** What compiling a query needs for this customer: its dataset, the token's locked filters, the customer's context, mapping and sources. */
function compileInput(request: BuilderRequest, builder: OpenedBuilder, query: ReportQuery, reportLocks: readonly LockedFilter[] = []) {
  return {
    env: request.env,
    // Result columns named as the view's locale shows them (the SQL is the same in every locale).
    table: localizedTable(datasetOf(builder.tables, query.dataset), builder.locale),
    query,
    locked: lockedFor(builder.claims, query.dataset, reportLocks),
    context: builder.context,
    mapping: builder.mapping,
    sources: builder.sources,
    timezone: builder.timezone,
  };
}

async function run(
  request: BuilderRequest,
  builder: OpenedBuilder,
  query: ReportQuery,
  reportLocks: readonly LockedFilter[] = [],
): Promise<ReportResult> {
  const input = compileInput(request, builder, query, reportLocks);
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
  return compileFor(compileInput(request, await openBuilder(request), query));
}

/**
 * Runs a query; with `reportId` (a saved report open in the builder) the locked filters that
 * report was saved under are added to the token's own, in the same batch as the request's
 * reads. A report of another customer or blueprint is 404; a stored lock that no longer fits
 * the blueprint refuses the run.
 */
export async function runQuery(request: BuilderRequest, query: ReportQuery, reportId?: string): Promise<ReportResult> {
  if (reportId === undefined) return run(request, await openBuilder(request), query);
  const { db, claims } = request;
  const [chain, blueprint, sources, report] = await db.batch([
    ...builderReads(request),
    repo.reportOfBlueprint(db, reportId, claims.bid, claims.cid),
  ]);
  const builder = await opened(request, [chain, blueprint, sources]);
  if (report.length === 0) throw reportNotFound(reportId, "report_id");
  const locks = report[0].lockedFilters ?? [];
  if (!(await lockedFiltersFit(builder.tables, locks, "by name"))) throw staleReportLockError();
  return run(request, builder, query, locks);
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

export async function exportQuery(
  request: BuilderRequest,
  input: { query: ReportQuery; format: "csv" | "xlsx"; file_name?: string; report_id?: string },
) {
  const result = await runQuery(request, input.query, input.report_id);
  const fileName = exportFileName(input.file_name, input.format);
  if (input.format === "csv") return { fileName, contentType: "text/csv; charset=utf-8", body: resultCsv(result) };
  const sheet = fileName.replace(/\.xlsx$/i, "") || input.query.dataset;
  const workbook = new Uint8Array(await xlsx([{ name: sheet, columns: result.columns, rows: result.rows }]));
  return { fileName, contentType: XLSX_CONTENT_TYPE, body: workbook };
}

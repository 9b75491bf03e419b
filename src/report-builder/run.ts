import type { StoredTable } from "../blueprints/schemas";
import type { RoundTripCounter } from "../db/client";
import { reachable, runSourceQueries, type DataSource } from "../data/query-runner";
import { dialectOf, type DataSourceKind } from "../data/sources/kinds";
import type { Dialect, PlaceholderContext } from "../data/placeholders";
import { config } from "../config";
import { ApiError } from "../http/errors";
import { readOnlyProblem } from "../lib/sql-read-only";
import { log } from "../lib/log";
import { offsetTransitions } from "../lib/zone-offsets";
import type { QueryCachePolicy } from "../data/query-cache";
import { compileReportQuery, type CompiledQuery } from "./compiler";
import type { ReportFilter } from "../data/filters";
import type { ReportQuery, ReportResult, ResultColumn } from "./query";

/** QUERY_ROW_LIMIT (default 10000) and QUERY_TIMEOUT_MS (default 10 s), as for panels. */
export function queryLimits(env: object): { rowLimit: number; timeoutMs: number } {
  const { QUERY_ROW_LIMIT, QUERY_TIMEOUT_MS } = config(env);
  return { rowLimit: QUERY_ROW_LIMIT, timeoutMs: QUERY_TIMEOUT_MS };
}

export interface ReportRun {
  env: object;
  table: StoredTable;
  query: ReportQuery;
  locked: ReportFilter[];
  context: PlaceholderContext;
  /** The customer's computed mapping: schema id → data source id. */
  mapping: Record<string, string>;
  /** The data sources this customer may use (those of other access groups left out). */
  sources: DataSource[];
  dataRoundTrips?: RoundTripCounter;
  /** The table's `cache_ttl_seconds` with the customer's versions: results kept near the viewer. */
  cache?: QueryCachePolicy;
  /** The view's time zone (the token's, else the customer's computed one): buckets are its local days. Default UTC. */
  timezone?: string;
}

function unavailable(dataset: string, why: string): ApiError {
  return new ApiError("dataset_data_unavailable", `The data of dataset '${dataset}' is not available: ${why}`, "dataset");
}

/** Where a dataset's query runs for this customer, or 422 dataset_data_unavailable. */
export function sourceFor(run: Pick<ReportRun, "env" | "table" | "mapping" | "sources">): DataSource & { kind: DataSourceKind } {
  const { table } = run;
  const source = run.sources.find((s) => String(s.id) === run.mapping[String(table.schema_id)]);
  if (!source) throw unavailable(table.dataset_name, `no data source is set up for this customer (schema ${table.schema_id}).`);
  const kind = source.kind ?? "d1";
  if (!reachable(run.env, source)) {
    log("error", "report data source cannot run", { binding: source.binding, kind });
    throw unavailable(table.dataset_name, "its data source is not reachable.");
  }
  return { ...source, kind };
}

function compileInput(run: ReportRun, dialect: Dialect) {
  const { rowLimit } = queryLimits(run.env);
  return { table: run.table, query: run.query, locked: run.locked, dialect, context: run.context, rowLimit, timezone: run.timezone };
}

/** The compiled statement for this customer's data source (every check done, nothing run). */
export function compileFor(run: ReportRun): { compiled: CompiledQuery; source: DataSource & { kind: DataSourceKind } } {
  // Names and values first (400/422 on the query itself), then where it would run.
  const probe = compileReportQuery(compileInput(run, "sqlite"));
  const source = sourceFor(run);
  const dialect = dialectOf(source.kind);
  const compiled = dialect === "sqlite" ? probe : compileReportQuery(compileInput(run, dialect));
  // The vendor's query was checked when the blueprint was saved; checked again before it
  // runs, as saved and inside the exact statements sent.
  const problem =
    readOnlyProblem(run.table.query) ??
    readOnlyProblem(compiled.sql, [dialect]) ??
    (compiled.zoneRange ? readOnlyProblem(compiled.zoneRange.sql, [dialect]) : null);
  if (problem) {
    log("error", "report query refused", { dataset: run.table.dataset_name, problem });
    throw unavailable(run.table.dataset_name, "its query is not a read-only query.");
  }
  return { compiled, source };
}

/**
 * Runs a report query through the data-source runners of the dashboards: on D1 through a
 * Sessions API session (a nearby replica may answer), on PostgreSQL and MySQL inside a
 * `READ ONLY` transaction with the statement time limit, in UTC. At most `limit + 1` rows
 * come back; the extra one only says `truncated`. In a zone other than UTC, an engine
 * without a zone database (D1, MySQL) first answers the data's range (`zoneRange`).
 */
export async function runReport(run: ReportRun): Promise<ReportResult> {
  const first = compileFor(run);
  const { source } = first;
  const once = async (sql: string, params: CompiledQuery["params"], rowLimit: number) => {
    const outcome = (
      await runSourceQueries(run.env, source, [{ panelId: "report", sql, params }], {
        roundTrips: run.dataRoundTrips,
        cache: run.cache,
        limits: { rowLimit, utc: true },
      })
    ).get("report");
    if (outcome?.status !== "ok") {
      const message = outcome && outcome.status === "failed" ? outcome.message : undefined;
      // A timeout says so; any other database message may quote the vendor's SQL, so it stays in the log.
      throw unavailable(run.table.dataset_name, message && /took longer/.test(message) ? message : "the query could not be run.");
    }
    return outcome;
  };
  let compiled = first.compiled;
  if (compiled.zoneRange) {
    // No zone database (D1, MySQL without its time-zone tables): the data's range first, then the zone's offsets over it.
    const range = (await once(compiled.zoneRange.sql, compiled.zoneRange.params, 1)).rows[0] ?? {};
    const instants = Object.values(range)
      .filter((v): v is string => typeof v === "string")
      .map((v) => Date.parse(v))
      .filter((ms) => !Number.isNaN(ms));
    const [from, to] = instants.length ? [Math.min(...instants), Math.max(...instants)] : [Date.now(), Date.now()];
    compiled = compileReportQuery({
      ...compileInput(run, dialectOf(source.kind)),
      offsets: offsetTransitions(run.timezone ?? "UTC", from, to),
    });
  }
  // The extra row the statement asks for tells `truncated`: the runner keeps `limit` rows.
  const outcome = await once(compiled.sql, compiled.params, compiled.limit);
  const rows = outcome.rows.map((row) => typedRow(row, compiled.columns));
  return { columns: compiled.columns, rows, row_count: rows.length, truncated: outcome.truncated };
}

/**
 * A row as the API answers it on either database: only the result's columns, in order;
 * booleans as booleans (SQLite has 0/1), DATE as `YYYY-MM-DD`, DATETIME and TIMESTAMP as
 * ISO 8601 UTC with milliseconds (`2026-03-29T01:30:00.000Z`).
 */
export function typedRow(row: Record<string, unknown>, columns: ResultColumn[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of columns) out[column.name] = typedCell(row[column.name], column.type);
  return out;
}

function typedCell(value: unknown, type: ResultColumn["type"]): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "BOOLEAN":
      if (value === 1 || value === "1" || value === "t" || value === "true") return true;
      if (value === 0 || value === "0" || value === "f" || value === "false") return false;
      return value;
    case "DATE":
      return typeof value === "string" && /^\d{4}-\d\d-\d\d/.test(value) ? value.slice(0, 10) : value;
    case "DATETIME":
    case "TIMESTAMP": {
      if (typeof value !== "string" || !/^\d{4}-\d\d-\d\d/.test(value)) return value;
      const text = value.replace(" ", "T");
      const date = new Date(/Z|[+-]\d\d(:?\d\d)?$/.test(text.slice(10)) ? text : `${text}${text.length === 10 ? "T00:00:00" : ""}Z`);
      return Number.isNaN(date.getTime()) ? value : date.toISOString();
    }
    default:
      return value;
  }
}

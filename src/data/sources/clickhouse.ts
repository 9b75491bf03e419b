import { createClient, type ClickHouseClient, type ClickHouseSettings } from "@clickhouse/client-web";
import { log } from "../../lib/log";
import { lexSql } from "../../lib/sql-lexer";
import { openConnection, type StoredConnection } from "./clickhouse-connection";
import { clickhousePanelMessage, redactClickhouse, type ClickhouseSecrets } from "./clickhouse-messages";
import { exactNumber } from "./exact-number";
import { UNREACHABLE } from "./run-messages";
import {
  limitRows,
  rowLimitedSql,
  type PanelColumns,
  type PanelQuery,
  type PanelResult,
  type Row,
  type RunLimits,
  type SourceTrips,
} from "./types";
import type { Param } from "../placeholders";

/**
 * ClickHouse over its HTTP(S) interface, with the official fetch-based client
 * (@clickhouse/client-web). There is no session: every panel is one request carrying the
 * service's settings — `readonly=1` (the engine refuses writes, DDL, settings changes and
 * table functions itself; the text check of lib/sql-read-only.ts comes before it),
 * `max_execution_time` from QUERY_TIMEOUT_MS and `max_result_rows` = QUERY_ROW_LIMIT + 1 —
 * and the request's `database` (the data source's namespace, else its connection's). Values
 * go as server-side `{pN:Type}` parameters (`param_pN`), never in the text. The panels of a
 * render run in parallel.
 */
export interface ClickhouseTarget {
  env: { DATA_SOURCE_KEY?: string; ENVIRONMENT?: string };
  connection: StoredConnection | null | undefined;
}

/** Every request's settings; also how values come back: 64-bit integers and decimals as text (made exact numbers below), date-times as UTC instants. */
export function settingsFor(limits: RunLimits): ClickHouseSettings {
  return {
    readonly: "1",
    max_execution_time: Math.max(0.001, limits.timeoutMs / 1000),
    max_result_rows: String(Math.floor(limits.rowLimit) + 1),
    result_overflow_mode: "break",
    // The whole answer is produced before it is sent, so an error in the middle of it is an error, not half a JSON document.
    wait_end_of_query: 1,
    output_format_json_quote_64bit_integers: 1,
    output_format_json_quote_decimals: 1,
    date_time_output_format: "iso",
  } as ClickHouseSettings;
}

type Opened = { client: ClickHouseClient; secrets: ClickhouseSecrets; database: string | null };

async function opened(
  target: ClickhouseTarget,
  limits: RunLimits,
  namespace: string | null | undefined,
): Promise<Opened | { problem: string }> {
  const server = await openConnection(target.env, target.connection);
  if ("problem" in server) return server;
  const database = namespace ?? server.database;
  const client = createClient({
    url: server.url,
    username: server.user,
    password: server.password,
    ...(database ? { database } : {}),
    // A backstop in case the server-side limit did not hold.
    request_timeout: Math.max(1, Math.floor(limits.timeoutMs)) + 1000,
    compression: { response: false, request: false },
    clickhouse_settings: settingsFor(limits),
  });
  return { client, secrets: { password: server.password, user: server.user, url: server.url }, database };
}

/**
 * A query (what the read-only check lets through starts with SELECT or WITH) wrapped so the
 * server stops at rowLimit + 1 rows; `max_result_rows` with `result_overflow_mode=break` is
 * the engine's own stop (it may let the rest of a block through, which the wrapper does not).
 * Any other text goes as written, and `readonly=1` answers it.
 */
function rowLimited(sql: string, rowLimit: number): string {
  const first = lexSql(sql, "clickhouse").tokens.find((t) => t.kind !== "space" && t.kind !== "comment");
  const reads = first?.kind === "word" && /^(SELECT|WITH)$/i.test(first.text);
  return reads ? rowLimitedSql(sql, rowLimit) : sql;
}

/** `{ p1: v1, p2: v2, … }`: the parameters as the placeholders named them (placeholders.ts). */
function queryParams(params: Param[]): Record<string, Param> {
  return Object.fromEntries(params.map((value, i) => [`p${i + 1}`, value]));
}

type PanelWork<T> = (client: ClickHouseClient, query: PanelQuery) => Promise<T>;

async function eachPanel<T>(
  target: ClickhouseTarget,
  queries: PanelQuery[],
  limits: RunLimits,
  trips: SourceTrips,
  namespace: string | null | undefined,
  work: PanelWork<T>,
): Promise<Map<string, T>> {
  const results = new Map<string, T>();
  const open = await opened(target, limits, namespace);
  if ("problem" in open) {
    log("warn", "clickhouse data source cannot run", { problem: open.problem });
    for (const query of queries) results.set(query.panelId, { status: "failed", message: UNREACHABLE } as T);
    return results;
  }
  const timeoutMs = Math.max(1, Math.floor(limits.timeoutMs));
  await Promise.all(
    queries.map(async (query) => {
      trips.trips++;
      try {
        results.set(query.panelId, await work(open.client, query));
      } catch (error) {
        log("warn", "panel query failed", { panel: query.panelId, error: redactClickhouse(error, open.secrets) });
        results.set(query.panelId, { status: "failed", message: clickhousePanelMessage(error, timeoutMs, open.secrets, namespace) } as T);
      }
    }),
  );
  return results;
}

export function runClickhouse(
  target: ClickhouseTarget,
  queries: PanelQuery[],
  limits: RunLimits,
  trips: SourceTrips,
  namespace?: string | null,
): Promise<Map<string, PanelResult>> {
  return eachPanel<PanelResult>(target, queries, limits, trips, namespace, async (client, query) => {
    const result = await client.query({
      query: rowLimited(query.sql, limits.rowLimit),
      format: "JSON",
      query_params: queryParams(query.params),
    });
    const answer = (await result.json()) as { meta?: { name: string; type: string }[]; data?: Row[] };
    return limitRows(typedRows(answer.data ?? [], answer.meta ?? []), limits.rowLimit);
  });
}

/** Each panel's result columns without reading a row: `DESCRIBE (query)` (the server reports an unknown table or column then). */
export function describeClickhouse(
  target: ClickhouseTarget,
  queries: PanelQuery[],
  limits: RunLimits,
  trips: SourceTrips,
  namespace?: string | null,
): Promise<Map<string, PanelColumns>> {
  return eachPanel<PanelColumns>(target, queries, limits, trips, namespace, async (client, query) => {
    const result = await client.query({ query: `DESCRIBE (\n${query.sql}\n)`, format: "JSON", query_params: queryParams(query.params) });
    const answer = (await result.json()) as { data?: { name: string }[] };
    return { status: "ok", columns: (answer.data ?? []).map((column) => column.name) };
  });
}

// ---- types: numbers as numbers where exact, date-times as ISO 8601 UTC ----------------------

/** `Nullable(LowCardinality(Int64))` → `Int64`. */
function baseType(type: string): string {
  let inner = type;
  for (;;) {
    const wrapped = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(inner);
    if (!wrapped) return inner;
    inner = wrapped[1];
  }
}

function converter(type: string): ((value: unknown) => unknown) | null {
  const base = baseType(type);
  if (/^U?Int(64|128|256)$/.test(base) || /^Decimal/.test(base)) return (value) => (typeof value === "string" ? exactNumber(value) : value);
  if (/^DateTime(64)?(\(|$)/.test(base))
    return (value) => {
      if (typeof value !== "string") return value;
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? value : date.toISOString();
    };
  return null;
}

function typedRows(rows: Row[], meta: { name: string; type: string }[]): Row[] {
  const converters = meta.flatMap((column) => {
    const convert = converter(column.type);
    return convert ? [[column.name, convert] as const] : [];
  });
  if (converters.length === 0) return rows;
  for (const row of rows) {
    for (const [name, convert] of converters) {
      const value = row[name];
      if (value !== null && value !== undefined) row[name] = convert(value);
    }
  }
  return rows;
}

import type { Param } from "../placeholders";

export type Row = Record<string, unknown>;

/** One panel's outcome. `failed` carries a message the viewer may see (never a secret). */
export type PanelResult =
  | { status: "ok"; rows: Row[]; truncated: boolean }
  | { status: "no_mapping"; schemaId: number }
  | { status: "failed"; message?: string };

/** A panel's query prepared without fetching rows: its result columns, or why it cannot run. */
export type PanelColumns =
  | { status: "ok"; columns: string[] }
  | { status: "no_mapping"; schemaId: number }
  | { status: "failed"; message: string };

/** A panel's query with its placeholders already bound in the source's dialect. */
export interface PanelQuery {
  panelId: string;
  sql: string;
  params: Param[];
}

export interface RunLimits {
  /** Longest a statement may run (PostgreSQL: `statement_timeout`). */
  timeoutMs: number;
  /** Rows kept per panel; a panel with more is cut and says so. */
  rowLimit: number;
  /** PostgreSQL: run in the UTC time zone (report queries read DATETIME values as UTC). */
  utc?: boolean;
}

/** What one data source cost during one render. */
export interface SourceTrips {
  kind: "d1" | "postgres" | "mysql" | "clickhouse";
  /** Requests sent to the database, each waiting for its answer. */
  trips: number;
  /** Connections opened (PostgreSQL, MySQL; D1 bindings need none; ClickHouse: one HTTP request per panel, counted as trips). */
  connections: number;
}

/**
 * The statement that lets at most `rowLimit + 1` rows leave the database (the extra one tells
 * that the panel was cut): the database stops reading there, so a query that would return
 * millions of rows costs no more memory than the limit. Both SQLite and PostgreSQL read it.
 */
export function rowLimitedSql(sql: string, rowLimit: number): string {
  // Newlines keep a trailing `--` comment in the panel's SQL from swallowing the wrapper; the
  // read-only rule (balanced parentheses, one statement) keeps the SQL inside it.
  return `SELECT * FROM (\n${sql}\n) AS panel_rows LIMIT ${Math.floor(rowLimit) + 1}`;
}

/** The first `rowLimit` rows, marked when there were more. */
export function limitRows(rows: Row[], rowLimit: number): PanelResult {
  return { status: "ok", rows: rows.slice(0, rowLimit), truncated: rows.length > rowLimit };
}

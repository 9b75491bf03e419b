import { createConnection, type Connection, type FieldPacket } from "mysql2/promise";
import { log } from "../../lib/log";
import { lexSql } from "../../lib/sql-lexer";
import { exactNumber } from "./exact-number";
import { mysqlConnectionMessage, mysqlPanelMessage, isMysqlConnectionLost, redactMysql } from "./mysql-messages";
import { limitRows, type PanelColumns, type PanelQuery, type PanelResult, type Row, type RunLimits, type SourceTrips } from "./types";

/**
 * MySQL and MariaDB through Hyperdrive, read with mysql2 (`disableEval`: Workers cannot
 * compile code at run time). As for PostgreSQL, the database enforces what the read-only
 * check (lib/sql-read-only.ts) asks: one connection per data source per render, and every
 * panel inside one `START TRANSACTION READ ONLY`, where the session gets its statement time
 * limit, its row limit, UTC and the database (the data source's namespace) before any panel
 * runs. Hyperdrive pools in transaction mode, so only inside the transaction do these stick
 * to the connection that runs the panels — and a pooled connection's earlier tenant never
 * leaves its database behind for the next one. mysql2 never sends two statements in one
 * message (`multipleStatements` stays off), and values are bound server-side (`?`).
 */
export function runMysql(
  hyperdrive: Hyperdrive,
  queries: PanelQuery[],
  limits: RunLimits,
  trips: SourceTrips,
  namespace?: string | null,
): Promise<Map<string, PanelResult>> {
  return inReadOnlyTransaction<PanelResult>(hyperdrive, queries, limits, trips, namespace, async (connection, query) => {
    const [rows, fields] = await send(connection, rowLimitedMysql(query.sql, limits.rowLimit), query, limits.timeoutMs);
    return limitRows(typedRows(rows as Row[], fields ?? []), limits.rowLimit);
  });
}

/** Each panel's result columns without running it: the statement prepared (the server reports an unknown table or column then). */
export function describeMysql(
  hyperdrive: Hyperdrive,
  queries: PanelQuery[],
  limits: RunLimits,
  trips: SourceTrips,
  namespace?: string | null,
): Promise<Map<string, PanelColumns>> {
  return inReadOnlyTransaction<PanelColumns>(hyperdrive, queries, limits, trips, namespace, async (connection, query) => {
    const prepared = await connection.prepare({ sql: query.sql, timeout: limits.timeoutMs + 1000 });
    const columns = (prepared as unknown as { statement: { columns?: FieldPacket[] } }).statement.columns ?? [];
    void prepared.close();
    return { status: "ok", columns: columns.map((column) => column.name) };
  });
}

/**
 * The session's `sql_select_limit` stops every panel at `rowLimit + 1` rows inside the server.
 * A panel with a LIMIT of its own (which takes precedence over the setting) is wrapped in a
 * limited derived table instead. Not every panel is wrapped: MariaDB drops the ORDER BY of a
 * derived table that has no LIMIT, so the rows would come unordered.
 */
export function rowLimitedMysql(sql: string, rowLimit: number): string {
  let depth = 0;
  for (const token of lexSql(sql, "mysql").tokens) {
    if (token.kind === "symbol" && token.text === "(") depth++;
    else if (token.kind === "symbol" && token.text === ")") depth--;
    else if (depth === 0 && token.kind === "word" && token.text.toUpperCase() === "LIMIT") {
      return `SELECT * FROM (\n${sql}\n) AS panel_rows LIMIT ${Math.floor(rowLimit) + 1}`;
    }
  }
  return sql;
}

/** A panel with values goes as a prepared statement (the values bound by the server); one without, as one text statement. */
function send(connection: Connection, sql: string, query: PanelQuery, timeoutMs: number) {
  // A backstop in case the server-side limit did not hold.
  const options = { sql, timeout: timeoutMs + 1000 };
  return query.params.length > 0 ? connection.execute(options, query.params) : connection.query(options);
}

type PanelWork<T> = (connection: Connection, query: PanelQuery) => Promise<T>;

/** One connection, one `READ ONLY` transaction with the session's limits; the panels one after another. */
async function inReadOnlyTransaction<T>(
  hyperdrive: Hyperdrive,
  queries: PanelQuery[],
  limits: RunLimits,
  trips: SourceTrips,
  namespace: string | null | undefined,
  work: PanelWork<T>,
): Promise<Map<string, T>> {
  const results = new Map<string, T>();
  const secrets = [hyperdrive.connectionString, hyperdrive.password].filter((s) => typeof s === "string" && s.length > 0);
  const timeoutMs = Math.max(1, Math.floor(limits.timeoutMs));
  const database = namespace ?? hyperdrive.database;
  const failAll = (message: string) => {
    for (const query of queries) if (!results.has(query.panelId)) results.set(query.panelId, { status: "failed", message } as T);
  };
  let connection: Connection | undefined;
  try {
    trips.connections++;
    connection = await createConnection({
      host: hyperdrive.host,
      port: hyperdrive.port,
      user: hyperdrive.user,
      password: hyperdrive.password,
      database: hyperdrive.database,
      disableEval: true,
      connectTimeout: timeoutMs,
      // Dates as written (typed below), exact numbers as text until we know they are exact.
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      multipleStatements: false,
    });
    // An error on an idle connection is reported through its pending query; never let it go unhandled.
    connection.on("error", () => {});
  } catch (error) {
    log("warn", "mysql connection failed", { error: redactMysql(error, secrets) });
    failAll(mysqlConnectionMessage(error, namespace));
    return results;
  }
  try {
    // Our own texts (the values are our own numbers, the name one of letters, digits and `_`).
    trips.trips++;
    await connection.query("START TRANSACTION READ ONLY");
    await setSessionLimits(connection, limits, timeoutMs, trips, serverVersion(connection));
    trips.trips++;
    await connection.query(`USE \`${database.replaceAll("`", "``")}\``);
  } catch (error) {
    log("warn", "mysql session could not be prepared", { error: redactMysql(error, secrets) });
    failAll(mysqlConnectionMessage(error, namespace));
    connection.destroy();
    return results;
  }
  try {
    for (const query of queries) {
      try {
        trips.trips += query.params.length > 0 ? 2 : 1;
        results.set(query.panelId, await work(connection, query));
      } catch (error) {
        log("warn", "panel query failed", { panel: query.panelId, error: redactMysql(error, secrets) });
        results.set(query.panelId, { status: "failed", message: mysqlPanelMessage(error, timeoutMs, secrets) } as T);
        // A failed statement leaves a MySQL transaction open and usable; a lost connection does not.
        if (isMysqlConnectionLost(error)) throw error;
      }
    }
  } catch (error) {
    log("warn", "mysql connection failed", { error: redactMysql(error, secrets) });
    failAll(mysqlConnectionMessage(error, namespace));
  } finally {
    // Read only: closing the connection ends the transaction, so no COMMIT trip is needed.
    connection.destroy();
  }
  return results;
}

/** What the server said it is in its greeting (MariaDB says so: `5.5.5-10.11.6-MariaDB`). */
function serverVersion(connection: Connection): string {
  const core = (connection as unknown as { connection?: { _handshakePacket?: { serverVersion?: string } } }).connection;
  return core?._handshakePacket?.serverVersion ?? "";
}

/** sql_mode as the read-only check reads MySQL: backslashes escape, `"…"` is a string. */
const SQL_MODE = `TRIM(BOTH ',' FROM REPLACE(REPLACE(REPLACE(CONCAT(',', @@sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ','), ',ANSI_QUOTES,', ','), ',ANSI,', ','))`;

/**
 * The statement time limit, the row limit, UTC (TIMESTAMP values read as instants; offsets need
 * no time-zone tables) and the sql_mode the check assumes, in one statement. The limit's
 * name differs: MariaDB's `max_statement_time` (seconds), MySQL's `max_execution_time`
 * (milliseconds). The greeting says which is likely; the other is tried when the server does
 * not know the first (1193, unknown system variable).
 */
async function setSessionLimits(connection: Connection, limits: RunLimits, timeoutMs: number, trips: SourceTrips, version: string) {
  const rest = `sql_select_limit = ${Math.floor(limits.rowLimit) + 1}, time_zone = '+00:00', sql_mode = ${SQL_MODE}`;
  const mariadb = `SET SESSION max_statement_time = ${timeoutMs / 1000}, ${rest}`;
  const mysql = `SET SESSION max_execution_time = ${timeoutMs}, ${rest}`;
  const [first, second] = /mariadb/i.test(version) ? [mariadb, mysql] : [mysql, mariadb];
  try {
    trips.trips++;
    await connection.query(first);
  } catch (error) {
    if ((error as { errno?: number }).errno !== 1193) throw error;
    trips.trips++;
    await connection.query(second);
  }
}

// ---- types: numbers as numbers where exact, date-times as ISO 8601 UTC ----------------------
const TYPE = { decimal: 0, newDecimal: 246, longLong: 8, timestamp: 7, datetime: 12 } as const;

function typedRows(rows: Row[], fields: FieldPacket[]): Row[] {
  if (!Array.isArray(rows)) return [];
  const converters = fields.map((field) => [field.name, converter(field.columnType ?? field.type ?? -1)] as const);
  for (const row of rows) {
    for (const [name, convert] of converters) {
      const value = row[name];
      if (value === null || value === undefined) continue;
      row[name] = value instanceof Uint8Array ? hex(value) : convert(value);
    }
  }
  return rows;
}

function converter(type: number): (value: unknown) => unknown {
  switch (type) {
    case TYPE.decimal:
    case TYPE.newDecimal:
    case TYPE.longLong:
      return (value) => (typeof value === "string" ? exactNumber(value) : value);
    // DATETIME is read as UTC, TIMESTAMP as the instant it is (the session is in UTC).
    case TYPE.datetime:
    case TYPE.timestamp:
      return (value) => {
        if (typeof value !== "string") return value;
        const date = new Date(`${value.replace(" ", "T")}Z`);
        return Number.isNaN(date.getTime()) ? value : date.toISOString();
      };
    default:
      return (value) => value;
  }
}

/** Binary values (BLOB, BINARY, BIT) as `0x…` text. */
function hex(bytes: Uint8Array): string {
  return `0x${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

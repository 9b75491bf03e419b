import pg from "pg";
import * as pgCloudflare from "pg-cloudflare";
import { log } from "../../lib/log";
import { exactNumber } from "./exact-number";
import { errorText, NO_DATABASE, REFUSED_CREDENTIALS, timedOut, UNREACHABLE } from "./run-messages";
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

// The package's typed entry is its stub for other runtimes; the `workerd` build has the socket.
const { CloudflareSocket } = pgCloudflare as unknown as {
  CloudflareSocket: new (ssl: boolean) => { on(event: "error", listener: () => void): unknown };
};

/**
 * The Workers socket, given to pg explicitly (its own lookup fails under the test runner). The
 * socket reports a read on a socket we already closed as an `error` event after pg has stopped
 * listening; this listener keeps that from becoming an unhandled error.
 */
export function workersSocket(config: { ssl?: boolean }) {
  const socket = new CloudflareSocket(config.ssl ?? false);
  socket.on("error", () => {});
  return socket;
}

/**
 * PostgreSQL through Hyperdrive. Safety comes from the database too, not only from the
 * read-only check (lib/sql-read-only.ts): one
 * connection per data source per render, every panel inside one `READ ONLY` transaction
 * with `statement_timeout`, so PostgreSQL refuses any write (a writing function,
 * `nextval`, a write hidden in a CTE) and stops any slow statement, whatever the SQL.
 * Panels run one after another on that connection (a connection runs one statement at a
 * time); different data sources still run in parallel.
 */
export function runPostgres(
  hyperdrive: Hyperdrive,
  queries: PanelQuery[],
  limits: RunLimits,
  trips: SourceTrips,
  namespace?: string | null,
): Promise<Map<string, PanelResult>> {
  return inReadOnlyTransaction<PanelResult>(hyperdrive, queries, limits, trips, namespace, {
    run: async (client, query) => {
      const answer = await client.query(extended(rowLimitedSql(query.sql, limits.rowLimit), query));
      return limitRows(answer.rows as Row[], limits.rowLimit);
    },
    failed: (message) => ({ status: "failed", message }),
  });
}

/**
 * Each panel's result columns without fetching a row: the query wrapped in `LIMIT 0`, on the
 * same connection and in the same `READ ONLY` transaction (with its timeout) as a render.
 */
export function describePostgres(
  hyperdrive: Hyperdrive,
  queries: PanelQuery[],
  limits: RunLimits,
  trips: SourceTrips,
  namespace?: string | null,
): Promise<Map<string, PanelColumns>> {
  return inReadOnlyTransaction<PanelColumns>(hyperdrive, queries, limits, trips, namespace, {
    run: async (client, query) => {
      const answer = await client.query(extended(`SELECT * FROM (\n${query.sql}\n) AS panel_rows LIMIT 0`, query));
      return { status: "ok", columns: answer.fields.map((field) => field.name) };
    },
    failed: (message) => ({ status: "failed", message }),
  });
}

/**
 * Always the extended protocol, even without parameters (pg would send a text with no values
 * as a simple query, which may hold several statements): one statement per message, so the
 * server itself refuses a second one.
 */
function extended(text: string, query: PanelQuery): pg.QueryConfig {
  return { text, values: query.params, queryMode: "extended" } as pg.QueryConfig;
}

/** How one panel's query is run, and what a panel that could not run gets. */
interface PanelWork<T> {
  run: (client: pg.Client, query: PanelQuery) => Promise<T>;
  failed: (message: string) => T;
}

/** One connection, one `READ ONLY` transaction with `statement_timeout`; the panels one after another. */
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
  const client = new pg.Client({
    connectionString: hyperdrive.connectionString,
    connectionTimeoutMillis: timeoutMs,
    // A backstop in case the server-side timeout was lifted by the query itself.
    query_timeout: timeoutMs + 1000,
    types: { getTypeParser: typeParser as typeof pg.types.getTypeParser },
    stream: workersSocket,
  } as pg.ClientConfig);
  let ending = false;
  // An error on an idle connection is reported through its pending query; never let it go unhandled.
  client.on("error", (error) => {
    if (!ending) log("warn", "postgres connection error", { error: redact(error, secrets) });
  });
  const end = () => {
    ending = true;
    void client.end().catch(() => {});
  };

  const failAll = (message: string) => {
    for (const query of queries) if (!results.has(query.panelId)) results.set(query.panelId, work.failed(message));
  };
  // Our own text (the values are our own integers): one trip. Standard strings pin how
  // backslashes in '…' are read to the way the read-only check reads them. Report queries
  // read DATETIME values as UTC. A namespace (letters, digits, `_`: checked when saved) goes
  // first on the search path, for this transaction only.
  const searchPath = namespace
    ? `; SELECT set_config('search_path', '"${namespace.replaceAll('"', '""').replaceAll("'", "''")}", ' || current_setting('search_path'), true)`
    : "";
  const begin = `BEGIN READ ONLY; SET LOCAL statement_timeout = ${timeoutMs}; SET LOCAL standard_conforming_strings = on${limits.utc ? "; SET LOCAL TIME ZONE 'UTC'" : ""}${searchPath}`;

  try {
    trips.connections++;
    await client.connect();
  } catch (error) {
    log("warn", "postgres connection failed", { error: redact(error, secrets) });
    failAll(connectionMessage(error));
    end();
    return results;
  }
  try {
    trips.trips++;
    await client.query(begin);
    for (const query of queries) {
      try {
        trips.trips++;
        results.set(query.panelId, await work.run(client, query));
      } catch (error) {
        log("warn", "panel query failed", { panel: query.panelId, error: redact(error, secrets) });
        results.set(query.panelId, work.failed(panelMessage(error, timeoutMs)));
        if (isConnectionLost(error)) throw error;
        // The failed statement aborted the transaction; the remaining panels get a fresh one.
        trips.trips++;
        await client.query(`ROLLBACK; ${begin}`);
      }
    }
  } catch (error) {
    log("warn", "postgres connection failed", { error: redact(error, secrets) });
    failAll(connectionMessage(error));
  } finally {
    // Read only: ending the connection discards the transaction, so no COMMIT trip is needed.
    end();
  }
  return results;
}

// ---- messages: what a viewer sees; the details (redacted) go to the log --------------------
interface PgError {
  code?: string;
  message?: string;
}

/** The connection cannot carry the next panel: lost, refused, or still busy after our own deadline. */
function isConnectionLost(error: unknown): boolean {
  const { code, message = "" } = (error ?? {}) as PgError;
  if (code !== undefined) return /^(08|28|3D|57P0[1-3])/.test(code);
  return /terminated|closed|refused|reset|timeout|connect|network/i.test(message);
}

function connectionMessage(error: unknown): string {
  const { code } = (error ?? {}) as PgError;
  if (code?.startsWith("28")) return REFUSED_CREDENTIALS;
  if (code === "3D000") return NO_DATABASE;
  return UNREACHABLE;
}

function panelMessage(error: unknown, timeoutMs: number): string {
  const { code, message = "" } = (error ?? {}) as PgError;
  if (code === "57014" || (code === undefined && /Query read timeout/i.test(message))) {
    return timedOut(timeoutMs);
  }
  if (isConnectionLost(error)) return connectionMessage(error);
  // PostgreSQL's own message (e.g. "cannot execute nextval() in a read-only transaction").
  if (code !== undefined) return `The query failed: ${message}`;
  return "This panel's data could not be loaded.";
}

/** An error's text without the connection string or password. */
function redact(error: unknown, secrets: string[]): string {
  let text = errorText(error);
  for (const secret of secrets) text = text.split(secret).join("[redacted]");
  return text.replace(/postgres(?:ql)?:\/\/[^\s"']+/gi, "postgres://[redacted]");
}

// ---- types: numbers as numbers where exact, dates as ISO 8601 ------------------------------
const OID = {
  int8: 20,
  int2: 21,
  int4: 23,
  float4: 700,
  float8: 701,
  numeric: 1700,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  bytea: 17,
  time: 1083,
  timetz: 1266,
} as const;

function typeParser(oid: number, format?: string): (text: string) => unknown {
  switch (oid) {
    case OID.int8:
    case OID.numeric:
      return exactNumber;
    case OID.float4:
    case OID.float8:
      return (text) => {
        const value = Number(text);
        return Number.isFinite(value) ? value : text;
      };
    case OID.timestamptz:
      return (text) => {
        const date = new Date(text.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00"));
        return Number.isNaN(date.getTime()) ? text : date.toISOString();
      };
    case OID.timestamp:
      return (text) => (/^\d{4}-\d\d-\d\d \d/.test(text) ? text.replace(" ", "T") : text);
    case OID.date:
    case OID.interval:
    case OID.bytea:
    case OID.time:
    case OID.timetz:
      return (text) => text;
    default:
      return pg.types.getTypeParser(oid, format as "text");
  }
}

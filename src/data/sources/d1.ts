import { log } from "../../lib/log";
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

/**
 * Every panel of one D1 data source in one `batch` (one round trip). A failing batch is
 * retried statement by statement so one bad panel cannot blank the rest. The queries go
 * through a Sessions API session opened `first-unconstrained`: a read replica near the
 * viewer may answer (panels only read; a vendor's data a moment older than the primary's is
 * what a cached result shows anyway). Each query is wrapped so that SQLite stops after
 * `rowLimit + 1` rows: D1 answers a statement's rows all at once (no cursor), so the limit
 * has to be in the SQL for memory to stay bounded.
 */
export async function runD1(
  binding: D1Database,
  queries: PanelQuery[],
  limits: RunLimits,
  trips: SourceTrips,
): Promise<Map<string, PanelResult>> {
  const database = binding.withSession("first-unconstrained");
  const results = new Map<string, PanelResult>();
  const prepared: { panelId: string; statement: D1PreparedStatement }[] = [];
  for (const query of queries) {
    try {
      prepared.push({
        panelId: query.panelId,
        statement: database.prepare(rowLimitedSql(query.sql, limits.rowLimit)).bind(...query.params),
      });
    } catch (error) {
      log("warn", "panel query failed", { panel: query.panelId, error: String(error) });
      results.set(query.panelId, { status: "failed" });
    }
  }
  if (prepared.length === 0) return results;
  try {
    trips.trips++;
    const batch = await database.batch(prepared.map((p) => p.statement));
    for (const [i, result] of batch.entries()) results.set(prepared[i].panelId, limitRows(result.results as Row[], limits.rowLimit));
  } catch {
    await Promise.all(
      prepared.map(async ({ panelId, statement }) => {
        try {
          trips.trips++;
          results.set(panelId, limitRows((await statement.all()).results as Row[], limits.rowLimit));
        } catch (error) {
          log("warn", "panel query failed", { panel: panelId, error: String(error) });
          results.set(panelId, { status: "failed" });
        }
      }),
    );
  }
  return results;
}

/**
 * Each panel's result columns without fetching a row: the query wrapped in `LIMIT 0` (SQLite
 * stops before the first row) and read with its column names. D1 batches carry no column
 * names, so the statements go one by one, in parallel.
 */
export async function describeD1(
  database: D1Database,
  queries: PanelQuery[],
  _limits: RunLimits,
  trips: SourceTrips,
): Promise<Map<string, PanelColumns>> {
  const results = new Map<string, PanelColumns>();
  await Promise.all(
    queries.map(async (query) => {
      try {
        trips.trips++;
        // Newlines keep a trailing `--` comment in the panel's SQL from swallowing the wrapper.
        const [columns] = await database
          .prepare(`SELECT * FROM (\n${query.sql}\n) LIMIT 0`)
          .bind(...query.params)
          .raw<unknown[]>({ columnNames: true });
        results.set(query.panelId, { status: "ok", columns: (columns ?? []).map(String) });
      } catch (error) {
        results.set(query.panelId, { status: "failed", message: `the query failed: ${d1Message(error)}` });
      }
    }),
  );
  return results;
}

/** D1's message without its wrapping ("D1_ERROR: no such table: x: SQLITE_ERROR" → "no such table: x"). */
function d1Message(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .replace(/^(D1_ERROR|D1_EXEC_ERROR|Error):\s*/i, "")
    .replace(/:\s*SQLITE_[A-Z_]+$/, "")
    .trim();
}

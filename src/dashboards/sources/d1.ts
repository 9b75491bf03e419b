import { log } from "../../lib/log";
import { limitRows, type PanelQuery, type PanelResult, type Row, type RunLimits, type SourceTrips } from "./types";

/**
 * Every panel of one D1 data source in one `batch` (one round trip). A failing batch is
 * retried statement by statement so one bad panel cannot blank the rest. The queries go
 * through a Sessions API session opened `first-unconstrained`: a read replica near the
 * viewer may answer (panels only read; a vendor's data a moment older than the primary's is
 * what a cached result shows anyway).
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
      prepared.push({ panelId: query.panelId, statement: database.prepare(query.sql).bind(...query.params) });
    } catch (error) {
      log("warn", "panel query failed", { panel: query.panelId, error: String(error) });
      results.set(query.panelId, { status: "failed" });
    }
  }
  if (prepared.length === 0) return results;
  try {
    trips.trips++;
    const batch = await database.batch(prepared.map((p) => p.statement));
    batch.forEach((result, i) => results.set(prepared[i].panelId, limitRows(result.results as Row[], limits.rowLimit)));
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

import { countedD1, type RoundTripCounter } from "../db/client";
import { log } from "../lib/log";
import type { Definition, PanelDefinition } from "./definition";
import { bindPlaceholders, readOnlyProblem, type PlaceholderContext } from "./sql";

export type Row = Record<string, unknown>;
export type PanelResult =
  | { status: "ok"; rows: Row[]; truncated: boolean }
  | { status: "no_mapping"; schemaId: number }
  | { status: "failed" };

const MAX_ROWS = 5000;

interface PreparedPanel {
  panel: PanelDefinition;
  statement: D1PreparedStatement;
}

/**
 * Runs every data panel on the D1 data source that the customer's computed mapping
 * assigns to the panel's schema: one `batch` per data source, all sources in parallel.
 * A failing batch is retried statement by statement so one bad panel cannot blank the rest.
 */
export async function runPanels(
  env: object,
  definition: Definition,
  mapping: Record<string, string>,
  sources: { id: number; binding: string }[],
  context: PlaceholderContext,
  roundTrips?: RoundTripCounter,
): Promise<Map<string, PanelResult>> {
  const results = new Map<string, PanelResult>();
  const groups = new Map<string, PreparedPanel[]>();
  const bindingOf = new Map(sources.map((s) => [String(s.id), s.binding]));

  for (const panel of definition.panels) {
    if (panel.type === "text") continue;
    const schemaId = panel.schema_id as number;
    const binding = bindingOf.get(mapping[String(schemaId)] ?? "");
    if (!binding) {
      results.set(panel.id, { status: "no_mapping", schemaId });
      continue;
    }
    const database = (env as Record<string, unknown>)[binding] as D1Database | undefined;
    // Checked when the version was saved; checked again right before running.
    const problem = readOnlyProblem(panel.sql ?? "");
    if (!database || typeof database.prepare !== "function" || problem) {
      log("error", "panel cannot run", { panel: panel.id, binding, problem: problem ?? "binding is not a D1 database" });
      results.set(panel.id, { status: "failed" });
      continue;
    }
    const bound = bindPlaceholders(panel.sql ?? "", context);
    let statement: D1PreparedStatement;
    try {
      statement = database.prepare(bound.sql).bind(...bound.params);
    } catch (error) {
      log("warn", "panel query failed", { panel: panel.id, error: String(error) });
      results.set(panel.id, { status: "failed" });
      continue;
    }
    groups.set(binding, [...(groups.get(binding) ?? []), { panel, statement }]);
  }

  // Statements were prepared on the raw binding; batch() takes them as they are.
  await Promise.all(
    [...groups.entries()].map(async ([binding, prepared]) => {
      const raw = (env as Record<string, D1Database>)[binding];
      const database = roundTrips ? countedD1(raw, roundTrips) : raw;
      try {
        const batch = await database.batch(prepared.map((p) => p.statement));
        batch.forEach((result, i) => results.set(prepared[i].panel.id, asRows(result.results as Row[])));
      } catch {
        await Promise.all(
          prepared.map(async ({ panel, statement }) => {
            try {
              if (roundTrips) roundTrips.count++;
              results.set(panel.id, asRows((await statement.all()).results as Row[]));
            } catch (error) {
              log("warn", "panel query failed", { panel: panel.id, binding, error: String(error) });
              results.set(panel.id, { status: "failed" });
            }
          }),
        );
      }
    }),
  );
  return results;
}

function asRows(rows: Row[]): PanelResult {
  return { status: "ok", rows: rows.slice(0, MAX_ROWS), truncated: rows.length > MAX_ROWS };
}

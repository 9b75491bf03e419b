import { RoundTripCounter } from "../db/client";
import { config } from "../config";
import { log } from "../lib/log";
import { runCached, runPageCached, type PagePart, type QueryCachePolicy } from "./query-cache";
import { describeClickhouse, runClickhouse } from "./sources/clickhouse";
import type { StoredConnection } from "./sources/clickhouse-connection";
import { describeD1, runD1 } from "./sources/d1";
import { describeMysql, runMysql } from "./sources/mysql";
import { describePostgres, runPostgres } from "./sources/postgres";
import { bindingOfKind, dialectOf, type DataSourceKind } from "./sources/kinds";
import type { PanelColumns, PanelQuery, PanelResult, RunLimits, SourceTrips } from "./sources/types";
import { readOnlyProblem } from "../lib/sql-read-only";
import { bindPlaceholders, type PlaceholderContext } from "./placeholders";

export type { PanelColumns, PanelResult, Row } from "./sources/types";

/**
 * A panel as the runner sees it: text panels (no query) are skipped; a data panel names the
 * schema whose mapped data source runs its SQL. Dashboards' definitions fit this shape as they are.
 */
export interface PanelToRun {
  id: string;
  type: string;
  schema_id?: number;
  sql?: string;
}

/** What the runner needs of a dashboard definition: its panels. */
export interface PanelsToRun {
  panels: readonly PanelToRun[];
}

export interface DataSource {
  id: number;
  /** '' for ClickHouse (reached over `connection`). */
  binding: string;
  /** Absent on rows read before the kind existed: D1. */
  kind?: DataSourceKind;
  /** The schema (PostgreSQL) or database (MySQL, ClickHouse) its panels read; absent or null: the binding's (connection's) own. */
  namespace?: string | null;
  /** ClickHouse's server, its password sealed (sources/clickhouse-connection.ts). */
  connection?: StoredConnection | null;
}

/**
 * The round trips of one render to the data sources: in total (`count`) and per data source
 * id, with the connections each opened (reported outside production, like D1's).
 */
export class DataRoundTrips extends RoundTripCounter {
  readonly bySource = new Map<number, SourceTrips>();

  get connections(): number {
    return [...this.bySource.values()].reduce((sum, source) => sum + source.connections, 0);
  }

  /** `<data source id>=<round trips>`, comma-separated, by id. */
  describe(): string {
    return [...this.bySource.entries()]
      .sort(([a], [b]) => a - b)
      .map(([id, source]) => `${id}=${source.trips}`)
      .join(",");
  }
}

/** Runs one data source's panels (in its namespace, where it has one); one small runner per kind of database. */
type Runner = (
  binding: never,
  queries: PanelQuery[],
  limits: RunLimits,
  trips: SourceTrips,
  namespace?: string | null,
) => Promise<Map<string, PanelResult>>;

const runners: Record<DataSourceKind, Runner> = { d1: runD1, postgres: runPostgres, mysql: runMysql, clickhouse: runClickhouse };

/** Prepares one data source's panels without fetching rows: their result columns. */
type Describer = (
  binding: never,
  queries: PanelQuery[],
  limits: RunLimits,
  trips: SourceTrips,
  namespace?: string | null,
) => Promise<Map<string, PanelColumns>>;

const describers: Record<DataSourceKind, Describer> = {
  d1: describeD1,
  postgres: describePostgres,
  mysql: describeMysql,
  clickhouse: describeClickhouse,
};

/** What a runner is handed: the Worker's binding, or for ClickHouse its stored connection (opened by the runner). */
function targetOf(env: object, source: DataSource): never {
  if ((source.kind ?? "d1") === "clickhouse") return { env, connection: source.connection } as never;
  return (env as Record<string, never>)[source.binding];
}

/** Whether the source can be asked at all: a binding of its kind, or a ClickHouse connection. */
export function reachable(env: object, source: DataSource): boolean {
  const kind = source.kind ?? "d1";
  return kind === "clickhouse" ? Boolean(source.connection) : bindingOfKind(env, kind, source.binding) !== null;
}

/** What the query cache's key says of where rows come from: a changed namespace or server never answers from the old one's rows. */
function cacheWhere(source: DataSource): string {
  const where = source.connection
    ? `clickhouse:${source.connection.url}/${source.connection.user}/${source.connection.database ?? ""}`
    : source.binding;
  return source.namespace ? `${where}/${source.namespace}` : where;
}

/** QUERY_TIMEOUT_MS (default 10 s) and QUERY_ROW_LIMIT (default 10000 rows), from src/config.ts. */
function runLimits(env: object): RunLimits {
  const { QUERY_TIMEOUT_MS, QUERY_ROW_LIMIT } = config(env);
  return { timeoutMs: QUERY_TIMEOUT_MS, rowLimit: QUERY_ROW_LIMIT };
}

/** How one render (or builder query) runs its queries: what it counts, how it caches. */
export interface QueryRun {
  /** Round trips to the data sources on the request's path (a background refresh is not counted). */
  roundTrips?: RoundTripCounter;
  /** Results kept near the viewer (src/query-cache); absent = never cached. */
  cache?: QueryCachePolicy;
  /** Overrides of QUERY_ROW_LIMIT / QUERY_TIMEOUT_MS (a report query keeps its own `limit`, in UTC). */
  limits?: Partial<RunLimits>;
}

/**
 * One data source's queries (already bound in its dialect, already allowed to run): answered
 * from the query cache where it can, the rest in one call of the source's runner (D1: one
 * batch through a session; PostgreSQL: one connection, one read-only transaction).
 */
export async function runSourceQueries(
  env: object,
  source: DataSource,
  queries: PanelQuery[],
  run: QueryRun = {},
): Promise<Map<string, PanelResult>> {
  const part = sourcePart(env, source, queries, run);
  return runCached(part.source, part.queries, run.cache, part.run);
}

/** One data source's queries as the query cache sees them: what its key says of the source, and its runner. */
function sourcePart(env: object, source: DataSource, queries: PanelQuery[], run: QueryRun): PagePart {
  const kind = source.kind ?? "d1";
  const limits = { ...runLimits(env), ...run.limits };
  const binding = targetOf(env, source);
  return {
    // A namespace changed by update_data_source never answers from the old one's cached rows.
    source: { id: source.id, binding: cacheWhere(source), rowLimit: limits.rowLimit },
    queries,
    run: async (missing, background) => {
      const trips: SourceTrips = { kind, trips: 0, connections: 0 };
      try {
        return await runners[kind](binding, missing, limits, trips, source.namespace);
      } finally {
        const roundTrips = background ? undefined : run.roundTrips;
        if (roundTrips) roundTrips.count += trips.trips;
        if (roundTrips instanceof DataRoundTrips) roundTrips.bySource.set(source.id, trips);
      }
    },
  };
}

/**
 * Where each data panel runs: the data source that the customer's computed mapping assigns to
 * the panel's schema, with its query bound in that source's dialect. Panels that cannot run
 * (no mapping, a binding of the wrong kind, SQL that is not read-only) get their result here.
 */
export function routePanels(
  env: object,
  definition: PanelsToRun,
  mapping: Record<string, string>,
  sources: DataSource[],
  context: PlaceholderContext,
): { results: Map<string, PanelResult>; groups: Map<DataSource, PanelQuery[]> } {
  const results = new Map<string, PanelResult>();
  const groups = new Map<DataSource, PanelQuery[]>();
  const sourceOf = new Map(sources.map((s) => [String(s.id), s]));

  for (const panel of definition.panels) {
    const schemaId = panel.schema_id;
    if (panel.type === "text" || schemaId === undefined) continue;
    const source = sourceOf.get(mapping[String(schemaId)] ?? "");
    if (!source) {
      results.set(panel.id, { status: "no_mapping", schemaId });
      continue;
    }
    const kind = source.kind ?? "d1";
    if (!reachable(env, source)) {
      log("error", "panel cannot run", { panel: panel.id, binding: source.binding, problem: `binding is not a ${kind} binding` });
      results.set(panel.id, { status: "failed" });
      continue;
    }
    // Checked when the version was saved; checked again right before running, on the text
    // as saved and on the exact text sent to this database.
    const bound = bindPlaceholders(panel.sql ?? "", context, dialectOf(kind));
    const problem = readOnlyProblem(panel.sql ?? "") ?? readOnlyProblem(bound.sql, [dialectOf(kind)]);
    if (problem) {
      log("error", "panel query refused", { panel: panel.id, problem });
      results.set(panel.id, { status: "failed", message: `This panel's query was not run: ${problem}.` });
      continue;
    }
    groups.set(source, [...(groups.get(source) ?? []), { panelId: panel.id, ...bound }]);
  }
  return { results, groups };
}

/**
 * The result columns of every data panel, each query prepared on its data source (as
 * `runPanels` would run it) without fetching a row: what `dashboards validate --customer`
 * checks the columns a chart names against.
 */
export async function describePanels(
  env: object,
  definition: PanelsToRun,
  mapping: Record<string, string>,
  sources: DataSource[],
  context: PlaceholderContext,
): Promise<Map<string, PanelColumns>> {
  const { results, groups } = routePanels(env, definition, mapping, sources, context);
  const described = new Map<string, PanelColumns>();
  for (const [panelId, result] of results) {
    const message = result.status === "failed" ? result.message : undefined;
    described.set(
      panelId,
      result.status === "no_mapping" ? result : { status: "failed", message: message ?? "the data source's binding cannot run this query" },
    );
  }
  const limits = runLimits(env);
  await Promise.all(
    [...groups.entries()].map(async ([source, queries]) => {
      const kind = source.kind ?? "d1";
      const trips: SourceTrips = { kind, trips: 0, connections: 0 };
      for (const [panelId, result] of await describers[kind](targetOf(env, source), queries, limits, trips, source.namespace))
        described.set(panelId, result);
    }),
  );
  return described;
}

/**
 * Runs every data panel on the data source that the customer's computed mapping assigns
 * to the panel's schema: each data source gets its panels in one go (D1: one batch;
 * PostgreSQL: one connection, one read-only transaction), all sources in parallel. Panels
 * whose results are cached (`run.cache`) are not run; a page whose panels all hit calls no
 * data source and reads the cache once (runPageCached).
 */
export async function runPanels(
  env: object,
  definition: PanelsToRun,
  mapping: Record<string, string>,
  sources: DataSource[],
  context: PlaceholderContext,
  run: QueryRun = {},
): Promise<Map<string, PanelResult>> {
  const { results, groups } = routePanels(env, definition, mapping, sources, context);
  const parts = [...groups.entries()].map(([source, queries]) => sourcePart(env, source, queries, run));
  for (const [panelId, result] of await runPageCached(parts, run.cache)) results.set(panelId, result);
  return results;
}

import type { SQL } from "drizzle-orm";
import { customerChain, type CustomerViewRow } from "../customers/repository";
import { customerDataView } from "../data/customer-view";
import type { Database, RoundTripCounter } from "../db/client";
import { ApiError } from "../http/errors";
import { randomAlphanumeric } from "../lib/crypto";
import { readOnlyProblem } from "../lib/sql-read-only";
import { customerVersions, dashboardVersion, type QueryCacheReport } from "../data/query-cache";
import { runPanels, type QueryRun, type Row } from "../data/query-runner";
import type { Definition } from "./definition";
import { readingOrder } from "./layout";
import { renderDashboard, type Presentation } from "./render";
import type { PlaceholderContext } from "../data/placeholders";
import * as adminRepo from "../admin/repository";
import * as repo from "./repository";

// ---- administration -----------------------------------------------------------------------

export function createOrReplaceDashboard(db: Database, input: { embed_id?: string; name: string }) {
  return repo
    .upsertDashboard(db, input.embed_id ?? randomAlphanumeric(20), input.name)
    .then(([row]) => ({ embed_id: row.embedId, name: row.name }));
}

export async function listDashboards(db: Database) {
  return (await repo.listDashboards(db)).map((d) => ({ embed_id: d.embedId, name: d.name, versions: d.versions, tags: d.tags }));
}

export function dashboardNotFound(embedId: string, field = "embed_id"): ApiError {
  return new ApiError("dashboard_not_found", `Dashboard '${embedId}' does not exist.`, field);
}

/** The schema ids a definition's panels name (to look up with `adminRepo.existingSchemas`). */
export function schemaIdsOf(definition: Definition): number[] {
  return [...new Set(definition.panels.flatMap((p) => (p.schema_id === undefined ? [] : [p.schema_id])))];
}

/**
 * What a valid definition breaks beyond its shape, in the order the API reports: each panel
 * naming a schema that is not among `existing` (422 unknown_schema), then each panel whose
 * SQL is not one read-only statement (422 query_not_read_only). Saving and previewing stop
 * at the first; a check (`dashboards validate`) reports them all.
 */
export function definitionRuleErrors(definition: Definition, existing: { id: number }[]): ApiError[] {
  const known = new Set(existing.map((s) => s.id));
  const unknown = definition.panels.flatMap((panel, index) =>
    panel.schema_id !== undefined && !known.has(panel.schema_id)
      ? [new ApiError("unknown_schema", `Schema ${panel.schema_id} does not exist.`, `definition.panels.${index}.schema_id`)]
      : [],
  );
  const writing = definition.panels.flatMap((panel, index) => {
    const problem = panel.sql === undefined || panel.type === "text" ? null : readOnlyProblem(panel.sql);
    return problem
      ? [new ApiError("query_not_read_only", `Panel '${panel.id}' is not a read-only query: ${problem}.`, `definition.panels.${index}.sql`)]
      : [];
  });
  return [...unknown, ...writing];
}

/**
 * Saves a validated definition as the next version; schemas must exist (422 unknown_schema)
 * and every panel's SQL must be one read-only statement (422 query_not_read_only).
 */
export async function saveVersion(db: Database, input: { embed_id: string; definition: Definition; draft?: boolean }) {
  const [dashboard, schemas] = await db.batch([
    repo.dashboardByEmbedId(db, input.embed_id),
    adminRepo.existingSchemas(db, schemaIdsOf(input.definition)),
  ]);
  if (dashboard.length === 0) throw dashboardNotFound(input.embed_id);
  const [broken] = definitionRuleErrors(input.definition, schemas);
  if (broken) throw broken;
  const [version] = await repo.insertVersion(db, input.embed_id, input.definition, input.draft ?? false);
  return { version_number: version.versionNumber, draft: version.draft === 1 };
}

/** Which version `getVersion` reads: a number, a tag, or (neither) the newest version or draft. */
export interface VersionSelector {
  embed_id: string;
  version_number?: number;
  tag?: string;
}

/** One version as stored (a definition the API accepted), with its dashboard's name: what `dashboards pull` writes. */
export async function getVersion(db: Database, selector: VersionSelector) {
  const [dashboard, versions] = await db.batch([
    repo.dashboardNamed(db, selector.embed_id),
    repo.versionSelected(db, selector.embed_id, selector),
  ]);
  if (dashboard.length === 0) throw dashboardNotFound(selector.embed_id);
  if (versions.length === 0) {
    if (selector.tag !== undefined)
      throw new ApiError("dashboard_version_not_found", `Dashboard '${selector.embed_id}' has no tag '${selector.tag}'.`, "tag");
    if (selector.version_number !== undefined) {
      throw new ApiError(
        "dashboard_version_not_found",
        `Dashboard '${selector.embed_id}' has no version ${selector.version_number}.`,
        "version_number",
      );
    }
    throw new ApiError("no_dashboard_version", `Dashboard '${selector.embed_id}' has no version yet.`, "embed_id");
  }
  const [version] = versions;
  return {
    dashboard: { embed_id: selector.embed_id, name: dashboard[0].name },
    version: { version_number: version.versionNumber, draft: version.draft, definition: version.definition },
  };
}

export async function tagVersion(db: Database, input: { embed_id: string; tag: string; version_number: number }) {
  const [[tagged], dashboard] = await db.batch([
    repo.tagVersion(db, input.embed_id, input.tag, input.version_number),
    repo.dashboardByEmbedId(db, input.embed_id),
  ]);
  if (dashboard.length === 0) throw dashboardNotFound(input.embed_id);
  if (!tagged)
    throw new ApiError(
      "dashboard_version_not_found",
      `Dashboard '${input.embed_id}' has no version ${input.version_number}.`,
      "version_number",
    );
}

// ---- rendering ------------------------------------------------------------------------------

/** Which version to render: a tag in order of preference, falling back to the newest or not. */
export interface VersionPolicy {
  tags: string[];
  fallBackToNewest: boolean;
}

export const newest: VersionPolicy = { tags: [], fallBackToNewest: true };

export interface RenderRequest {
  embedId: string;
  /** Selects the viewing customer (e.g. by token hash or by provided_id and access group). */
  customer: SQL;
  versions: VersionPolicy;
  variables: Record<string, unknown>;
  /** Counts the round trips to the data sources (reported outside production). */
  dataRoundTrips?: RoundTripCounter;
  /** Notes whether the panels' results came from the query cache (`X-Query-Cache`). */
  cacheReport?: QueryCacheReport;
  /** Work allowed to outlive the response: storing results, refreshing stale ones. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** A last check on the customer found (e.g. a signed token's fingerprint); false = not found. */
  accept?: (customer: CustomerViewRow) => Promise<boolean>;
}

/** Everything a render or a CSV needs before any panel runs. */
export interface LoadedDashboard {
  definition: Definition;
  dashboardName: string;
  context: PlaceholderContext;
  isDemo: boolean;
  mapping: Record<string, string>;
  sources: Awaited<ReturnType<typeof repo.dataSources>>;
  /** The invalidation versions of the customer chain and the dashboard, in every cache key. */
  cacheVersions: string[];
}

/** How a render's queries are counted and cached: the parts of a `RenderRequest` that say so. */
export type RenderRun = Pick<RenderRequest, "dataRoundTrips" | "cacheReport" | "waitUntil">;

/** The query run of a loaded dashboard: its TTL, its versions, the request's counters. */
function queryRun(loaded: LoadedDashboard, run: RenderRun): QueryRun {
  return {
    roundTrips: run.dataRoundTrips,
    cache: {
      ttlSeconds: loaded.definition.cache_ttl_seconds ?? 0,
      versions: loaded.cacheVersions,
      waitUntil: run.waitUntil,
      report: run.cacheReport,
    },
  };
}

/**
 * The version `chooseVersion` found, or the error that says why there is none to render:
 * no such dashboard (404), no such environment (404), no version at all (422).
 */
export function versionToRender(
  choice: repo.VersionChoice[],
  embedId: string,
  versions: VersionPolicy,
): repo.VersionChoice & { definition: Definition } {
  if (choice.length === 0) throw dashboardNotFound(embedId, "dashboard_embed_id");
  const [version] = choice;
  if (version.definition !== null) return { ...version, definition: version.definition };
  if (!versions.fallBackToNewest) {
    throw new ApiError(
      "dashboard_version_not_found",
      `Dashboard '${embedId}' has no environment '${versions.tags.join("', '")}'.`,
      "environment",
    );
  }
  throw new ApiError("no_dashboard_version", `Dashboard '${embedId}' has no version or draft to render.`, "dashboard_embed_id");
}

/**
 * What a render reads before its panels run — the customer chain, the version to show and
 * the data sources — as statements for one batch (which may carry others: starting a
 * delivery job reads them with its checks, see `dashboardFromReads`).
 */
export function dashboardReads(db: Database, request: Pick<RenderRequest, "customer" | "embedId" | "versions">) {
  return [
    customerChain(db, request.customer),
    repo.chooseVersion(db, request.embedId, request.versions.tags, request.versions.fallBackToNewest),
    repo.dataSources(db),
  ] as const;
}

/** The rows `dashboardReads` answers, in its order. */
export type DashboardReadRows = readonly [CustomerViewRow[], repo.VersionChoice[], LoadedDashboard["sources"]];

/** The dashboard to render from the rows of `dashboardReads`; a customer or version not found is an error. */
export async function dashboardFromReads(request: RenderRequest, [chain, choice, sources]: DashboardReadRows): Promise<LoadedDashboard> {
  if (chain.length === 0 || (request.accept && !(await request.accept(chain[0])))) {
    throw new ApiError("customer_not_found", "The customer does not exist.");
  }
  const version = versionToRender(choice, request.embedId, request.versions);
  return definitionForCustomer(version.definition, version.dashboardName, chain, sources, request.variables, [
    ...customerVersions(chain),
    dashboardVersion(version),
  ]);
}

/**
 * A definition as one customer sees it: placeholders resolved from the customer's chain
 * (computed properties), the variables' defaults under the given values, and the computed
 * mapping that picks each panel's data source; `versions` go into its query-cache keys
 * (`cacheVersions`). Saved versions and unsaved previews alike.
 */
export function definitionForCustomer(
  definition: Definition,
  dashboardName: string,
  chain: CustomerViewRow[],
  sources: LoadedDashboard["sources"],
  variables: Record<string, unknown>,
  versions: string[],
): LoadedDashboard {
  const defaults = Object.fromEntries(definition.variables.filter((v) => v.default !== undefined).map((v) => [v.name, v.default]));
  const view = customerDataView(chain, sources, { ...defaults, ...variables });
  return { definition, dashboardName, ...view, cacheVersions: versions };
}

/** Reads the dashboard to render in one D1 round trip: the customer chain, the version to show and the data sources. */
async function readDashboard(db: Database, request: RenderRequest): Promise<LoadedDashboard> {
  return dashboardFromReads(request, await db.batch(dashboardReads(db, request)));
}

/**
 * The dashboard rendered for one customer at a page width: one D1 round trip for customer,
 * version and data sources, then one batch per data source for the panels' queries.
 */
export async function renderForCustomer(
  db: Database,
  env: object,
  request: RenderRequest,
  presentation: Presentation = {},
): Promise<string> {
  return renderLoaded(env, await readDashboard(db, request), presentation, request);
}

/**
 * A loaded dashboard rendered: one batch per data source for the panels' queries (only those
 * the query cache does not answer), then the HTML.
 */
export async function renderLoaded(
  env: object,
  loaded: LoadedDashboard,
  presentation: Presentation = {},
  run: RenderRun = {},
): Promise<string> {
  const results = await runPanels(env, loaded.definition, loaded.mapping, loaded.sources, loaded.context, queryRun(loaded, run));
  return renderDashboard({ ...loaded, results, ...presentation });
}

/**
 * One data panel's rows, authorised and computed exactly as on the page (same customer,
 * version, variables and data source): what its CSV export holds.
 */
export async function panelRows(db: Database, env: object, request: RenderRequest, panelId: string): Promise<Row[]> {
  return (await panelData(db, env, request, panelId)).rows;
}

/** A data panel's title and rows (as `panelRows`): what an alert evaluates. */
export async function panelData(
  db: Database,
  env: object,
  request: RenderRequest,
  panelId: string,
): Promise<{ title: string; rows: Row[] }> {
  return dataOfPanel(env, await readDashboard(db, request), request.embedId, panelId, request);
}

/** One data panel's title and rows of a loaded dashboard (saved or previewed), as its CSV holds them. */
export async function dataOfPanel(
  env: object,
  loaded: LoadedDashboard,
  embedId: string,
  panelId: string,
  run: RenderRun = {},
): Promise<{ title: string; rows: Row[] }> {
  const panel = loaded.definition.panels.find((p) => p.id === panelId);
  if (!panel || panel.type === "text") {
    throw new ApiError("panel_not_found", `Dashboard '${embedId}' has no data panel '${panelId}'.`, "panel_id");
  }
  const results = await runPanels(
    env,
    { ...loaded.definition, panels: [panel] },
    loaded.mapping,
    loaded.sources,
    loaded.context,
    queryRun(loaded, run),
  );
  const result = results.get(panel.id) ?? { status: "failed" as const };
  if (result.status === "no_mapping") {
    throw new ApiError("panel_data_unavailable", `No data source is set up for this customer (schema ${result.schemaId}).`, "panel_id");
  }
  if (result.status === "failed")
    throw new ApiError("panel_data_unavailable", result.message ?? "This panel's data could not be loaded.", "panel_id");
  return { title: panel.title, rows: result.rows };
}

/** A data panel's title and what its query gave this customer, for a spreadsheet. */
export interface PanelTable {
  title: string;
  rows: Row[];
  /** Why there are no rows (no mapping, a failed query); undefined when the query ran. */
  problem?: string;
}

/**
 * Every data panel of the dashboard, in reading order (`y`, then `x`), with its rows for this
 * customer, computed as on the page: what an `xlsx` export holds, one sheet per panel.
 */
export async function panelTables(db: Database, env: object, request: RenderRequest): Promise<PanelTable[]> {
  const loaded = await readDashboard(db, request);
  const panels = readingOrder(loaded.definition.panels.filter((p) => p.type !== "text"));
  const results = await runPanels(
    env,
    { ...loaded.definition, panels },
    loaded.mapping,
    loaded.sources,
    loaded.context,
    queryRun(loaded, request),
  );
  return panels.map((panel) => {
    const result = results.get(panel.id) ?? { status: "failed" as const };
    const title = panel.title || panel.id;
    if (result.status === "ok") return { title, rows: result.rows };
    if (result.status === "no_mapping")
      return { title, rows: [], problem: `No data source is set up for this customer (schema ${result.schemaId}).` };
    return { title, rows: [], problem: result.message ?? "This panel's data could not be loaded." };
  });
}

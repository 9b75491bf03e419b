import type { SQL } from "drizzle-orm";
import { customerChain, type CustomerViewRow } from "../customers/repository";
import { customerDataView } from "../data/customer-view";
import type { PlaceholderContext } from "../data/placeholders";
import { customerVersions, dashboardVersion, type QueryCacheReport } from "../data/query-cache";
import { runPanels, type QueryRun, type Row } from "../data/query-runner";
import type { Database, RoundTripCounter } from "../db/client";
import { ApiError } from "../http/errors";
import type { Definition } from "./definition";
import { readingOrder } from "./layout";
import { dashboardNotFound } from "./not-found";
import { type PageOptions, renderDashboard } from "./render";
import * as repo from "./repository";
import { type Presentation, type PresentationChoice, resolvePresentation, type ThemeRow } from "../view/presentation";
import { themesOfCustomerGroup } from "../themes/repository";
import { type ViewerCacheKey, viewerReads } from "./viewer-cache";

// A dashboard as one customer sees it: which version (tags, fallback), the customer's data
// view (placeholders, mapping, data sources, cache versions), then the page rendered, one
// panel's rows (CSV, alerts) or every data panel's table (xlsx). The vendor's version
// administration is src/dashboards/versions.ts.

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
  /** The token's or the delivery's own theme, locale, time zone (else the customer's computed ones). */
  presentation?: PresentationChoice;
  /** Take the customer's reads from the location's cache (src/dashboards/viewer-cache.ts); absent = read D1. */
  viewerCache?: ViewerCacheKey;
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
  /** Theme, locale and time zone of this view, resolved once (src/view/presentation.ts). */
  view: Presentation;
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
    themesOfCustomerGroup(db, request.customer),
  ] as const;
}

/** The rows `dashboardReads` answers, in its order. */
export type DashboardReadRows = readonly [CustomerViewRow[], repo.VersionChoice[], LoadedDashboard["sources"], ThemeRow[]];

/** The dashboard to render from the rows of `dashboardReads`; a customer or version not found is an error. */
export async function dashboardFromReads(
  request: RenderRequest,
  [chain, choice, sources, themes]: DashboardReadRows,
): Promise<LoadedDashboard> {
  if (chain.length === 0 || (request.accept && !(await request.accept(chain[0])))) {
    throw new ApiError("customer_not_found", "The customer does not exist.");
  }
  const version = versionToRender(choice, request.embedId, request.versions);
  const loaded = definitionForCustomer(version.definition, version.dashboardName, chain, sources, request.variables, [
    ...customerVersions(chain),
    dashboardVersion(version, chain[0].accessGroupId),
  ]);
  return { ...loaded, view: resolvePresentation(request.presentation ?? {}, chain, themes) };
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
  return { definition, dashboardName, ...view, cacheVersions: versions, view: resolvePresentation({}, chain, []) };
}

/** Reads the dashboard to render in one D1 round trip: the customer chain, the version to show and the data sources. */
export async function readDashboard(db: Database, request: RenderRequest): Promise<LoadedDashboard> {
  const { tags, fallBackToNewest } = request.versions;
  const parts = [request.embedId, tags.join(","), String(fallBackToNewest)];
  const { accept } = request;
  const rows = await viewerReads(request.viewerCache, parts, () => db.batch(dashboardReads(db, request)), {
    waitUntil: request.waitUntil,
    // A signed token or share link made after a refresh elsewhere: the kept customer does not know its token yet.
    usable: accept ? ([chain]) => accept(chain[0]) : undefined,
  });
  return dashboardFromReads(request, rows);
}

/**
 * The dashboard rendered for one customer at a page width: one D1 round trip for customer,
 * version and data sources, then one batch per data source for the panels' queries.
 */
export async function renderForCustomer(
  db: Database,
  env: object,
  request: RenderRequest,
  presentation: PageOptions = {},
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
  presentation: PageOptions = {},
  run: RenderRun = {},
): Promise<string> {
  // `{{viewer.locale}}` and `{{viewer.timezone}}` bind the view's own (they are part of each query's cache key).
  const context = {
    ...loaded.context,
    viewer: { locale: loaded.view.locale, timezone: loaded.view.timezone },
  };
  const results = await runPanels(env, loaded.definition, loaded.mapping, loaded.sources, context, queryRun(loaded, run));
  return renderDashboard({ ...loaded, context, results, ...presentation });
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

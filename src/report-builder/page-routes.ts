import BUILDER_SCRIPT from "#browser/report-builder.js";
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { backgroundOf } from "../http/background";
import type { AppContext, AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { declaredRoute } from "../http/openapi";
import { pageSecurityHeaders } from "../http/pages";
import { DataRoundTrips } from "../data/query-runner";
import { QueryCacheReport } from "../data/query-cache";
import { verifyBuilderToken } from "../tokens/builder";
import { reportPanelHtml } from "./chart";
import { BUILDER_SCRIPT_PATH, builderErrorPage, builderPage, type BuilderPageInput } from "./page";
import { Chart, ReportQuery, ResultColumn } from "./query";
import { builderRequest, builderRoute, ReportIdField } from "./routes";
import { blueprintExists, builderPageData, builderView } from "./page-data";
import { runQuery } from "./queries";
import { lockView } from "./locks";
import { config } from "../config";

/**
 * What the builder page itself needs from the server (docs/report-builder.md): the page,
 * its script, and `/view` — the query answered together with its chart drawn by the
 * dashboards' renderer, so that each change in the page is one round trip.
 */
const tags = ["Report builder"];

const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

const builderPageRoute = declaredRoute({
  access: "builder token in query",
  method: "get",
  path: "/report-builder/{embedId}",
  operationId: "reportBuilderPage",
  tags,
  summary: "The report builder (an HTML page for an iframe)",
  description:
    "Authorised by `token` (a signed token minted with `blueprint_id`). Runs one script, `/report-builder.js`, served here and allowed by its URL; " +
    "loads nothing from another origin. `report` opens a saved report first. Error pages carry `data-status`.",
  request: {
    params: z.object({ embedId: z.string().openapi({ description: "The blueprint's embed id." }) }),
    query: z.object({
      token: z.string().optional().openapi({ description: "A builder token from `/api/generate_embed_token/` (with `blueprint_id`)." }),
      report: z.string().optional().openapi({ description: "A saved report to open." }),
      width: z.string().optional().openapi({ description: "The frame's width in px (embed.js sends it; the page lays itself out)." }),
    }),
  },
  responses: {
    200: html("The builder."),
    401: html("No valid builder token (expired, altered, revoked, a dashboard's token, or one for another blueprint). No data."),
    404: html("Unknown blueprint."),
    429: html("Too many builder requests for this customer this minute."),
  },
});

const builderScriptRoute = declaredRoute({
  access: "public",
  method: "get",
  path: BUILDER_SCRIPT_PATH,
  operationId: "reportBuilderScript",
  tags,
  summary: "The report builder page's script",
  responses: { 200: { description: "JavaScript", content: { "application/javascript": { schema: z.string() } } } },
});

const ViewBody = z
  .object({
    query: ReportQuery,
    chart: Chart,
    width: z.number().int().min(240).max(4096).optional().openapi({ description: "The chart's width in px (default 960)." }),
    report_id: ReportIdField,
  })
  .openapi("ReportViewRequest");

const viewRoute = builderRoute({
  method: "post",
  database: "session",
  notFound: "retry on primary",
  path: "/report-builder/{embedId}/view",
  operationId: "builderView",
  summary: "Run a report query and draw its chart (what the builder page shows)",
  description:
    "What `POST /report-builder/{id}/query` answers (same token, errors and rate limit), plus `chart_html`: the chart drawn by the dashboards' " +
    "renderer for `width` px (empty for a `table` chart: the page draws its own sortable table). One round trip per change in the page.",
  body: ViewBody,
  response: z.object({
    success: z.literal(1),
    columns: z.array(ResultColumn),
    rows: z.array(z.record(z.string(), z.unknown())),
    row_count: z.number().int(),
    truncated: z.boolean(),
    chart_html: z.string(),
  }),
});

/** A panel sized for the chart area: the grid's side padding is added back around it. */
function panelWidth(chartWidth: number): number {
  return chartWidth + 2 * (chartWidth + 24 < 640 ? 12 : 16);
}

export function registerReportBuilderPageRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(builderScriptRoute, (c) => {
    c.header("Content-Type", "application/javascript; charset=utf-8");
    c.header("Cache-Control", "public, max-age=300");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(BUILDER_SCRIPT, 200);
  });

  app.openapi(builderPageRoute, async (c) => {
    const embedId = c.req.param("embedId");
    const query = c.req.query();
    const script = { src: new URL(BUILDER_SCRIPT_PATH, c.req.url).href };
    const opened = await openPage(c, embedId, query.token ?? "");
    if ("status" in opened) {
      await pageSecurityHeaders(c, undefined, script);
      return c.html(builderErrorPage(opened.title, opened.text, opened.status), opened.status);
    }
    await pageSecurityHeaders(c, opened.frameAncestors, script);
    return c.html(builderPage({ ...opened.page, embedId, report: query.report || undefined }), 200);
  });

  app.openapi(viewRoute, async (c) => {
    const trips = new DataRoundTrips();
    const cacheReport = new QueryCacheReport();
    const body = c.req.valid("json");
    const request = builderRequest(c, trips, cacheReport);
    // A chart is drawn in the view's theme (series, axes, font), read beside the query.
    const drawn = body.chart.type === "table" ? undefined : builderView(request);
    drawn?.catch(() => undefined);
    const result = await runQuery(request, body.query, body.report_id);
    if (config(c.env).DIAGNOSTICS) {
      c.header("X-Data-Round-Trips", String(trips.count));
      for (const [name, value] of Object.entries(cacheReport.headers())) c.header(name, value);
    }
    const width = body.width ?? 960;
    const chartHtml =
      body.chart.type === "table"
        ? ""
        : `<div class="grid">${reportPanelHtml(result, body.chart, { width: panelWidth(width), rows: width < 480 ? 5 : 6, view: await drawn })}</div>`;
    return c.json({ success: 1 as const, ...result, chart_html: chartHtml }, 200);
  });
}

type OpenedPage =
  | { page: Omit<BuilderPageInput, "embedId" | "report">; frameAncestors?: string }
  | { status: 401 | 404 | 429; title: string; text: string };

/**
 * The page's checks, as the JSON API's: a builder token for this blueprint (401), its
 * customer still holding the token it was minted for (401), the blueprint still there (404).
 * A token for another blueprint on an embed id that names none is a 404: there is nothing here.
 */
async function openPage(c: AppContext, embedId: string, token: string): Promise<OpenedPage> {
  const refused = { status: 401 as const, title: "Not authorised", text: "This report builder link is not valid or has expired." };
  const claims = token ? await verifyBuilderToken(c.env, token) : null;
  if (!claims) return refused;
  if (claims.bpe !== embedId) {
    return (await blueprintExists(c.get("db"), embedId))
      ? refused
      : { status: 404, title: "Not found", text: "There is no report builder here." };
  }
  try {
    const data = await builderPageData({ db: c.get("db"), env: c.env, claims, waitUntil: backgroundOf(c) });
    return {
      page: { ...data, canSave: claims.save, lockedFilters: (claims.flt ?? []).map(lockView) },
      frameAncestors: claims.origins?.join(" "),
    };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === "invalid_embed_token") return { ...refused, text: error.message };
    if (error.code === "blueprint_not_found") return { status: 404, title: "Not found", text: error.message };
    if (error.code === "rate_limited")
      return { status: 429, title: "Too many requests", text: "Too many requests right now; try again in a minute." };
    throw error;
  }
}

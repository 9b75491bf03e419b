import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { backgroundOf } from "../http/background";
import { answeringNotFound, ApiError } from "../http/errors";
import { declaredRoute, ErrorSchema } from "../http/openapi";
import { errorPage, pageSecurityHeaders } from "../http/pages";
import { QueryCacheReport } from "../data/query-cache";
import { subscribeControl, subscribeScriptHash } from "./subscribe-control";
import { rowsToCsv } from "./csv";
import { DataRoundTrips } from "../data/query-runner";
import { pageWidth } from "./layout";
import { panelRows, readDashboard, renderLoaded } from "./customer-dashboard";
import { isRefusal, resolveViewer } from "./viewer";
import { drillThrough } from "./drill-through";
import { CLICK_DATA_MARK, clickScriptHash } from "./clicks";
import { config } from "../config";
import { retryNotFoundOnPrimary } from "../http/replica-retry";
import { registerEmbedScriptRoutes } from "./embed-script-routes";

// The public embedding routes: minting signed embed tokens, the embed page, its panels' CSV
// (and, registered first, embed.js and its versioned path: ./embed-script-routes.ts). Who may look is decided in ./viewer.ts.

const tags = ["Embedding"];

/** The page for a render error: 401 for an unknown customer, 404/422 as the error says. */
export function errorPageFor(error: ApiError): { html: string; status: 401 | 404 | 422 } | null {
  answeringNotFound(error.code);
  if (error.code === "customer_not_found")
    return {
      html: errorPage("Not authorised", "This link is no longer valid (the customer token may have been refreshed).", 401),
      status: 401,
    };
  if (error.code === "dashboard_not_found" || error.code === "dashboard_version_not_found")
    return { html: errorPage("Dashboard not found", error.message, 404), status: 404 };
  if (error.code === "no_dashboard_version") return { html: errorPage("Nothing to show yet", error.message, 422), status: 422 };
  return null;
}

// ---- routes ------------------------------------------------------------------------------------

const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

const embedPage = declaredRoute({
  access: "embed token in query",
  method: "get",
  path: "/embed/{embedId}",
  operationId: "embedPage",
  middleware: [retryNotFoundOnPrimary],
  tags,
  summary: "The embedded dashboard (an HTML page for an iframe)",
  description:
    "Authorised by `token` (a signed embed token) or, unless EMBED_REQUIRE_SIGNED=true, `customer_token`. " +
    "`var_<name>=<value>` parameters set variables (locked ones of a signed token win). " +
    "The page runs one hashed inline script (height and token messages for `embed.js`) and loads nothing else. " +
    "Error pages carry `data-status` and never `data-render-complete`.",
  request: {
    params: z.object({ embedId: z.string().openapi({ description: "The dashboard's embed id." }) }),
    query: z.object({
      token: z.string().optional().openapi({ description: "A signed embed token from `/api/generate_embed_token/`." }),
      customer_token: z.string().optional().openapi({ description: "The customer's long-lived token (legacy; prefer `token`)." }),
      environment: z
        .string()
        .optional()
        .openapi({ description: "Version tag; without it the newest version or draft. Ignored when the signed token pins one." }),
      width: z.string().optional().openapi({ description: "The frame's width in px (320–4096); charts are drawn for it." }),
    }),
  },
  responses: {
    200: html('The rendered dashboard (`<body data-render-complete="true">`).'),
    401: html(
      "No valid token: expired, altered, for another dashboard, refreshed customer token, deleted customer, or customer tokens refused by EMBED_REQUIRE_SIGNED. No dashboard data.",
    ),
    404: html("Unknown dashboard, or an environment the dashboard does not have."),
    422: html("The dashboard has no version or draft to render."),
  },
});

const openTarget = declaredRoute({
  access: "embed token in query",
  method: "get",
  path: "/embed/{embedId}/open/{panelId}",
  operationId: "embedOpenTarget",
  middleware: [retryNotFoundOnPrimary],
  tags,
  summary: "A click on a panel whose `on_click` opens another dashboard (redirects to it)",
  description:
    'What the live embed page navigates to when a bar, point, slice or row of a panel with `on_click: {action: "open"}` is clicked. ' +
    "The target dashboard is the one the saved panel names (a `dashboard` parameter naming another is refused with 403); the service mints " +
    "the target page's token itself from this one: same customer, locked variables, environment, presentation and origins, expiry no later. " +
    "`row` (JSON) holds the clicked row's values; the target's variables are set from the columns the panel names.",
  request: {
    params: z.object({ embedId: z.string(), panelId: z.string() }),
    query: z.object({
      token: z.string().optional(),
      customer_token: z.string().optional(),
      environment: z.string().optional(),
      width: z.string().optional(),
      dashboard: z
        .string()
        .optional()
        .openapi({ description: "The dashboard the page expects to open (refused unless it is the panel's)." }),
      row: z.string().optional().openapi({ description: "The clicked row's values by result column (JSON)." }),
    }),
  },
  responses: {
    302: { description: "To `/embed/<target>` with the minted token and the variables set from the row." },
    401: html("No valid token for this dashboard."),
    403: html("The request names a dashboard this panel does not open."),
    404: html("No such panel with an `open` action, or the dashboard is unknown."),
    422: html("The dashboard has no version or draft to render."),
  },
});

const panelCsv = declaredRoute({
  access: "embed token in query",
  method: "get",
  path: "/embed/{embedId}/panels/{panelFile}",
  operationId: "embedPanelCsv",
  middleware: [retryNotFoundOnPrimary],
  tags,
  summary: "A data panel's rows as CSV",
  description:
    "`panelFile` is `<panel_id>.csv`. Same `token` / `customer_token`, `environment` and `var_` parameters as the page, and the same rows the panel shows " +
    "(up to QUERY_ROW_LIMIT). RFC 4180 with a header row; text cells starting with `=`, `+`, `-`, `@`, tab or CR are prefixed with `'`.",
  request: {
    params: z.object({ embedId: z.string(), panelFile: z.string().openapi({ example: "revenue.csv" }) }),
    query: z.object({
      token: z.string().optional(),
      customer_token: z.string().optional(),
      environment: z.string().optional(),
    }),
  },
  responses: {
    200: { description: "`text/csv; charset=utf-8`, `Content-Disposition: attachment`.", content: { "text/csv": { schema: z.string() } } },
    401: {
      description: "`invalid_embed_token`: no valid token (as for the page); no data.",
      content: { "application/json": { schema: ErrorSchema } },
    },
    404: {
      description:
        "`panel_not_found` (unknown or text panel), `dashboard_not_found`, or `dashboard_version_not_found` (an environment the dashboard lacks).",
      content: { "application/json": { schema: ErrorSchema } },
    },
    422: {
      description: "`no_dashboard_version`, or `panel_data_unavailable` (no data source mapped, or the query failed).",
      content: { "application/json": { schema: ErrorSchema } },
    },
  },
});

export function registerEmbedRoutes(app: OpenAPIHono<AppEnv>): void {
  registerEmbedScriptRoutes(app);
  app.openapi(embedPage, async (c) => {
    const embedId = c.req.param("embedId");
    const viewer = await resolveViewer(c.env, embedId, c.req.query());
    if (isRefusal(viewer)) {
      await pageSecurityHeaders(c);
      return c.html(errorPage("Not authorised", viewer.refused, 401), 401);
    }
    // A viewer whose token carries user_email gets the Subscribe control (live pages only).
    const subscriber =
      viewer.userEmail && c.req.query("token") ? { email: viewer.userEmail, token: c.req.query("token") as string } : undefined;
    const dataRoundTrips = new DataRoundTrips();
    const cacheReport = new QueryCacheReport();
    try {
      const query = c.req.query();
      const request = { embedId, ...viewer, dataRoundTrips, cacheReport, waitUntil: backgroundOf(c) };
      // Loaded first, then drawn: the Subscribe control speaks the view's language too.
      const loaded = await readDashboard(c.get("db"), request);
      const page = await renderLoaded(
        c.env,
        loaded,
        {
          ...pageWidth(query.width),
          interaction: { path: `/embed/${encodeURIComponent(embedId)}`, query, locked: viewer.locked, clicks: true },
        },
        request,
      );
      // The click script when the page has one (panels' on_click, variables told to the host); the Subscribe control's for a subscriber.
      const hashes = [
        ...(page.includes(CLICK_DATA_MARK) ? [await clickScriptHash()] : []),
        ...(subscriber ? [await subscribeScriptHash()] : []),
      ];
      await pageSecurityHeaders(c, viewer.frameAncestors, hashes.length > 0 ? { hash: hashes.join(" ") } : undefined);
      if (config(c.env).DIAGNOSTICS) {
        c.header("X-Data-Round-Trips", String(dataRoundTrips.count));
        // Per data source (`<id>=<trips>`) and the PostgreSQL connections opened.
        c.header("X-Data-Round-Trips-By-Source", dataRoundTrips.describe());
        c.header("X-Data-Connections", String(dataRoundTrips.connections));
        for (const [name, value] of Object.entries(cacheReport.headers())) c.header(name, value);
      }
      if (!subscriber) return c.html(page, 200);
      const control = subscribeControl(embedId, subscriber.token, subscriber.email, loaded.view.locale);
      return c.html(
        page.replace(/<body[^>]*>/, (body) => `${body}\n${control}`),
        200,
      );
    } catch (error) {
      const page = error instanceof ApiError ? errorPageFor(error) : null;
      if (!page) throw error;
      await pageSecurityHeaders(c, viewer.frameAncestors);
      return c.html(page.html, page.status);
    }
  });

  app.openapi(openTarget, async (c) => {
    const embedId = c.req.param("embedId");
    const query = c.req.query();
    const viewer = await resolveViewer(c.env, embedId, query);
    await pageSecurityHeaders(c, isRefusal(viewer) ? undefined : viewer.frameAncestors);
    if (isRefusal(viewer)) return c.html(errorPage("Not authorised", viewer.refused, 401), 401);
    try {
      const drill = await drillThrough(c.get("db"), c.env, { embedId, panelId: c.req.param("panelId"), viewer, query });
      if ("refused" in drill)
        return c.html(errorPage(drill.status === 401 ? "Not authorised" : "Not available", drill.refused, drill.status), drill.status);
      return c.redirect(drill.location, 302);
    } catch (error) {
      const page = error instanceof ApiError ? errorPageFor(error) : null;
      if (!page) throw error;
      return c.html(page.html, page.status);
    }
  });

  app.openapi(panelCsv, async (c) => {
    const embedId = c.req.param("embedId");
    const file = c.req.param("panelFile");
    if (!file.endsWith(".csv")) throw new ApiError("route_not_found", `No route GET ${c.req.path}; panel exports end in .csv.`);
    const panelId = file.slice(0, -4);
    const viewer = await resolveViewer(c.env, embedId, c.req.query());
    if (isRefusal(viewer)) throw new ApiError("invalid_embed_token", viewer.refused);
    let rows: Awaited<ReturnType<typeof panelRows>>;
    const dataRoundTrips = new DataRoundTrips();
    const cacheReport = new QueryCacheReport();
    try {
      rows = await panelRows(c.get("db"), c.env, { embedId, ...viewer, dataRoundTrips, cacheReport, waitUntil: backgroundOf(c) }, panelId);
    } catch (error) {
      // As on the page: a customer that is gone (or a refreshed token) is "not authorised".
      if (error instanceof ApiError && error.code === "customer_not_found")
        throw new ApiError("invalid_embed_token", "This link is no longer valid.");
      throw error;
    }
    if (config(c.env).DIAGNOSTICS) {
      c.header("X-Data-Round-Trips", String(dataRoundTrips.count));
      for (const [name, value] of Object.entries(cacheReport.headers())) c.header(name, value);
    }
    c.header("Content-Type", "text/csv; charset=utf-8");
    c.header("Content-Disposition", `attachment; filename="${panelId}.csv"`);
    c.header("Cache-Control", "no-store");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(rowsToCsv(rows), 200);
  });
}

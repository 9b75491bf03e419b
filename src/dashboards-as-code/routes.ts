import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { DataRoundTrips } from "../data/query-runner";
import { DashboardDefinition } from "../dashboards/definition";
import { rowsToCsv } from "../dashboards/csv";
import { variablesFromQuery } from "../dashboards/viewer";
import { pageWidth } from "../dashboards/layout";
import { dataOfPanel, renderLoaded } from "../dashboards/customer-dashboard";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { EmbedId, plainText } from "../http/fields";
import { adminOperation, declaredRoute, ErrorSchema, successSchema } from "../http/openapi";
import { errorPage, pageSecurityHeaders } from "../http/pages";
import { DASHBOARD_SCHEMA_PATH, dashboardJsonSchema } from "./file-schema";
import { checkFileForCustomers, MAX_CUSTOMERS_PER_CHECK } from "./customer-checks";
import { checkFile, createPreview, loadPreview } from "./service";
import { config } from "../config";
import { Locale, ThemeReference, TimeZone } from "../view/presentation";

const tags = ["Administration: dashboards as code"];

const schemaDocument = declaredRoute({
  access: "public",
  method: "get",
  path: DASHBOARD_SCHEMA_PATH,
  operationId: "dashboardFileSchema",
  tags,
  summary: "The JSON Schema (2020-12) of a dashboard file",
  description:
    "Generated from the zod schema that validates saved versions. Point `$schema` of a dashboard file (or your editor's settings) at it to get completion and checks while editing.",
  responses: {
    200: { description: "A JSON Schema document.", content: { "application/schema+json": { schema: z.record(z.string(), z.unknown()) } } },
  },
});

const FileProblem = z
  .object({
    field: z.string().openapi({ description: "Dotted path in the file, e.g. `definition.panels.2.y_columns.0` (empty: the file itself)." }),
    panel_index: z.number().int().nullable().openapi({ description: "The panel to blame (index in `definition.panels`), or null." }),
    panel_id: z.string().nullable().openapi({ description: "That panel's id, when it has a valid one." }),
    message: z.string(),
  })
  .openapi("DashboardFileProblem");

const PreparedPanels = z.array(z.object({ id: z.string(), columns: z.array(z.string()) }));

const check = adminOperation({
  method: "post",
  path: "/admin/dashboard_checks/",
  operationId: "adminCheckDashboardFile",
  tags,
  summary: "Check a dashboard file without saving it (what `dashboards validate` runs)",
  database: "primary",
  description:
    "The body is the dashboard file as it is (`embed_id`, `name`, `definition`, see `/schemas/dashboard.json`) plus an optional `provided_id`. " +
    "Every problem is reported (not just the first) with `success: 1` — a file with problems is an answer, not a failed call: schema errors, " +
    "schemas that do not exist, and with `provided_id` each data panel's query prepared on the data source that customer's computed mapping " +
    "assigns (wrapped in `LIMIT 0`: no row is fetched; PostgreSQL in the read-only transaction with its timeout) and the columns each chart names " +
    "looked up in the query's result columns. Nothing is saved. An unknown customer is 404 `customer_not_found`. " +
    `Many customers in one call (what the console's "Check all customers" asks, a page at a time): \`provided_ids\` (up to ${MAX_CUSTOMERS_PER_CHECK}), ` +
    "or `access_group` with `offset` and `limit`; one D1 round trip for all of them, then each customer's panels prepared on its data source. " +
    "An unknown one of `provided_ids` is 404 `customer_not_found` (field `provided_ids.N`), an unknown access group 404 `access_group_not_found`.",
  body: z
    .looseObject({
      provided_id: plainText(1, 256)
        .optional()
        .openapi({ description: "Prepare every data panel's query against this customer's data (any access group)." }),
      locales: z
        .array(Locale)
        .max(20)
        .optional()
        .openapi({ description: "Also report every text of the definition with no translation for these locales (`de`, `fr-CH`)." }),
      customer_locale: z.boolean().optional().openapi({
        description:
          "With `provided_id`: also report every text with no translation for that customer's computed locale, when the definition has translations (what the console's \"Check all customers\" asks).",
      }),
      provided_ids: z
        .array(plainText(1, 256))
        .min(1)
        .max(MAX_CUSTOMERS_PER_CHECK)
        .optional()
        .openapi({
          description: `Check for each of these customers (any access group, 1–${MAX_CUSTOMERS_PER_CHECK}): answered in \`customers\`.`,
        }),
      access_group: plainText(1, 256).optional().openapi({
        description: "Check for a page of this access group's customers (by `provided_id`, `offset`, `limit`): answered in `customers`.",
      }),
      offset: z.number().int().min(0).optional().openapi({ description: "With `access_group`: customers to skip (default 0)." }),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_CUSTOMERS_PER_CHECK)
        .optional()
        .openapi({ description: `With \`access_group\`: customers to check (1–${MAX_CUSTOMERS_PER_CHECK}, default 50).` }),
      embed_id: z.unknown().optional(),
      name: z.unknown().optional(),
      definition: z.unknown().optional(),
    })
    .superRefine((body, ctx) => {
      const named = (["provided_id", "provided_ids", "access_group"] as const).filter((key) => body[key] !== undefined);
      if (named.length > 1)
        ctx.addIssue({ code: "custom", path: [named[1]], message: "give at most one of provided_id, provided_ids and access_group" });
      for (const key of ["offset", "limit"] as const)
        if (body[key] !== undefined && body.access_group === undefined)
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `${key} pages through an access_group's customers: only with access_group`,
          });
    })
    .openapi("DashboardCheckRequest"),
  response: successSchema({
    valid: z.boolean(),
    problems: z.array(FileProblem),
    panels: PreparedPanels.optional().openapi({
      description: "With `provided_id`: each data panel whose query was prepared, with its result columns.",
    }),
    customers: z
      .array(
        z.object({
          provided_id: z.string(),
          name: z.string(),
          valid: z.boolean(),
          problems: z.array(FileProblem),
          panels: PreparedPanels.optional(),
        }),
      )
      .optional()
      .openapi({
        description:
          "With `provided_ids` or `access_group`: per customer (by `provided_id`) exactly what the call with its `provided_id` answers. " +
          "`valid` and `problems` above are then the file's own, whatever the customer.",
      }),
    total: z.number().int().optional().openapi({ description: "With `access_group`: its customers in all." }),
    next_offset: z
      .number()
      .int()
      .nullable()
      .optional()
      .openapi({ description: "With `access_group`: the `offset` of the next page, null after the last." }),
  }),
});

const preview = adminOperation({
  method: "post",
  path: "/admin/dashboard_previews/",
  operationId: "adminCreateDashboardPreview",
  tags,
  summary: "A signed, short-lived link that draws an unsaved definition for one customer",
  database: "primary",
  description:
    "Validated as a saved version would be (400 `validation_error`, 422 `unknown_schema`), but nothing is saved: no dashboard, no version. " +
    "`preview_url` draws the definition for that customer exactly as the embed page would (their data, computed properties and mapping) " +
    "until `expires_at`; refreshing the customer token ends it early.",
  body: z
    .object({
      provided_id: plainText(1, 256).openapi({ description: "The customer to draw the dashboard for (any access group)." }),
      embed_id: EmbedId.optional().openapi({ description: "The file's embed id (only shown in the link); default `unsaved`." }),
      name: plainText(1, 200).optional(),
      definition: DashboardDefinition,
      expires_in: z.number().int().min(60).max(86_400).optional().openapi({ description: "Lifetime in seconds (60–86400, default 900)." }),
      theme: ThemeReference.optional().openapi({
        description: "A theme of the customer's access group by name (422 `unknown_theme`); default: the customer's.",
      }),
      locale: Locale.optional().openapi({ description: "Draw in this locale; default: the customer's computed locale." }),
      timezone: TimeZone.optional().openapi({ description: "Draw in this time zone; default: the customer's computed time zone." }),
    })
    .openapi("DashboardPreviewRequest"),
  response: successSchema({
    token: z.string().openapi({ description: "A compact JWS (HS256)." }),
    expires_at: z.string().openapi({ description: "ISO 8601 UTC." }),
    preview_url: z.string().openapi({ description: "`<base>/preview/<embed_id>?token=<token>`" }),
    view: z
      .object({ theme: z.string().nullable(), locale: z.string(), timezone: z.string() })
      .openapi({ description: "What the page is drawn in: the theme, locale and time zone asked for, else the customer's computed ones." }),
    themes: z.array(z.string()).openapi({ description: "The themes of the customer's access group: what `theme` may name." }),
  }),
});

const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

const previewPage = declaredRoute({
  access: "preview token in query",
  method: "get",
  path: "/preview/{embedId}",
  operationId: "dashboardPreviewPage",
  tags,
  summary: "An unsaved dashboard drawn for one customer (a preview link)",
  description:
    "As the embed page (`width`, `var_<name>` parameters, filter controls, CSV links), for the definition and customer the preview token names.",
  request: {
    params: z.object({ embedId: z.string() }),
    query: z.object({
      token: z.string().optional().openapi({ description: "The preview token from `/admin/dashboard_previews/`." }),
      width: z.string().optional(),
    }),
  },
  responses: {
    200: html('The rendered dashboard (`<body data-render-complete="true">`).'),
    401: html("The link is not valid: expired, altered, for another embed id, or its customer's token was refreshed."),
  },
});

const previewCsv = declaredRoute({
  access: "preview token in query",
  method: "get",
  path: "/preview/{embedId}/panels/{panelFile}",
  operationId: "dashboardPreviewPanelCsv",
  tags,
  summary: "A previewed data panel's rows as CSV",
  request: {
    params: z.object({ embedId: z.string(), panelFile: z.string().openapi({ example: "revenue.csv" }) }),
    query: z.object({ token: z.string().optional() }),
  },
  responses: {
    200: { description: "`text/csv; charset=utf-8`, as the embed page's CSV.", content: { "text/csv": { schema: z.string() } } },
    401: { description: "`invalid_embed_token`: the preview link is not valid.", content: { "application/json": { schema: ErrorSchema } } },
    404: { description: "`panel_not_found`.", content: { "application/json": { schema: ErrorSchema } } },
    422: { description: "`panel_data_unavailable`.", content: { "application/json": { schema: ErrorSchema } } },
  },
});

export function registerDashboardsAsCodeRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(schemaDocument, (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(dashboardJsonSchema(new URL(c.req.url).origin) as Record<string, never>, 200, {
      "Content-Type": "application/schema+json; charset=utf-8",
    });
  });

  app.openapi(check, async (c) => {
    const { provided_id, provided_ids, access_group, offset, limit, locales, customer_locale, ...file } = c.req.valid("json");
    const db = c.get("db");
    if (provided_ids === undefined && access_group === undefined)
      return c.json({ success: 1 as const, ...(await checkFile(db, c.env, file, provided_id, locales, customer_locale)) }, 200);
    const selection =
      access_group === undefined ? { provided_ids: provided_ids ?? [] } : { access_group, offset: offset ?? 0, limit: limit ?? 50 };
    return c.json({ success: 1 as const, ...(await checkFileForCustomers(db, c.env, file, selection, locales, customer_locale)) }, 200);
  });

  app.openapi(preview, async (c) =>
    c.json({ success: 1 as const, ...(await createPreview(c.get("db"), c.env, new URL(c.req.url).origin, c.req.valid("json"))) }, 200),
  );

  app.openapi(previewPage, async (c) => {
    const embedId = c.req.param("embedId");
    const query = c.req.query();
    await pageSecurityHeaders(c);
    c.header("X-Robots-Tag", "noindex");
    let loaded: Awaited<ReturnType<typeof loadPreview>>;
    try {
      loaded = await loadPreview(c.get("db"), c.env, embedId, query.token ?? "", variablesFromQuery(query));
    } catch (error) {
      if (error instanceof ApiError && error.code === "invalid_embed_token")
        return c.html(errorPage("Not authorised", error.message, 401), 401);
      throw error;
    }
    const dataRoundTrips = new DataRoundTrips();
    const page = await renderLoaded(
      c.env,
      loaded,
      { ...pageWidth(query.width), interaction: { path: `/preview/${encodeURIComponent(embedId)}`, query, locked: [] } },
      { dataRoundTrips },
    );
    if (config(c.env).DIAGNOSTICS) c.header("X-Data-Round-Trips", String(dataRoundTrips.count));
    return c.html(page, 200);
  });

  app.openapi(previewCsv, async (c) => {
    const embedId = c.req.param("embedId");
    const file = c.req.param("panelFile");
    if (!file.endsWith(".csv")) throw new ApiError("route_not_found", `No route GET ${c.req.path}; panel exports end in .csv.`);
    const panelId = file.slice(0, -4);
    const query = c.req.query();
    const loaded = await loadPreview(c.get("db"), c.env, embedId, query.token ?? "", variablesFromQuery(query));
    const { rows } = await dataOfPanel(c.env, loaded, embedId, panelId);
    c.header("Content-Type", "text/csv; charset=utf-8");
    c.header("Content-Disposition", `attachment; filename="${panelId}.csv"`);
    c.header("Cache-Control", "no-store");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(rowsToCsv(rows), 200);
  });
}

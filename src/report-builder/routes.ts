import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { ProvidedId } from "../customers/schemas";
import { LockedFilter } from "../data/filters";
import { DataRoundTrips } from "../data/query-runner";
import { backgroundOf } from "../http/background";
import type { AppContext, AppEnv } from "../http/context";
import { QueryCacheReport } from "../data/query-cache";
import { ApiError } from "../http/errors";
import { plainText } from "../http/fields";
import { jsonBody } from "../http/json-body";
import { apiOperation, declaredRoute, ErrorSchema, successSchema } from "../http/openapi";
import { verifyBuilderToken, type BuilderClaims } from "../tokens/builder";
import { Chart, ReportQuery, ResultColumn } from "./query";
import type { BuilderRequest } from "./builder-request";
import { datasets, exportQuery, runQuery } from "./queries";
import { deleteReport, listReports, saveReport, updateReport } from "./saved-reports";
import { customerReports, deleteCustomerReport } from "./vendor-reports";
import { config } from "../config";
import { declaredRetry } from "../http/replica-retry";

/**
 * The report builder's JSON API (docs/report-builder.md): `/report-builder/<blueprint
 * embed_id>/…`, authorised by a builder token (`Authorization: Bearer`) minted by
 * `generate_embed_token` with `blueprint_id`; and the vendor's operations on saved reports.
 */

const tags = ["Report builder"];

const SavedReport = z
  .object({
    id: z.string(),
    blueprint_id: z.number().int(),
    name: z.string(),
    query: ReportQuery,
    chart: Chart,
    locked_filters: z.array(LockedFilter).openapi({
      description:
        "The locked filters of the token it was saved with (`[]` when none): applied to every run of it, in the builder and in deliveries.",
    }),
    created_by: z.string().nullable().openapi({ description: "The `user_id` of the token it was saved with." }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("SavedReport");

const Dataset = z
  .object({
    name: z.string().openapi({ description: "The table's dataset_name: what queries name." }),
    description: z.string().nullable().openapi({ description: "In the view's locale when the table translates it." }),
    columns: z.array(z.object({ name: z.string(), display_name: z.string(), type: ResultColumn.shape.type, can_be_grouped: z.boolean() })),
  })
  .openapi("ReportDataset");

const ReportResultSchema = {
  columns: z.array(ResultColumn),
  rows: z.array(z.record(z.string(), z.unknown())).openapi({ description: "Objects keyed by result column name." }),
  row_count: z.number().int(),
  truncated: z.boolean().openapi({ description: "More rows exist than `limit`." }),
};

const error = (description: string) => ({ description, content: { "application/json": { schema: ErrorSchema } } });
const builderErrors = {
  400: error("`invalid_json` or `validation_error` (with `field`, e.g. `filters.1.value`)"),
  401: error("`invalid_embed_token`: no, a bad, an expired or a revoked builder token, or one for another blueprint"),
  404: error("`blueprint_not_found`, `report_not_found`"),
  422: error(
    "`unknown_dataset`, `unknown_column`, `column_not_groupable`, `bucket_not_allowed`, `aggregate_not_allowed`, `filter_not_allowed`, `dataset_data_unavailable`",
  ),
  429: error("`rate_limited` (BUILDER_REQUESTS_PER_MINUTE per customer), with `Retry-After`"),
};

// ---- authorisation: the builder token -----------------------------------------------------------

const claimsOf = new WeakMap<Request, BuilderClaims>();
const bearer = /^Bearer\s+([\x21-\x7e]{1,8192})$/;

/**
 * Verifies the builder token before anything else (body rules and validation come after):
 * signed by us, unexpired, a builder token (a dashboard's token is not), for this
 * blueprint. Whether its customer still holds the token it was minted for is checked with
 * the request's reads. Operations that change saved reports need `can_save`. Then the
 * request reads the D1 handle its operation declared (as apiAccess does for API tokens):
 * operations that only read — the query and export POSTs too — a session a replica may serve.
 */
function builderAccess(options: { save?: boolean; database: "primary" | "session" }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const match = bearer.exec(c.req.header("Authorization")?.trim() ?? "");
    if (!match) throw new ApiError("invalid_embed_token", "Send the report builder token as 'Authorization: Bearer <token>'.");
    const claims = await verifyBuilderToken(c.env, match[1]);
    if (!claims) throw new ApiError("invalid_embed_token", "This report builder token is not valid or has expired.");
    if (claims.bpe !== c.req.param("embedId"))
      throw new ApiError("invalid_embed_token", "This report builder token was issued for another blueprint.");
    if (options.save && !claims.save) throw new ApiError("saving_not_allowed", "This report builder link may not save or change reports.");
    claimsOf.set(c.req.raw, claims);
    c.var.request.readFrom(options.database);
    await next();
  };
}

export function builderRequest(c: AppContext, dataRoundTrips?: DataRoundTrips, cacheReport?: QueryCacheReport): BuilderRequest {
  const claims = claimsOf.get(c.req.raw);
  if (!claims) throw new Error("builder route without builderAccess");
  return { db: c.get("db"), env: c.env, claims, dataRoundTrips, cacheReport, waitUntil: backgroundOf(c) };
}

const BlueprintParams = z.object({ embedId: z.string().openapi({ description: "The blueprint's embed_id." }) });
const SavedReportParams = BlueprintParams.extend({ reportId: z.string() });

interface BuilderRouteOptions<B extends z.ZodType | undefined, R extends z.ZodType, W extends boolean> {
  method: "get" | "post" | "delete";
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  body?: B;
  save?: boolean;
  /** The path names a saved report too (`{reportId}`). */
  withReport?: W;
  response: R;
  file?: boolean;
  /** The D1 handle: operations that only read (GETs, the query, the export) a session a replica may answer; those that write the primary. */
  database: "primary" | "session";
  /** See http/replica-retry.ts: only for `database: "session"`. */
  notFound?: "answer" | "retry on primary";
}

/**
 * A route of the builder's JSON API: the builder token first (builderAccess), then the JSON
 * body conventions and the zod schemas. Generic over the body, the response and whether the
 * path names a saved report, as `apiOperation` (http/openapi.ts) is: `c.req.valid("json")`
 * and `c.req.valid("param")` are typed in the handlers.
 */
export function builderRoute<B extends z.ZodType | undefined = undefined, R extends z.ZodType = z.ZodType, W extends boolean = false>(
  options: BuilderRouteOptions<B, R, W>,
) {
  const access = builderAccess({ save: options.save, database: options.database });
  const retry = declaredRetry(options);
  return declaredRoute({
    access: "builder token",
    method: options.method,
    path: options.path,
    operationId: options.operationId,
    tags,
    summary: options.summary,
    description: options.description,
    middleware: [...retry, access, ...(options.method === "post" ? [jsonBody] : [])],
    request: {
      params: options.withReport ? SavedReportParams : BlueprintParams,
      ...(options.body ? { body: { required: true, content: { "application/json": { schema: options.body } } } } : {}),
    } as {
      params: W extends true ? typeof SavedReportParams : typeof BlueprintParams;
      body: B extends z.ZodType ? { required: true; content: { "application/json": { schema: B } } } : never;
    },
    responses: {
      200: options.file
        ? {
            description: "The file, `Content-Disposition: attachment`.",
            content: {
              "text/csv": { schema: z.string() },
              "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": { schema: z.string().openapi({ format: "binary" }) },
            },
          }
        : { description: "Success", content: { "application/json": { schema: options.response } } },
      ...builderErrors,
      ...(options.save
        ? {
            403: error(
              options.withReport
                ? "`saving_not_allowed`: the token was minted with `can_save: false`; `report_read_only`: another user's report, or one saved under other locked filters"
                : "`saving_not_allowed`: the token was minted with `can_save: false`",
            ),
          }
        : {}),
    },
  });
}

const datasetsRoute = builderRoute({
  method: "get",
  database: "session",
  path: "/report-builder/{embedId}/datasets",
  operationId: "builderDatasets",
  notFound: "retry on primary",
  summary: "The blueprint's datasets and their columns",
  response: successSchema({ datasets: z.array(Dataset) }),
});

const queryRoute = builderRoute({
  method: "post",
  database: "session",
  notFound: "retry on primary",
  path: "/report-builder/{embedId}/query",
  operationId: "builderQuery",
  summary: "Run a report query on this customer's data",
  description:
    "Group and aggregate (`group_by`, `values`) or list records (`columns`), with filters, sort and limit. The token's locked filters are always added. " +
    "Runs on the data source the customer's mapping assigns to the dataset's schema (D1 or PostgreSQL, read-only).",
  body: ReportQuery,
  response: successSchema(ReportResultSchema),
});

/** A saved report open in the builder: its stored locked filters are added to the token's own. */
export const ReportIdField = z.string().min(1).max(64).optional().openapi({
  description:
    "A saved report open in the builder: the locked filters it was saved under are added to the token's own (another customer's or blueprint's report: 404 `report_not_found`).",
});

const ExportBody = z
  .object({
    query: ReportQuery,
    report_id: ReportIdField,
    format: z.enum(["csv", "xlsx"]),
    file_name: plainText(0, 200)
      .optional()
      .openapi({ description: "Made safe for Content-Disposition; the extension is added unless present. Default `report`." }),
  })
  .openapi("ReportExportRequest");

const exportRoute = builderRoute({
  method: "post",
  database: "session",
  notFound: "retry on primary",
  path: "/report-builder/{embedId}/export",
  operationId: "builderExport",
  summary: "A query's result as a CSV or XLSX file",
  description:
    "CSV: RFC 4180, a header row of result column names, formula-like text cells prefixed with `'`. XLSX: one sheet, display names as headers, typed cells (numbers, booleans, dates).",
  body: ExportBody,
  response: z.string(),
  file: true,
});

const listRoute = builderRoute({
  method: "get",
  database: "session",
  path: "/report-builder/{embedId}/reports",
  operationId: "builderListReports",
  notFound: "retry on primary",
  summary: "This blueprint's saved reports, newest change first",
  response: successSchema({ reports: z.array(SavedReport) }),
});

const SaveBody = z.object({ name: plainText(1, 200), query: ReportQuery, chart: Chart }).openapi("SaveReportRequest");
const UpdateBody = z
  .object({ name: plainText(1, 200).optional(), query: ReportQuery.optional(), chart: Chart.optional() })
  .refine((body) => body.name !== undefined || body.query !== undefined || body.chart !== undefined, {
    message: "give name, query or chart",
    path: ["name"],
  })
  .openapi("UpdateReportRequest");

const saveRoute = builderRoute({
  method: "post",
  database: "primary",
  path: "/report-builder/{embedId}/reports",
  operationId: "builderSaveReport",
  summary: "Save a report (query and chart)",
  description:
    "The query must run on the blueprint as it is (422s under `query.`); the chart may name only result columns. `created_by` is the token's `user_id`, `locked_filters` its locked filters.",
  body: SaveBody,
  save: true,
  response: successSchema({ report: SavedReport }),
});

const updateRoute = builderRoute({
  method: "post",
  database: "primary",
  path: "/report-builder/{embedId}/reports/{reportId}",
  operationId: "builderUpdateReport",
  summary: "Change a saved report's name, query or chart",
  description:
    "Only a token with the report's user (`user_id` = `created_by`, both absent counting as the same) and the same locked filters; others get 403 `report_read_only`.",
  body: UpdateBody,
  save: true,
  withReport: true,
  response: successSchema({ report: SavedReport }),
});

const deleteRoute = builderRoute({
  method: "delete",
  database: "primary",
  path: "/report-builder/{embedId}/reports/{reportId}",
  operationId: "builderDeleteReport",
  summary: "Delete a saved report",
  description: "Only a token with the report's user and the same locked filters; others get 403 `report_read_only`.",
  save: true,
  withReport: true,
  response: successSchema({}),
});

// ---- the vendor's operations -------------------------------------------------------------------

const customerReportsRoute = apiOperation({
  method: "post",
  path: "/api/get_customer_reports/",
  operationId: "getCustomerReports",
  tags,
  summary: "Every saved report of a customer's blueprints",
  access: "read",
  database: "session",
  notFound: "retry on primary",
  body: z.object({ customer_id: ProvidedId.openapi({ description: "The customer's provided_id." }) }).openapi("CustomerReportsRequest"),
  response: successSchema({ reports: z.array(SavedReport) }),
});

const deleteCustomerReportRoute = apiOperation({
  method: "post",
  path: "/api/delete_customer_report/",
  operationId: "deleteCustomerReport",
  tags,
  summary: "Delete a customer's saved report",
  access: "write",
  database: "primary",
  body: z.object({ report_id: z.string().min(1).max(64) }).openapi("DeleteCustomerReportRequest"),
  response: successSchema({}),
});

/** With DIAGNOSTICS on: what the query cost at the data source and whether it came from the query cache (as on embed pages). */
function reportTrips(c: AppContext, trips: DataRoundTrips, cacheReport: QueryCacheReport): void {
  if (!config(c.env).DIAGNOSTICS) return;
  c.header("X-Data-Round-Trips", String(trips.count));
  for (const [name, value] of Object.entries(cacheReport.headers())) c.header(name, value);
}

export function registerReportRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(datasetsRoute, async (c) => c.json({ success: 1 as const, datasets: await datasets(builderRequest(c)) }, 200));

  app.openapi(queryRoute, async (c) => {
    const trips = new DataRoundTrips();
    const cacheReport = new QueryCacheReport();
    const result = await runQuery(builderRequest(c, trips, cacheReport), c.req.valid("json"));
    reportTrips(c, trips, cacheReport);
    return c.json({ success: 1 as const, ...result }, 200);
  });

  app.openapi(exportRoute, async (c) => {
    const trips = new DataRoundTrips();
    const cacheReport = new QueryCacheReport();
    const file = await exportQuery(builderRequest(c, trips, cacheReport), c.req.valid("json"));
    reportTrips(c, trips, cacheReport);
    c.header("Content-Type", file.contentType);
    c.header("Content-Disposition", `attachment; filename="${file.fileName}"`);
    c.header("Cache-Control", "no-store");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(file.body, 200);
  });

  app.openapi(listRoute, async (c) => c.json({ success: 1 as const, reports: await listReports(builderRequest(c)) }, 200));

  app.openapi(saveRoute, async (c) =>
    c.json({ success: 1 as const, report: await saveReport(builderRequest(c), c.req.valid("json")) }, 200),
  );

  app.openapi(updateRoute, async (c) =>
    c.json(
      {
        success: 1 as const,
        report: await updateReport(builderRequest(c), c.req.valid("param").reportId, c.req.valid("json")),
      },
      200,
    ),
  );

  app.openapi(deleteRoute, async (c) => {
    await deleteReport(builderRequest(c), c.req.valid("param").reportId);
    return c.json({ success: 1 as const }, 200);
  });

  app.openapi(customerReportsRoute, async (c) =>
    c.json(
      {
        success: 1 as const,
        reports: await customerReports(c.get("db"), c.get("principal").accessGroupId, c.req.valid("json").customer_id),
      },
      200,
    ),
  );

  app.openapi(deleteCustomerReportRoute, async (c) => {
    await deleteCustomerReport(c.get("db"), c.get("principal").accessGroupId, c.req.valid("json").report_id);
    return c.json({ success: 1 as const }, 200);
  });
}

import { z, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { AppContext, AppEnv } from "../http/context";
import { answeringNotFound, ApiError } from "../http/errors";
import { apiOperation, declaredRoute, ErrorSchema, publicOperation, successSchema } from "../http/openapi";
import { accessScope } from "../customers/scope";
import { backgroundOf } from "../http/background";
import { QueryCacheReport } from "../data/query-cache";
import { DataRoundTrips } from "../data/query-runner";
import { pageWidth } from "../dashboards/layout";
import { errorPage, pageSecurityHeaders } from "../http/pages";
import { DownloadQuery, JobSchema, JobStatusBody, ReportBody, ScreenshotBody } from "./schemas";
import { requestReport, requestScreenshot, type DeliveryScope } from "./create/jobs";
import { isGoneError } from "./gone";
import { download } from "./links/download";
import { renderShare } from "./links/share";
import { withTarget } from "./target";
import { jobStatus as readJobStatus } from "./status";
import { config } from "../config";
import { retryNotFoundOnPrimary } from "../http/replica-retry";

const tags = ["Dashboard delivery"];

/** The completion webhook, as OpenAPI describes a callback (the contract: docs/delivery.md). */
const jobEnded: RouteConfig["callbacks"] = {
  jobEnded: {
    "{$request.body#/callback_url}": {
      post: {
        summary: "The job ended (only when callback_url was given)",
        parameters: [
          {
            name: "X-Signature-Timestamp",
            in: "header",
            required: true,
            schema: { type: "string" },
            description: "When this attempt was sent, in Unix seconds; refuse one more than 5 minutes old.",
          },
          {
            name: "X-Signature",
            in: "header",
            required: true,
            schema: { type: "string" },
            description: "`sha256=<hex>`: HMAC-SHA256 of `<X-Signature-Timestamp>.<raw body>` with the access group's webhook secret.",
          },
          { name: "X-Webhook-Attempt", in: "header", required: true, schema: { type: "string" }, description: "1 to 5." },
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["job_id", "status", "error"],
                properties: {
                  job_id: { type: "string" },
                  status: { type: "string", enum: ["done", "failed"] },
                  error: { type: ["string", "null"], description: "The job's short failure reason." },
                  url: { type: "string", description: "The download link of a finished screenshot without e-mail." },
                },
              },
            },
          },
        },
        responses: {
          "2XX": { description: "Received. Anything else, or no answer within 10 s, is retried 5, 10, 20 and 40 s later." },
        },
      },
    },
  },
};

const screenshot = apiOperation({
  method: "post",
  path: "/api/dashboard/screenshot",
  operationId: "dashboardScreenshot",
  tags,
  summary: "E-mail a dashboard or saved report as PNG, PDF, XLSX (or a report's CSV), or get a download link",
  description:
    "Exactly one of `dashboard_embed_id` (renders the newest version or draft for the customer) and `report_id` (a saved report of that customer, drawn as one page: its chart and its table). Answers at once with `job_id`; without `email` also `url`, a download link that answers 202 until the file is ready. Rate limited (DELIVERY_LIMIT_PER_MINUTE).",
  access: "write",
  database: "primary",
  delivery: true,
  body: ScreenshotBody,
  response: successSchema({ job_id: z.string(), url: z.string().optional() }),
  callbacks: jobEnded,
});

const report = apiOperation({
  method: "post",
  path: "/api/dashboard/report",
  operationId: "dashboardReport",
  tags,
  summary: "E-mail a formatted report of a dashboard or a saved report",
  description:
    "Exactly one of `dashboard_embed_id` (version: tag `email`, else `production`, else the newest) and `report_id` (a saved report of that customer). The e-mail shows the screenshot inline, linked to `custom_url` or a share link. Rate limited (DELIVERY_LIMIT_PER_MINUTE).",
  access: "write",
  database: "primary",
  delivery: true,
  body: ReportBody,
  response: successSchema({ job_id: z.string() }),
  callbacks: jobEnded,
});

const jobStatus = apiOperation({
  method: "post",
  path: "/api/dashboard/job_status/",
  operationId: "dashboardJobStatus",
  tags,
  summary: "The status of a screenshot or report job",
  access: "read",
  database: "session",
  notFound: "retry on primary",
  body: JobStatusBody,
  response: successSchema({ job: JobSchema }),
});

const downloadOperation = publicOperation({
  method: "get",
  path: "/api/downloads/{token}",
  operationId: "download",
  access: "capability token in path",
  notFound: "retry on primary",
  tags,
  summary: "Download a screenshot (capability URL; no API token)",
  database: "session",
  description:
    "202 with Retry-After while the job runs, 200 with the file when done, 404 when unknown or expired, 500 `render_failed` for a failed job. With `wait`, the answer waits up to that many seconds for the job to end, so one request replaces a polling loop.",
  params: z.object({ token: z.string() }),
  query: DownloadQuery,
  response: z.string().openapi({ format: "binary" }),
});
// A capability URL answers more than the usual envelope: document each state it can be in.
const fileDownload = z.string().openapi({ format: "binary" });
const downloadRoute = {
  ...downloadOperation,
  responses: {
    200: {
      description: "The file (Content-Disposition: attachment).",
      content: {
        "image/png": { schema: fileDownload },
        "application/pdf": { schema: fileDownload },
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": { schema: fileDownload },
        "text/csv": { schema: fileDownload },
      },
    },
    202: {
      description: "Still rendering; retry after `Retry-After` seconds.",
      content: { "application/json": { schema: successSchema({ status: z.string() }) } },
    },
    404: { description: "`job_not_found`: unknown or expired link.", content: { "application/json": { schema: ErrorSchema } } },
    500: { description: "`render_failed`: the job failed.", content: { "application/json": { schema: ErrorSchema } } },
  },
};

const shareRoute = declaredRoute({
  access: "capability token in path",
  method: "get",
  path: "/share/{token}",
  operationId: "sharePage",
  middleware: [retryNotFoundOnPrimary],
  tags,
  summary: "A report's share link (capability URL; no API token)",
  description: "Renders the reported dashboard (or saved report) for that customer until the link expires (SHARE_TTL_SECONDS).",
  request: {
    params: z.object({ token: z.string() }),
    query: z.object({
      width: z.string().optional().openapi({
        description:
          "The window's width in px (320–4096); charts are drawn for it. Without it the page is drawn at 1280 px and, in a browser, asks again with its window's width.",
      }),
    }),
  },
  responses: {
    200: { description: "The rendered dashboard (HTML).", content: { "text/html": { schema: z.string() } } },
    404: {
      description: "Unknown or expired link, or the dashboard or customer is gone (HTML page).",
      content: { "text/html": { schema: z.string() } },
    },
  },
});

function baseUrl(c: AppContext): string {
  return new URL(c.req.url).origin;
}

/** A job requested through the API runs its first attempt in this call's background: the caller waits for it. */
function jobScope(c: AppContext): DeliveryScope {
  return {
    ...accessScope(c),
    env: c.env,
    baseUrl: baseUrl(c),
    background: (work) => c.executionCtx.waitUntil(work),
  };
}

export function registerDeliveryRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(screenshot, async (c) => {
    const result = await requestScreenshot(jobScope(c), withTarget(c.req.valid("json")));
    return c.json({ success: 1 as const, ...result }, 200);
  });
  app.openapi(report, async (c) => {
    const result = await requestReport(jobScope(c), withTarget(c.req.valid("json")));
    return c.json({ success: 1 as const, ...result }, 200);
  });
  app.openapi(jobStatus, async (c) => {
    const { db, accessGroupId } = accessScope(c);
    return c.json({ success: 1 as const, job: await readJobStatus(db, accessGroupId, c.req.valid("json").job_id) }, 200);
  });
  app.openapi(downloadRoute, async (c) => {
    const state = await download(c.get("db"), c.env, c.req.param("token") ?? "", c.req.valid("query").wait);
    c.header("Cache-Control", "no-store");
    if (state.state === "pending") {
      c.header("Retry-After", "2");
      return c.json({ success: 1 as const, status: state.status }, 202);
    }
    if (state.state === "failed") throw new ApiError("render_failed", `The export could not be produced: ${state.error}`);
    c.header("Content-Type", state.contentType);
    c.header("Content-Disposition", `attachment; filename="${state.fileName}"`);
    if (config(c.env).DIAGNOSTICS && state.queryCache) c.header("X-Query-Cache", state.queryCache);
    if (config(c.env).DIAGNOSTICS && state.cacheReads) c.header("X-Cache-Reads", state.cacheReads);
    return c.body(state.body, 200);
  });

  app.openapi(shareRoute, async (c) => {
    await pageSecurityHeaders(c);
    const cacheReport = new QueryCacheReport();
    const dataRoundTrips = new DataRoundTrips();
    try {
      // A person reads a share link: its charts have their "Show as table" control (captures have none).
      const shown = { ...pageWidth(c.req.valid("query").width), chartTables: true };
      const page = await renderShare(c.get("db"), c.env, c.req.param("token"), shown, {
        cacheReport,
        dataRoundTrips,
        waitUntil: backgroundOf(c),
      });
      if (config(c.env).DIAGNOSTICS) {
        for (const [name, value] of Object.entries(cacheReport.headers())) c.header(name, value);
        // As the embed page: the data-source trips the view waited for (0 when every panel hit).
        c.header("X-Data-Round-Trips", String(dataRoundTrips.count));
      }
      return c.html(page, 200);
    } catch (error) {
      if (isGoneError(error)) {
        answeringNotFound(error.code);
        return c.html(errorPage("Link not available", "This share link is unknown or has expired.", 404), 404);
      }
      throw error;
    }
  });
}

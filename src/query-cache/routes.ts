import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { ProvidedId } from "../customers/schemas";
import type { AppEnv } from "../http/context";
import { EmbedId } from "../http/fields";
import { apiOperation, successSchema } from "../http/openapi";
import { invalidate } from "./service";

const InvalidateCacheBody = z
  .object({
    provided_id: ProvidedId.optional().openapi({
      description: "A customer of your access group: its cached results (and its descendants') miss from now on.",
    }),
    dashboard_embed_id: EmbedId.optional().openapi({
      description: "A dashboard: its cached results miss from now on, for every customer.",
    }),
  })
  .superRefine((body, ctx) => {
    if (body.provided_id === undefined && body.dashboard_embed_id === undefined) {
      ctx.addIssue({ code: "custom", path: ["provided_id"], message: "give provided_id, dashboard_embed_id or both" });
    }
  })
  .openapi("InvalidateCacheRequest");

const invalidateCache = apiOperation({
  method: "post",
  path: "/api/invalidate_cache/",
  operationId: "invalidateCache",
  tags: ["Embedding"],
  summary: "Make cached query results of a customer and/or a dashboard miss from now on",
  description:
    "Dashboards with `cache_ttl_seconds` (and blueprint tables with it) keep query results near the viewer. After your data changed, " +
    "call this: every later view of that customer's (or that dashboard's) panels and builder queries runs its queries again, in every location. " +
    "Both fields given: both are invalidated. Data-source reads are served by replicas, so a view in the next moments may still see the data as it was.",
  access: "write",
  database: "primary",
  body: InvalidateCacheBody,
  response: successSchema({}),
});

export function registerQueryCacheRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(invalidateCache, async (c) => {
    await invalidate(c.get("db"), c.get("principal").accessGroupId, c.req.valid("json"));
    return c.json({ success: 1 as const }, 200);
  });
}

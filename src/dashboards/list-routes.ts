import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { apiOperation, successSchema } from "../http/openapi";
import { listDashboards } from "./repository";

// What an API token may learn of the dashboards without the admin token: those its access
// group's customers can be shown (a dashboard with at least one version), to pick an
// `embed_id` and an environment tag for `generate_embed_token` or a delivery.

const EmbeddableDashboard = z
  .object({
    embed_id: z.string(),
    name: z.string(),
    tags: z.array(z.string()).openapi({ description: "The environment tags of its versions (e.g. `production`, `email`), by name." }),
  })
  .openapi("EmbeddableDashboard");

const list = apiOperation({
  method: "get",
  path: "/api/dashboards/",
  operationId: "listDashboards",
  tags: ["Embedding"],
  summary: "The dashboards this token's customers can be shown, with their environment tags",
  description:
    "Every dashboard with at least one version (one without any answers 422 `no_dashboard_version` on its pages), ordered by `embed_id`. Definitions and versions stay with the admin API.",
  access: "read",
  database: "session",
  response: successSchema({ dashboards: z.array(EmbeddableDashboard) }),
});

export function registerDashboardListRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(list, async (c) => {
    const rows = await listDashboards(c.get("db"));
    const dashboards = rows
      .filter((row) => row.versions > 0)
      .map((row) => ({ embed_id: row.embedId, name: row.name, tags: Object.keys(row.tags).sort() }));
    return c.json({ success: 1 as const, dashboards }, 200);
  });
}

import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { EmbedId, plainText } from "../http/fields";
import { adminOperation, successSchema } from "../http/openapi";
import { DashboardDefinition } from "./definition";
import * as versions from "./versions";

const tags = ["Administration: dashboards"];
const Dashboard = z.object({ embed_id: z.string(), name: z.string() }).openapi("Dashboard");

const createOrReplace = adminOperation({
  method: "post",
  path: "/admin/dashboards/",
  operationId: "adminCreateDashboard",
  tags,
  summary: "Create a dashboard, or rename it when embed_id exists",
  database: "primary",
  body: z.object({ embed_id: EmbedId.optional(), name: plainText(1, 200) }),
  response: successSchema({ dashboard: Dashboard }),
});

const list = adminOperation({
  method: "get",
  path: "/admin/dashboards/",
  operationId: "adminListDashboards",
  tags,
  summary: "List dashboards with their version count and tags",
  database: "session",
  response: successSchema({
    dashboards: z.array(
      Dashboard.extend({
        versions: z.number().int(),
        newest_version: z
          .number()
          .int()
          .nullable()
          .openapi({ description: "The highest version number (a draft included); null without versions." }),
        changed_at: z
          .string()
          .openapi({ description: "ISO 8601 UTC: the latest of its creation or renaming, a version saved, a tag moved." }),
        tags: z.record(z.string(), z.number().int()),
      }),
    ),
  }),
});

const saveVersion = adminOperation({
  method: "post",
  path: "/admin/dashboard_versions/",
  operationId: "adminSaveDashboardVersion",
  tags,
  summary: "Save a definition as the next version (validated; an invalid one is never stored)",
  database: "primary",
  body: z.object({ embed_id: EmbedId, definition: DashboardDefinition, draft: z.boolean().optional() }),
  response: successSchema({ version: z.object({ version_number: z.number().int(), draft: z.boolean() }) }),
});

const getVersion = adminOperation({
  method: "get",
  path: "/admin/dashboard_versions/",
  operationId: "adminGetDashboardVersion",
  notFound: "retry on primary",
  tags,
  summary: "Read one version back as stored: by number, by tag, or the newest (what `dashboards pull` writes to a file)",
  database: "session",
  query: z
    .object({
      embed_id: EmbedId,
      version_number: z.coerce
        .number()
        .int()
        .positive()
        .optional()
        .openapi({ description: "The version; with neither this nor `tag` the newest version or draft." }),
      tag: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/)
        .optional()
        .openapi({ description: "The environment tag whose version to read (e.g. `production`)." }),
    })
    .refine((q) => q.version_number === undefined || q.tag === undefined, {
      message: "give version_number or tag, not both",
      path: ["tag"],
    }),
  response: successSchema({
    dashboard: Dashboard,
    version: z.object({ version_number: z.number().int(), draft: z.boolean(), definition: DashboardDefinition }),
  }),
});

const history = adminOperation({
  method: "get",
  path: "/admin/dashboard_version_history/",
  operationId: "adminListDashboardVersions",
  notFound: "retry on primary",
  tags,
  summary: "A dashboard's versions, newest first: number, draft or not, when saved, the tags pointing at it",
  database: "session",
  query: z.object({ embed_id: EmbedId }),
  response: successSchema({
    versions: z.array(
      z.object({
        version_number: z.number().int(),
        draft: z.boolean(),
        created_at: z.string().openapi({ description: "ISO 8601 UTC." }),
        tags: z.array(z.string()),
      }),
    ),
  }),
});

const tagVersion = adminOperation({
  method: "post",
  path: "/admin/dashboard_tags/",
  operationId: "adminTagDashboardVersion",
  tags,
  summary: "Point an environment tag (production, email, …) at a version",
  database: "primary",
  body: z.object({ embed_id: EmbedId, tag: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), version_number: z.number().int().positive() }),
  response: successSchema({}),
});

export function registerDashboardAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createOrReplace, async (c) =>
    c.json({ success: 1 as const, dashboard: await versions.createOrReplaceDashboard(c.get("db"), c.req.valid("json")) }, 200),
  );
  app.openapi(list, async (c) => c.json({ success: 1 as const, dashboards: await versions.listDashboards(c.get("db")) }, 200));
  app.openapi(saveVersion, async (c) =>
    c.json({ success: 1 as const, version: await versions.saveVersion(c.get("db"), c.req.valid("json")) }, 200),
  );
  app.openapi(getVersion, async (c) =>
    c.json({ success: 1 as const, ...(await versions.getVersion(c.get("db"), c.req.valid("query"))) }, 200),
  );
  app.openapi(history, async (c) =>
    c.json({ success: 1 as const, versions: await versions.versionHistory(c.get("db"), c.req.valid("query").embed_id) }, 200),
  );
  app.openapi(tagVersion, async (c) => {
    await versions.tagVersion(c.get("db"), c.req.valid("json"));
    return c.json({ success: 1 as const }, 200);
  });
}

import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { plainText } from "../http/fields";
import { adminOperation, successSchema } from "../http/openapi";
import { searchCustomers, searchCustomersOperation } from "./customer-search";
import * as admin from "./service";

const tags = ["Administration"];
const Name = plainText(1, 256);
const AccessGroup = z.object({ name: z.string() }).openapi("AccessGroup");
const ApiTokenInfo = z
  .object({ id: z.string(), name: z.string(), access_group: z.string(), permission: z.enum(["read", "write"]) })
  .openapi("ApiToken");
const Schema = z.object({ id: z.number().int(), name: z.string() }).openapi("Schema");
const ConnectionInfo = z
  .object({ url: z.string(), database: z.string().nullable(), user: z.string(), password_set: z.literal(true) })
  .openapi("DataSourceConnection");
const ClickhouseDatabase = z
  .string()
  .regex(/^[A-Za-z0-9_]{1,64}$/, "must be 1-64 letters, digits or _")
  .nullable()
  .openapi({ description: "The database of each request when the data source has no `namespace`; `null`: the user's default." });
/** The password is write-only: answers say `password_set: true`. */
const ConnectionInput = z.object({
  url: z.string().max(2048).openapi({
    description: "`https://host[:port]` (plain `http://` only to 127.0.0.1 or localhost in development); a public host.",
    example: "https://abc123.eu-central-1.aws.clickhouse.cloud:8443",
  }),
  database: ClickhouseDatabase.optional(),
  user: z.string().min(1).max(256).openapi({ example: "dashboards_reader" }),
  password: z
    .string()
    .max(1024)
    .openapi({ description: "Write-only: stored sealed (AES-256-GCM under the secret DATA_SOURCE_KEY), never answered." }),
});
const DataSource = z
  .object({
    id: z.number().int(),
    provided_id: z.string().nullable(),
    name: z.string(),
    binding: z.string().nullable().openapi({ description: "The Worker's binding; `null` for ClickHouse (reached over `connection`)." }),
    kind: z.enum(["d1", "postgres", "mysql", "clickhouse"]).openapi({
      description:
        "`d1`: a D1 binding; `postgres`, `mysql`: a Hyperdrive binding to that engine; `clickhouse`: its HTTP(S) interface at `connection`.",
    }),
    connection: ConnectionInfo.nullable().openapi({
      description: "ClickHouse's server (the password never answered); `null` for the other kinds.",
    }),
    namespace: z.string().nullable().openapi({
      description:
        "The PostgreSQL schema (first on the search path), MySQL database or ClickHouse database its panels read; `null`: the binding's (or connection's) own.",
    }),
    access_groups: z
      .array(z.string())
      .nullable()
      .openapi({ description: "The access groups whose customers may use this data source; `null`: every access group." }),
  })
  .openapi("DataSource");
const Namespace = z
  .string()
  .regex(/^[A-Za-z0-9_]{1,64}$/, "must be 1-64 letters, digits or _")
  .nullable()
  .openapi({
    description: "A PostgreSQL schema or MySQL database (1-64 letters, digits, `_`); `null`: the binding's own.",
    example: "tenant_42",
  });
const AccessGroupNames = z
  .array(Name)
  .max(100)
  .nullable()
  .openapi({ description: "Access group names; `null` (or absent on create): every access group.", example: ["Development"] });
const Levels = z
  .array(Name)
  .min(1)
  .max(10)
  .refine((levels) => new Set(levels).size === levels.length, "level names must be distinct")
  .openapi({ description: "Level names, root first.", example: ["Customer", "User"] });

const createAccessGroup = adminOperation({
  method: "post",
  path: "/admin/access_groups/",
  operationId: "adminCreateAccessGroup",
  tags,
  summary: "Create an access group",
  database: "primary",
  body: z.object({ name: Name }),
  response: successSchema({ access_group: AccessGroup }),
});
const listAccessGroups = adminOperation({
  method: "get",
  path: "/admin/access_groups/",
  operationId: "adminListAccessGroups",
  tags,
  summary: "List access groups",
  database: "session",
  response: successSchema({ access_groups: z.array(AccessGroup) }),
});
const createApiToken = adminOperation({
  method: "post",
  path: "/admin/api_tokens/",
  operationId: "adminCreateApiToken",
  tags,
  summary: "Create an API token (the token is shown once)",
  database: "primary",
  body: z.object({ access_group: Name, permission: z.enum(["read", "write"]), name: Name.optional() }),
  response: successSchema({ api_token: ApiTokenInfo, token: z.string() }),
});
const revokeApiToken = adminOperation({
  method: "post",
  path: "/admin/revoke_api_token/",
  operationId: "adminRevokeApiToken",
  tags,
  summary: "Revoke an API token (effective at once; idempotent)",
  database: "primary",
  body: z.object({ id: z.string().min(1).max(64) }),
  response: successSchema({}),
});
const getLevels = adminOperation({
  method: "get",
  path: "/admin/hierarchy_levels/",
  operationId: "adminGetHierarchyLevels",
  tags,
  summary: "Hierarchy levels, root first",
  database: "session",
  response: successSchema({ levels: z.array(z.string()) }),
});
const setLevels = adminOperation({
  method: "put",
  path: "/admin/hierarchy_levels/",
  operationId: "adminSetHierarchyLevels",
  tags,
  summary: "Replace the hierarchy levels",
  database: "primary",
  description:
    "Levels are matched by name. 409 `hierarchy_level_in_use` when a level with customers would disappear or a parent would end up at or below its child.",
  body: z.object({ levels: Levels }),
  response: successSchema({ levels: z.array(z.string()) }),
});
const createSchema = adminOperation({
  method: "post",
  path: "/admin/schemas/",
  operationId: "adminCreateSchema",
  tags,
  summary: "Create a schema",
  database: "primary",
  body: z.object({ name: Name }),
  response: successSchema({ schema: Schema }),
});
const listSchemas = adminOperation({
  method: "get",
  path: "/admin/schemas/",
  operationId: "adminListSchemas",
  tags,
  summary: "List schemas",
  database: "session",
  response: successSchema({ schemas: z.array(Schema) }),
});
const createDataSource = adminOperation({
  method: "post",
  path: "/admin/data_sources/",
  operationId: "adminCreateDataSource",
  tags,
  summary:
    "Register a database bound to the Worker (D1, or PostgreSQL or MySQL through Hyperdrive), or a ClickHouse server, as a data source",
  database: "primary",
  description:
    '`kind` defaults to `d1`. A binding the Worker does not have, or of another kind, is refused (400 on `binding`). `kind: "clickhouse"` takes `connection` instead of `binding` (docs/clickhouse.md): its `url` https to a public host (400 on `connection.url`), its password stored sealed under the secret `DATA_SOURCE_KEY` (without it 503 `data_source_key_missing`, nothing stored) and never answered. `namespace` (PostgreSQL, MySQL, ClickHouse): the schema or database its panels read, so one binding or server serves many tenants. `access_groups` (names) restricts which access groups\' customers may use it; absent or `null`: every access group. Unknown access group → 404 `access_group_not_found`.',
  body: z.object({
    name: Name,
    binding: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must be a binding name")
      .optional(),
    kind: z.enum(["d1", "postgres", "mysql", "clickhouse"]).optional(),
    connection: ConnectionInput.optional(),
    namespace: Namespace.optional(),
    provided_id: Name.optional(),
    access_groups: AccessGroupNames.optional(),
  }),
  response: successSchema({ data_source: DataSource }),
});
const updateDataSource = adminOperation({
  method: "post",
  path: "/admin/update_data_source/",
  operationId: "adminUpdateDataSource",
  tags,
  summary: "Change a data source's name, namespace, access groups or ClickHouse connection",
  database: "primary",
  description:
    "The data source by `id` or `provided_id` (exactly one); what is not given stays. `connection` (ClickHouse only): what it gives replaces, a `password` given replaces the stored one, an absent one keeps it. `namespace: null` reads the binding's own schema or database again. `access_groups: null` lets every access group use it. Customers of other access groups can no longer be mapped to it (422 `unknown_data_source`), and their existing mappings to it act as no mapping. Unknown data source → 404 `data_source_not_found`; unknown access group → 404 `access_group_not_found`.",
  body: z.object({
    id: z.number().int().positive().optional(),
    provided_id: Name.optional(),
    name: Name.optional(),
    namespace: Namespace.optional(),
    access_groups: AccessGroupNames.optional(),
    connection: ConnectionInput.partial().optional(),
  }),
  response: successSchema({ data_source: DataSource }),
});
const listDataSources = adminOperation({
  method: "get",
  path: "/admin/data_sources/",
  operationId: "adminListDataSources",
  tags,
  summary: "List data sources",
  database: "session",
  response: successSchema({ data_sources: z.array(DataSource) }),
});

export function registerAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  const ok = 1 as const;
  app.openapi(createAccessGroup, async (c) =>
    c.json({ success: ok, access_group: await admin.createAccessGroup(c.get("db"), c.req.valid("json").name) }, 200),
  );
  app.openapi(listAccessGroups, async (c) => c.json({ success: ok, access_groups: await admin.listAccessGroups(c.get("db")) }, 200));
  app.openapi(searchCustomersOperation, async (c) =>
    c.json({ success: ok, ...(await searchCustomers(c.get("db"), c.req.valid("query"))) }, 200),
  );
  app.openapi(createApiToken, async (c) => c.json({ success: ok, ...(await admin.createApiToken(c.get("db"), c.req.valid("json"))) }, 200));
  app.openapi(revokeApiToken, async (c) => {
    await admin.revokeApiToken(c.get("db"), c.env, c.req.valid("json").id);
    return c.json({ success: ok }, 200);
  });
  app.openapi(getLevels, async (c) => c.json({ success: ok, levels: await admin.getLevels(c.get("db")) }, 200));
  app.openapi(setLevels, async (c) => c.json({ success: ok, levels: await admin.setLevels(c.get("db"), c.req.valid("json").levels) }, 200));
  app.openapi(createSchema, async (c) =>
    c.json({ success: ok, schema: await admin.createSchema(c.get("db"), c.req.valid("json").name) }, 200),
  );
  app.openapi(listSchemas, async (c) => c.json({ success: ok, schemas: await admin.listSchemas(c.get("db")) }, 200));
  app.openapi(createDataSource, async (c) =>
    c.json({ success: ok, data_source: await admin.createDataSource(c.get("db"), c.env, c.req.valid("json")) }, 200),
  );
  app.openapi(updateDataSource, async (c) =>
    c.json({ success: ok, data_source: await admin.updateDataSource(c.get("db"), c.env, c.req.valid("json")) }, 200),
  );
  app.openapi(listDataSources, async (c) => c.json({ success: ok, data_sources: await admin.listDataSources(c.get("db")) }, 200));
}

import type { OpenAPIHono } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";
import { jsonBody } from "./json-body";

/**
 * Floor routes for the throughput benchmark (development only, not part of the API): what
 * a request costs with nothing but one trivial D1 query, or nothing but the JSON body
 * rules. `get_customer` is compared with them in the same run.
 */
export function registerDevFloorRoutes(app: OpenAPIHono<AppEnv>): void {
  app.use("/_dev/floor/*", async (c, next) => {
    if (c.env.ENVIRONMENT !== "development") throw new ApiError("route_not_found", `No route ${c.req.method} ${c.req.path}.`);
    await next();
  });
  app.get("/_dev/floor/d1", async (c) => {
    const [row] = await c.get("db").all<{ one: number }>(sql`SELECT 1 AS one`);
    return c.json({ success: 1, one: row.one });
  });
  app.post("/_dev/floor/echo", jsonBody, async (c) => c.json({ success: 1, body: JSON.parse(await c.req.text()) }));
}

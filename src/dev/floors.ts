import type { OpenAPIHono } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { stageTimings } from "../lib/stages";
import { jsonBody } from "../http/json-body";

/**
 * Benchmark routes (DEV_ROUTES only, see dev-only.ts; not part of the API). Floors: what a request costs
 * with nothing but one trivial D1 query, nothing but the JSON body rules, or both —
 * `get_customer` is compared with them in the same run. Delivery stages: where a job's time
 * went, for `npm run bench:delivery`.
 */
export function registerDevFloorRoutes(app: OpenAPIHono<AppEnv>): void {
  app.get("/_dev/delivery-stages/:jobId", (c) => {
    const timing = stageTimings(c.req.param("jobId"));
    if (!timing) throw new ApiError("job_not_found", "No stage timings for this job in this isolate.");
    return c.json({ success: 1, ...timing });
  });
  app.get("/_dev/floor/d1", async (c) => c.json({ success: 1, one: await trivialQuery(c.get("db")) }));
  app.post("/_dev/floor/echo", jsonBody, async (c) => c.json({ success: 1, body: JSON.parse(await c.req.text()) }));
  // What get_customer cannot do without: a POST with a JSON body, and one D1 query.
  app.post("/_dev/floor/body-d1", jsonBody, async (c) =>
    c.json({ success: 1, one: await trivialQuery(c.get("db")), body: JSON.parse(await c.req.text()) }),
  );
}

/** One D1 round trip that asks for nothing. */
async function trivialQuery(db: Database): Promise<number> {
  const [row] = await db.all<{ one: number }>(sql`SELECT 1 AS one`);
  return row.one;
}

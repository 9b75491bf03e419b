import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { dataSources } from "../db/schema";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { jsonBody } from "../http/json-body";

/**
 * `npm run admin -- data load` into a local D1 data source (DEV_ROUTES only, admin token:
 * dev-only.ts; not part of the API): the CLI's statements (a CREATE TABLE, its rows' INSERTs,
 * scripts/lib/data-load.mjs) run here, in one batch per call, on the binding of a `d1` data
 * source. Through the running server, not a second process on its files: wrangler d1 execute
 * beside a running `wrangler dev` on the same state ended that server.
 */
const DataLoadBody = z.object({
  binding: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/),
  statements: z.array(z.string().min(1)).min(1).max(5000),
});

export function registerDataLoadDevRoutes(app: OpenAPIHono<AppEnv>): void {
  app.post("/_dev/data-load", jsonBody, async (c) => {
    const body = DataLoadBody.parse(JSON.parse(await c.req.text()));
    const [source] = await c
      .get("db")
      .select({ id: dataSources.id })
      .from(dataSources)
      .where(and(eq(dataSources.binding, body.binding), eq(dataSources.kind, "d1")));
    const database = (c.env as unknown as Record<string, D1Database | undefined>)[body.binding];
    if (!source || typeof database?.batch !== "function")
      throw new ApiError("validation_error", `No D1 data source uses the binding ${body.binding}.`, "binding");
    try {
      await database.batch(body.statements.map((statement) => database.prepare(statement)));
    } catch (error) {
      throw new ApiError("validation_error", `D1 refused the rows: ${(error as Error).message}`, "statements");
    }
    return c.json({ success: 1, statements: body.statements.length });
  });
}

import type { MiddlewareHandler } from "hono";
import { config } from "../config";
import { adminAccess } from "../http/auth";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";

/** Where the development routes live: benchmark floors, the local outbox, chart and report-SQL helpers. */
export const DEV_ROUTES_PATH = "/_dev/*";

/** The local outbox (a developer's mailbox, opened in a browser): the one development route without the admin token. */
const isOutbox = (path: string) => path === "/_dev/outbox" || path.startsWith("/_dev/outbox/");

/**
 * Owns every `/_dev/` route (src/assemble-app.ts puts it ahead of all of them): they exist only with
 * the DEV_ROUTES switch on; otherwise the path answers 404 `route_not_found` like any
 * unknown one, so no route needs its own check and none can forget it. On, every route but
 * the outbox also needs `Authorization: Bearer <ADMIN_TOKEN>` (401 `invalid_admin_token`):
 * they run SQL on data sources and show the SQL a builder query compiles to.
 */
export const devOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!config(c.env).DEV_ROUTES) throw new ApiError("route_not_found", `No route ${c.req.method} ${c.req.path}.`);
  if (isOutbox(c.req.path)) return next();
  return adminAccess(c, next);
};

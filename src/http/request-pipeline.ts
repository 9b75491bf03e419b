import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { createSessionDatabase, isBookmark } from "../db/client";
import { missingSecrets } from "../env";
import { log, setLogLevel } from "../lib/log";
import type { AppContext, AppEnv } from "./context";
import { answeringNotFound, ApiError, errorBody } from "./errors";
import { currentRequest, RequestState } from "./request-state";
import { validationHook } from "./validation";
import { withoutTrailingSlash } from "./route-path";
import { config, ConfigError } from "../config";

/**
 * What every request passes through: the app itself (its validation hook), the request
 * context middleware, the error handler and the 404/405 answer. The capabilities' routes
 * are added by src/assemble-app.ts.
 */

const callerRequestId = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Configuration errors are logged once per isolate, on the first request that meets them (a
 * Worker has no start hook that sees its env).
 */
let configurationLogged = false;

export function newApp(): OpenAPIHono<AppEnv> {
  // strict: false serves every path with and without its trailing slash (same handler).
  return new OpenAPIHono<AppEnv>({ strict: false, defaultHook: validationHook });
}

/** Request id, per-request database handle with a round-trip counter, one JSON log line. */
export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  // Every var is parsed before anything else: a bad one answers 500 naming it (handleError).
  const settings = config(c.env);
  setLogLevel(settings.LOG_LEVEL);
  if (!configurationLogged) {
    const problems = missingSecrets(c.env);
    for (const problem of problems) log("error", "configuration", { problem });
    configurationLogged = problems.length > 0;
  }
  const given = c.req.header("X-Request-Id");
  const requestId = given && callerRequestId.test(given) ? given : crypto.randomUUID();
  // Served through serveRequest (src/index.ts) the state exists already; a direct app.fetch gets its own.
  const state = currentRequest() ?? new RequestState(c.env);
  const roundTrips = state.d1;
  // Reads (GET) may be served by a replica; other methods read the primary unless apiAccess
  // knows the operation only reads. `X-D1-Bookmark` asks for data at least that fresh.
  const bookmark = c.req.header("X-D1-Bookmark");
  state.readFrom(c.req.method === "GET" || c.req.method === "HEAD" ? "session" : "primary", isBookmark(bookmark) ? bookmark : null);
  c.set("request", state);
  c.set("requestId", requestId);
  c.set("roundTrips", roundTrips);
  c.set("db", createSessionDatabase(state.session, roundTrips));
  const started = Date.now();
  await next();
  state.finishAnswer();
  c.res.headers.set("X-Request-Id", requestId);
  const latest = state.session.latestBookmark();
  if (latest) c.res.headers.set("X-D1-Bookmark", latest);
  if (settings.DIAGNOSTICS) {
    c.res.headers.set("X-D1-Round-Trips", String(roundTrips.count));
    c.res.headers.set("X-D1-Primary-Round-Trips", String(roundTrips.primary));
    c.res.headers.set("X-DO-Round-Trips", String(state.doTrips));
    if (state.session.constraint) c.res.headers.set("X-D1-Session", state.session.constraint);
    const { kv, r2, queue } = state.bindingTrips;
    c.res.headers.set("X-Binding-Round-Trips", `kv=${kv} r2=${r2} queue=${queue}`);
  }
  log("info", "request", {
    request_id: requestId,
    method: c.req.method,
    path: redactCapabilities(c.req.path),
    status: c.res.status,
    duration_ms: Date.now() - started,
    d1_round_trips: roundTrips.count,
    do_round_trips: state.doTrips,
    token_id: c.get("principal")?.tokenId,
  });
};

/** Download, share and unsubscribe links are capabilities: their token never reaches a log line. */
export function redactCapabilities(path: string): string {
  return path.replace(/^(\/api\/downloads|\/share|\/unsubscribe)\/[^/]+/i, "$1/[redacted]");
}

export function handleError(err: Error, c: AppContext): Response {
  const requestId = c.get("requestId") ?? crypto.randomUUID();
  let error: ApiError;
  if (err instanceof ApiError) {
    error = err;
  } else if (err instanceof ConfigError) {
    // A var of the deployment does not parse: say which (names and reasons only, no secrets).
    log("error", "invalid configuration", { request_id: requestId, error: err.message });
    error = new ApiError("internal_error", err.message);
  } else if (err instanceof HTTPException && err.status === 415) {
    error = new ApiError("unsupported_media_type", "Request bodies must be JSON (Content-Type: application/json).");
  } else if (err instanceof HTTPException && err.status === 400) {
    error = new ApiError("invalid_json", "The request body is not valid JSON.");
  } else {
    log("error", "unexpected error", { request_id: requestId, error: err.message, stack: err.stack });
    error = new ApiError("internal_error", "An unexpected error occurred; quote the request id when reporting it.");
  }
  answeringNotFound(error.code);
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(errorBody(error, requestId), error.status);
}

/** Unknown path → 404 route_not_found; known path, other method → 405 with `Allow`. */
export function routeNotFound(app: OpenAPIHono<AppEnv>) {
  return (c: AppContext): Response => {
    const path = withoutTrailingSlash(c.req.path);
    const allowed = new Set<string>();
    for (const route of app.routes) {
      if (route.method === "ALL" || route.path.includes("*")) continue;
      if (pathPattern(route.path).test(path)) allowed.add(route.method);
    }
    if (allowed.size > 0) {
      if (allowed.has("GET")) allowed.add("HEAD");
      c.header("Allow", [...allowed].join(", "));
      return handleError(
        new ApiError("method_not_allowed", `${c.req.method} is not allowed on ${c.req.path}; use ${[...allowed].join(", ")}.`),
        c,
      );
    }
    return handleError(new ApiError("route_not_found", `No route ${c.req.method} ${c.req.path}.`), c);
  };
}

const patterns = new Map<string, RegExp>();
function pathPattern(routePath: string): RegExp {
  let pattern = patterns.get(routePath);
  if (!pattern) {
    const source = withoutTrailingSlash(routePath)
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    pattern = new RegExp(`^${source}$`);
    patterns.set(routePath, pattern);
  }
  return pattern;
}

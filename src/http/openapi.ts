import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { apiAccess, adminAccess } from "./auth";
import type { AppEnv } from "./context";
import { errorStatus } from "./errors";
import { jsonBody } from "./json-body";
import { declaredRetry } from "./replica-retry";
import { withoutTrailingSlash } from "./route-path";

export const ErrorSchema = z
  .object({
    success: z.literal(0),
    error: z.object({
      code: z.enum(Object.keys(errorStatus) as [keyof typeof errorStatus, ...(keyof typeof errorStatus)[]]),
      message: z.string(),
      field: z.string().optional(),
      request_id: z.string(),
    }),
  })
  .openapi("Error");

const errorResponses = {
  400: { description: "`invalid_json` or `validation_error`", content: { "application/json": { schema: ErrorSchema } } },
  401: { description: "`missing_api_token` or `invalid_api_token`", content: { "application/json": { schema: ErrorSchema } } },
  403: { description: "`read_only_token` or a limit", content: { "application/json": { schema: ErrorSchema } } },
  404: { description: "The named resource does not exist (for this token)", content: { "application/json": { schema: ErrorSchema } } },
  409: { description: "Conflict", content: { "application/json": { schema: ErrorSchema } } },
  422: { description: "A rule of the API is broken", content: { "application/json": { schema: ErrorSchema } } },
  429: { description: "`rate_limited`, see `Retry-After`", content: { "application/json": { schema: ErrorSchema } } },
} as const;

interface OperationOptions<Body extends z.ZodType | undefined, Query extends z.ZodObject | undefined, Response extends z.ZodType> {
  method: "get" | "post" | "put" | "delete";
  path: string;
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  deprecated?: boolean;
  body?: Body;
  query?: Query;
  params?: z.ZodObject;
  response: Response;
  /** Requests the service makes back to the caller (e.g. a completion webhook). */
  callbacks?: RouteConfig["callbacks"];
  /**
   * The D1 handle the handler's `c.var.db` reads: `primary` (writes and whatever must see
   * them), or `session` (a replica may answer, at least as fresh as the caller's bookmark;
   * docs/edge.md). An admin or public operation reads a session only on GET.
   */
  database: "primary" | "session";
  /**
   * `retry on primary`: a `*_not_found` answer read on a replica is served once more from the
   * primary (http/replica-retry.ts). Only with `database: "session"`; elsewhere it could never
   * fire and is refused when the route is declared.
   */
  notFound?: "answer" | "retry on primary";
}

/** What an `/api/` operation needs of the caller's API token, and the D1 handle that follows from it. */
type ApiAccess =
  /** A write token; the operation reads and writes the primary. */
  | { access: "write"; database: "primary"; notFound?: "answer" }
  /** Any token of the access group; the operation reads a session. */
  | { access: "read"; database: "session" };

/**
 * Routes match without their trailing slash (the app is not strict, so both spellings
 * reach one handler); the OpenAPI document shows each path as the spec writes it.
 */
const writtenPaths = new Map<string, string>();

export function documentedPaths<T extends { paths?: Record<string, unknown> }>(document: T): T {
  const paths = Object.fromEntries(Object.entries(document.paths ?? {}).map(([path, item]) => [writtenPaths.get(path) ?? path, item]));
  return { ...document, paths };
}

function route<B extends z.ZodType | undefined, Q extends z.ZodObject | undefined, R extends z.ZodType>(
  options: OperationOptions<B, Q, R>,
  middleware: MiddlewareHandler<AppEnv>[],
  security: RouteConfig["security"],
) {
  const path = withoutTrailingSlash(options.path);
  writtenPaths.set(path, options.path);
  return createRoute({
    method: options.method,
    path,
    operationId: options.operationId,
    tags: options.tags,
    summary: options.summary,
    description: options.description,
    deprecated: options.deprecated,
    ...(options.callbacks ? { callbacks: options.callbacks } : {}),
    security,
    // The declared replica retry first: it marks the request before anything can answer not-found.
    middleware: [...declaredRetry(options), ...middleware],
    request: {
      ...(options.query ? { query: options.query } : {}),
      ...(options.params ? { params: options.params } : {}),
      ...(options.body ? { body: { required: true, content: { "application/json": { schema: options.body } } } } : {}),
    } as {
      query: Q extends z.ZodObject ? Q : never;
      body: B extends z.ZodType ? { required: true; content: { "application/json": { schema: B } } } : never;
    },
    responses: {
      200: { description: "Success", content: { "application/json": { schema: options.response } } },
      ...errorResponses,
    },
  });
}

/**
 * A public `/api/` operation: authentication, permission and rate limit first, then the
 * JSON body conventions, then the zod schemas (which are also the OpenAPI document).
 */
export function apiOperation<B extends z.ZodType | undefined, Q extends z.ZodObject | undefined, R extends z.ZodType>(
  options: OperationOptions<B, Q, R> & { delivery?: boolean; successor?: string } & ApiAccess,
) {
  const access = apiAccess({ write: options.access === "write", delivery: options.delivery });
  const chain = options.method === "get" ? [access] : [access, jsonBody];
  // An operation that only reads (access: "read") reads a session whatever its method.
  if (options.successor === undefined) return route(options, chain, [{ ApiToken: [] }]);
  return route({ ...options, deprecated: true }, [deprecation(options.successor), ...chain], [{ ApiToken: [] }]);
}

/** Marks every response of a deprecated operation, errors included (docs/api-contract.md, "Deprecated user groups and end users"). */
function deprecation(successor: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    c.res.headers.set("Deprecation", "true");
    c.res.headers.set("Link", `<${successor}>; rel="successor-version"`);
  };
}

/** An `/admin/` operation, authenticated with the admin bearer token. */
export function adminOperation<B extends z.ZodType | undefined, Q extends z.ZodObject | undefined, R extends z.ZodType>(
  options: OperationOptions<B, Q, R>,
) {
  sessionOnlyOnGet(options);
  return route(options, options.method === "get" ? [adminAccess] : [adminAccess, jsonBody], [{ AdminToken: [] }]);
}

/** A route without authentication (capability URLs such as download links). */
export function publicOperation<B extends z.ZodType | undefined, Q extends z.ZodObject | undefined, R extends z.ZodType>(
  options: OperationOptions<B, Q, R>,
) {
  sessionOnlyOnGet(options);
  return route(options, options.method === "get" ? [] : [jsonBody], []);
}

/**
 * Without an API token's permission to go by, the request pipeline reads a session for GET
 * and the primary otherwise (http/request-pipeline.ts); a declaration saying otherwise is
 * refused when the route is declared, not silently ignored.
 */
export function sessionOnlyOnGet(options: { method: string; operationId: string; database: "primary" | "session" }): void {
  const reads = options.method === "get" ? "session" : "primary";
  if (options.database !== reads) {
    throw new Error(
      `${options.operationId}: a ${options.method.toUpperCase()} without an API token reads database "${reads}", not "${options.database}".`,
    );
  }
}

/** `{ success: 1, ...fields }` */
export function successSchema<T extends z.ZodRawShape>(shape: T) {
  return z.object({ success: z.literal(1), ...shape });
}

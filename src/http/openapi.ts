import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { apiAccess, adminAccess } from "./auth";
import type { AppEnv } from "./context";
import { type ErrorCode, errorStatus } from "./errors";
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

/**
 * A body's exclusive pair, as the server checks it (neither or both: 400), stated in the
 * document as JSON Schema does (`oneOf` of the two `required`s), so a generated client refuses
 * what the server refuses. The metadata type of zod-openapi has no `oneOf` beside `properties`.
 */
export function exactlyOneOf(a: string, b: string): object {
  return { oneOf: [{ required: [a] }, { required: [b] }] };
}

/**
 * The ways a request is authorised, each once as an OpenAPI security scheme
 * (components.securitySchemes; registerSecuritySchemes). A declaration names its `Access`
 * and its `security`, its authentication errors and, where OpenAPI has no scheme for it
 * (a capability token in the path), a sentence of its description follow from that.
 */
export const securitySchemes = {
  ApiToken: {
    type: "apiKey",
    in: "header",
    name: "Service-Authorization",
    description: "`Token <API_KEY>`: an access group's API token (`POST /admin/api_tokens/`).",
  },
  AdminToken: { type: "http", scheme: "bearer", description: "The service's admin token (the `ADMIN_TOKEN` secret)." },
  ConsoleSession: {
    type: "apiKey",
    in: "cookie",
    name: "console_session",
    description:
      "The console's session (`POST /console/session`, docs/console.md): accepted only from the service's own pages (`Sec-Fetch-Site: same-origin`, `Origin`), else 403 `cross_site_request`.",
  },
  EmbedToken: {
    type: "http",
    scheme: "bearer",
    description: "A signed embed token (`POST /api/generate_embed_token/`, minted with `user_email`) as `Authorization: Bearer <token>`.",
  },
  EmbedQueryToken: {
    type: "apiKey",
    in: "query",
    name: "token",
    description: "A signed embed token from `POST /api/generate_embed_token/` (with `dashboard_embed_id`); its `embed_url` carries it.",
  },
  CustomerToken: {
    type: "apiKey",
    in: "query",
    name: "customer_token",
    description: "The customer's long-lived token (legacy; refused when `EMBED_REQUIRE_SIGNED=true`). Prefer `token`.",
  },
  BuilderToken: {
    type: "http",
    scheme: "bearer",
    description: "A report builder token from `POST /api/generate_embed_token/` with `blueprint_id`, as `Authorization: Bearer <token>`.",
  },
  BuilderQueryToken: {
    type: "apiKey",
    in: "query",
    name: "token",
    description: "A report builder token from `POST /api/generate_embed_token/` with `blueprint_id`; its `embed_url` carries it.",
  },
  PreviewToken: {
    type: "apiKey",
    in: "query",
    name: "token",
    description: "The preview token of `POST /admin/dashboard_previews/`; its `preview_url` carries it.",
  },
  WebhookSignature: {
    type: "apiKey",
    in: "header",
    name: "X-Signature",
    description:
      "How the service signs what it sends you: `sha256=<hex>`, the HMAC-SHA256 of `<X-Signature-Timestamp>.<raw body>` with the access group's webhook secret (`POST /admin/webhook_secrets/`). Check it, and refuse a timestamp more than 5 minutes old.",
  },
} as const satisfies Record<string, { type: "apiKey" | "http"; description: string; [key: string]: string }>;

type SchemeName = keyof typeof securitySchemes;

/** Registers every scheme of `securitySchemes` once, for the whole document. */
export function registerSecuritySchemes(registry: {
  registerComponent(type: "securitySchemes", name: string, component: object): unknown;
}) {
  for (const [name, scheme] of Object.entries(securitySchemes)) registry.registerComponent("securitySchemes", name, scheme);
}

/** How an operation is authorised (see `securitySchemes`). */
export type Access =
  | "api token"
  | "admin token"
  /** A signed embed token as a bearer token (the embed page's own JSON calls). */
  | "embed token"
  /** A signed embed token in `token`, or the legacy `customer_token` (pages and links in an iframe). */
  | "embed token in query"
  | "builder token"
  | "builder token in query"
  | "preview token in query"
  /** The console's sign-in: the admin token in the JSON body, exchanged for a session cookie (docs/console.md). */
  | "admin token in body"
  /** The console's session cookie, from the service's own pages only. */
  | "console session"
  /** The path's `{token}` is the credential: whoever holds the link (e-mailed or handed out) may use it. */
  | "capability token in path"
  /** Anyone: nothing secret is served. */
  | "public";

const accessSecurity: Record<Access, Partial<Record<SchemeName, string[]>>[]> = {
  "api token": [{ ApiToken: [] }],
  "admin token": [{ AdminToken: [] }, { ConsoleSession: [] }],
  "embed token": [{ EmbedToken: [] }],
  "embed token in query": [{ EmbedQueryToken: [] }, { CustomerToken: [] }],
  "builder token": [{ BuilderToken: [] }],
  "builder token in query": [{ BuilderQueryToken: [] }],
  "preview token in query": [{ PreviewToken: [] }],
  // The credential is the body's `admin_token`, which OpenAPI has no scheme for; the description says it.
  "admin token in body": [],
  "console session": [{ ConsoleSession: [] }],
  // OpenAPI has no scheme for a credential in the path; the description says it instead.
  "capability token in path": [],
  public: [],
};

const accessNote: Partial<Record<Access, string>> = {
  "admin token in body":
    "Authorisation: the body's `admin_token` (the `ADMIN_TOKEN` secret), exchanged for the console's session cookie; 10 wrong tries a minute from one client answer 429.",
  "capability token in path":
    "Authorisation: the `{token}` in the path is a capability token; whoever holds the link may use it until it expires. No other credential is asked for.",
  public: "Authorisation: none; this is public.",
};

/** The authentication failures each kind of access answers with (errors.ts), besides the answers every operation shares. */
const accessErrors: Record<Access, ErrorCode[]> = {
  "api token": ["missing_api_token", "invalid_api_token", "read_only_token"],
  "admin token": ["invalid_admin_token", "cross_site_request"],
  "embed token": ["invalid_embed_token", "subscriptions_not_allowed"],
  "embed token in query": ["invalid_embed_token"],
  "builder token": ["invalid_embed_token", "saving_not_allowed"],
  "builder token in query": ["invalid_embed_token"],
  "preview token in query": ["invalid_embed_token"],
  "admin token in body": ["invalid_admin_token", "cross_site_request"],
  "console session": ["cross_site_request"],
  "capability token in path": [],
  public: [],
};

const errorContent = { "application/json": { schema: ErrorSchema } };
/** Codes that belong to a kind of access: an operation answers only its own access's. */
const accessOwned = new Set(Object.values(accessErrors).flat());
/** The pipeline's answers to a body (http/json-body.ts), only where there is one. */
const bodyCodes = new Set<ErrorCode>(["invalid_json", "payload_too_large", "unsupported_media_type"]);
/** Answers of the pipeline itself, never of a declared operation (a path or method with no route). */
const pipelineCodes = new Set<ErrorCode>(["route_not_found", "method_not_allowed"]);
const codesByStatus = Object.entries(errorStatus).reduce<Map<number, ErrorCode[]>>((byStatus, [code, status]) => {
  if (status >= 400 && status < 500 && !pipelineCodes.has(code as ErrorCode))
    byStatus.set(status, [...(byStatus.get(status) ?? []), code as ErrorCode]);
  return byStatus;
}, new Map());

/**
 * The 4xx answers of a JSON operation, written from the one error table (errors.ts): for each
 * status, the table's codes, less those of another kind of access and, without a body, those
 * about a body. (Which of them one operation can give is in its description and the docs.)
 */
export function errorResponses(access: Access, options: { body: boolean; write: boolean }) {
  const own = new Set(accessErrors[access].filter((code) => code !== "read_only_token" || options.write));
  const responses: Record<string, { description: string; content: typeof errorContent }> = {};
  for (const [status, all] of codesByStatus) {
    const codes = all.filter((code) => (accessOwned.has(code) ? own.has(code) : options.body || !bodyCodes.has(code)));
    if (codes.length === 0) continue;
    const listed = codes.map((code) => `\`${code}\``).join(", ");
    responses[status] = { description: `The error table's codes with this status: ${listed}.`, content: errorContent };
  }
  return responses;
}

/** What every response map needs at least: a 4xx answer. An operation that answers none says why: only another method fails. */
const onlyOtherMethodsFail = {
  405: {
    description: "`method_not_allowed`: only for another method on this path (with `Allow`); this operation itself always succeeds.",
    content: errorContent,
  },
};

type Responses = NonNullable<RouteConfig["responses"]>;
const hasClientError = (responses: Responses) => Object.keys(responses).some((status) => /^4/.test(status));

/**
 * Requests the service makes back to the caller: each is signed as `WebhookSignature`
 * describes, and each says how a refusal is treated.
 */
function signedCallbacks(callbacks: RouteConfig["callbacks"]): RouteConfig["callbacks"] {
  if (!callbacks) return callbacks;
  const signed = (operation: Record<string, unknown> & { responses?: Responses }) => ({
    security: [{ WebhookSignature: [] }],
    ...operation,
    responses: {
      ...operation.responses,
      ...(hasClientError(operation.responses ?? {})
        ? {}
        : {
            "4XX": { description: "A refusal (e.g. a signature you did not accept) counts as not received: retried as any other failure." },
          }),
    },
  });
  return Object.fromEntries(
    Object.entries(callbacks).map(([name, callback]) => [
      name,
      Object.fromEntries(
        Object.entries(callback as Record<string, Record<string, Record<string, unknown>>>).map(([expression, item]) => [
          expression,
          Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, signed(operation)])),
        ]),
      ),
    ]),
  ) as RouteConfig["callbacks"];
}

/**
 * What follows from an operation's `Access`: its `security`, the sentence of its description a
 * security scheme cannot say, signed callbacks, and, when it declares no 4xx answer, the one it has.
 */
function withAccess<R extends Pick<RouteConfig, "description" | "responses" | "callbacks">>(
  access: Access,
  route: R,
): R & { security: RouteConfig["security"] } {
  const note = accessNote[access];
  return {
    ...route,
    security: accessSecurity[access],
    ...(note ? { description: route.description ? `${route.description}\n\n${note}` : note } : {}),
    ...(route.callbacks ? { callbacks: signedCallbacks(route.callbacks) } : {}),
    responses: hasClientError(route.responses) ? route.responses : { ...route.responses, ...onlyOtherMethodsFail },
  };
}

/**
 * A route not under `/api/` or `/admin/` (pages, their CSV and JSON calls, scripts, links):
 * `createRoute` with the route's `access` declared, from which its security follows.
 */
export function declaredRoute<P extends string, R extends Omit<RouteConfig, "path"> & { path: P }>(config: R & { access: Access }) {
  const { access, ...route } = config;
  return createRoute(withAccess(access, route as unknown as R));
}

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
  access: Access,
  write = true,
) {
  const path = withoutTrailingSlash(options.path);
  writtenPaths.set(path, options.path);
  const declared = withAccess(access, {
    description: options.description,
    callbacks: options.callbacks,
    responses: {
      200: { description: "Success", content: { "application/json": { schema: options.response } } },
      ...errorResponses(access, { body: options.body !== undefined, write }),
    },
  });
  return createRoute({
    method: options.method,
    path,
    operationId: options.operationId,
    tags: options.tags,
    summary: options.summary,
    description: declared.description,
    deprecated: options.deprecated,
    ...(declared.callbacks ? { callbacks: declared.callbacks } : {}),
    security: declared.security,
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
    responses: declared.responses as {
      200: { description: string; content: { "application/json": { schema: R } } };
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
  const write = options.access === "write";
  if (options.successor === undefined) return route(options, chain, "api token", write);
  return route({ ...options, deprecated: true }, [deprecation(options.successor), ...chain], "api token", write);
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
  return route(options, options.method === "get" ? [adminAccess] : [adminAccess, jsonBody], "admin token");
}

/**
 * A route without an API or admin token: a capability URL (such as a download link), or
 * public. Unless it says which, a path with a `{token}` is a capability URL.
 */
export function publicOperation<B extends z.ZodType | undefined, Q extends z.ZodObject | undefined, R extends z.ZodType>(
  options: OperationOptions<B, Q, R> & { access?: "capability token in path" | "public" | "admin token in body" | "console session" },
) {
  sessionOnlyOnGet(options);
  const access = options.access ?? (options.path.includes("{token}") ? "capability token in path" : "public");
  return route(options, options.method === "get" ? [] : [jsonBody], access);
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

import { env } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { errorStatus } from "../../src/http/errors";
import { ADMIN_TOKEN, admin, call, createCustomer, unique, workspace } from "../helpers/api";

/**
 * Property-based fuzzing of every /api/ and /admin/ operation listed in /openapi.json:
 * generated invalid bodies, field types, media types, headers, methods and paths. For each
 * request: never a 5xx, always the error envelope for an error, and a refused request
 * leaves every table of the database exactly as it was. Seeded (operation i uses SEED + i):
 * a failure prints its seed and path; put them in the fc.assert options to replay it.
 */
const SEED = 20261122;
const RUNS_PER_OPERATION = 30;
const DB = (env as unknown as { DB: D1Database }).DB;

interface Operation {
  method: string;
  path: string;
  admin: boolean;
  properties: string[];
  required: string[];
}

const operations: Operation[] = [];
let tables: string[] = [];
let providedId = "";
let requests = 0;

/** Every row of every table, as one string (one D1 round trip). */
async function snapshot(): Promise<string> {
  const results = await DB.batch(tables.map((t) => DB.prepare(`SELECT * FROM "${t}" ORDER BY rowid`)));
  return JSON.stringify(results.map((r) => r.results));
}

beforeAll(async () => {
  const openapi = await call("GET", "/openapi.json");
  if (openapi.status !== 200) throw new Error(`/openapi.json answered ${openapi.status}: ${JSON.stringify(openapi.body).slice(0, 500)}`);
  const document = openapi.body as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
    components: { schemas: Record<string, unknown> };
  };
  const resolve = (schema: any): any => (schema?.$ref ? document.components.schemas[schema.$ref.split("/").pop()] : schema);
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith("/api/") && !path.startsWith("/admin/")) continue;
    for (const [method, operation] of Object.entries(item)) {
      const schema = resolve(operation.requestBody?.content["application/json"]?.schema);
      operations.push({
        method: method.toUpperCase(),
        path,
        admin: path.startsWith("/admin/"),
        properties: Object.keys(schema?.properties ?? {}),
        required: schema?.required ?? [],
      });
    }
  }
  const listed = await DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
  ).all<{ name: string }>();
  tables = listed.results.map((r) => r.name).sort();
  const { write } = await workspace();
  providedId = (await createCustomer(write, { provided_id: unique("fuzz") })).provided_id;
});

// ---- generators --------------------------------------------------------------------------

const weirdString = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\u0085",
    "\ud800",
    "a\udfff",
    "\u202e",
    "😀",
    "%00",
    "../../etc/passwd",
    "'; DROP TABLE customers; --",
    "<script>",
    "null",
    "0",
  ),
  fc.string({ minLength: 300, maxLength: 5000 }),
);
const wrongValue = fc.oneof(
  weirdString,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, true, false, null),
  fc.array(fc.jsonValue(), { maxLength: 5 }),
  fc.dictionary(weirdString, fc.jsonValue(), { maxKeys: 5 }),
);

/** Percent-encoded; a lone surrogate (which encodeURIComponent refuses) as its raw UTF-8 bytes. */
function pathSafe(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80";
  }
}

type Case =
  | { kind: "body"; body: unknown }
  | { kind: "raw"; raw: string; contentType: string }
  | { kind: "media"; contentType: string }
  | { kind: "auth"; header: [string, string] | null }
  | { kind: "header"; name: string; value: string }
  | { kind: "path"; suffix: string }
  | { kind: "method"; method: string };

function cases(operation: Operation): fc.Arbitrary<Case> {
  // An object with the operation's own field names holding wrong values (and some missing).
  // provided_id sometimes names a real customer, so the checks after it run too.
  const fieldsWrong = fc.record(
    Object.fromEntries(
      operation.properties.map((p) => [p, p === "provided_id" ? fc.oneof(fc.constant(providedId), wrongValue) : wrongValue]),
    ),
    { requiredKeys: [] },
  );
  return fc.oneof(
    { weight: 6, arbitrary: fieldsWrong.map((body) => ({ kind: "body" as const, body })) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(fc.jsonValue(), fc.dictionary(weirdString, wrongValue, { maxKeys: 6 }))
        .map((body) => ({ kind: "body" as const, body })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          raw: fc.oneof(fc.string(), fc.constantFrom("{", '{"a":', "[1,", "{'a':1}", '"\\ud800"', "nul", "{}garbage", "\u0000{}")),
          contentType: fc.constantFrom("application/json", "application/json; charset=utf-8", "application/vnd.api+json"),
        })
        .map((r) => ({ kind: "raw" as const, ...r })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/xml",
          "json",
          "*/*",
        )
        .map((contentType) => ({ kind: "media" as const, contentType })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constant(null),
          fc.tuple(
            fc.constantFrom("Service-Authorization", "Authorization"),
            fc.oneof(fc.constantFrom("Token", "Token ", "Bearer", "Bearer x", `Token ${"a".repeat(64)}`, "Basic YTpi"), fc.string()),
          ),
        )
        .map((header) => ({ kind: "auth" as const, header: header as [string, string] | null })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          name: fc.constantFrom(
            "X-Request-Id",
            "X-D1-Bookmark",
            "Accept",
            "Content-Encoding",
            "Transfer-Encoding",
            "Origin",
            "If-None-Match",
            "Range",
          ),
          value: fc.oneof(
            fc.string({ unit: "grapheme-ascii", maxLength: 300 }),
            fc.constantFrom("", "gzip", "chunked", "bytes=0-1", "*", "0".repeat(200)),
          ),
        })
        .map((h) => ({ kind: "header" as const, ...h })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          weirdString.map(pathSafe),
          fc.constantFrom("/x", "//", "/..", "%2F..", "?a=%ZZ", "?page=-1&page_size=1e9", "/%F0%9F%98%80", "/%ED%A0%80", "/%C2%85"),
        )
        .map((suffix) => ({ kind: "path" as const, suffix })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("GET", "POST", "PUT", "DELETE", "PATCH")
        .filter((m) => m !== operation.method)
        .map((method) => ({ kind: "method" as const, method })),
    },
  );
}

function request(operation: Operation, token: string, input: Case) {
  const headers: Record<string, string> = operation.admin
    ? { Authorization: `Bearer ${ADMIN_TOKEN}` }
    : { "Service-Authorization": `Token ${token}` };
  let path = operation.path.replace(/\{[^}]+\}/g, "f".repeat(64));
  let method = operation.method;
  let body: string | undefined = method === "GET" ? undefined : "{}";
  if (method !== "GET") headers["Content-Type"] = "application/json";
  switch (input.kind) {
    case "body":
      if (method !== "GET") body = JSON.stringify(input.body);
      else
        path += `?${new URLSearchParams(Object.entries(typeof input.body === "object" && input.body ? input.body : { q: input.body }).map(([k, v]) => [k, typeof v === "string" ? v : (JSON.stringify(v) ?? "")]))}`;
      break;
    case "raw":
      body = input.raw;
      headers["Content-Type"] = input.contentType;
      break;
    case "media":
      body = "a=1";
      headers["Content-Type"] = input.contentType;
      break;
    case "auth":
      delete headers.Authorization;
      delete headers["Service-Authorization"];
      if (input.header) headers[input.header[0]] = input.header[1];
      break;
    case "header":
      headers[input.name] = input.value;
      break;
    case "path":
      path = path.replace(/\/$/, "") + input.suffix;
      break;
    case "method":
      method = input.method;
      if (method === "GET") body = undefined;
      break;
  }
  if (method === "GET" || method === "HEAD") body = undefined;
  return { method, path, headers, body };
}

describe("fuzzing every /api/ and /admin/ operation of /openapi.json", () => {
  it("finds the operations", () => {
    expect(operations.length).toBeGreaterThan(30);
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(["POST /api/create_customer/", "POST /admin/webhook_secrets/", "GET /api/downloads/{token}"]),
    );
  });

  it("never answers 5xx, always answers errors in the envelope, and stores nothing for a refused request", async () => {
    const started = Date.now();
    for (const [index, operation] of operations.entries()) {
      // A token per operation, so the general rate limit rarely hides validation.
      const { write } = await workspace();
      await fc.assert(
        fc.asyncProperty(cases(operation), async (input) => {
          const { method, path, headers, body } = request(operation, write, input);
          const before = await snapshot();
          const res = await call(method, path, { headers, rawBody: body });
          requests++;
          const where = `${method} ${path} ${JSON.stringify(input).slice(0, 300)}`;
          expect(res.status, where).toBeLessThan(500);
          expect(res.headers.get("X-Request-Id"), where).toBeTruthy();
          if (res.status >= 400) {
            expect(res.body, where).toMatchObject({
              success: 0,
              error: { code: expect.any(String), message: expect.any(String), request_id: expect.any(String) },
            });
            expect(errorStatus[res.body.error.code as keyof typeof errorStatus], where).toBe(res.status);
            expect(await snapshot(), `${where}: a refused request changed stored data`).toBe(before);
          } else {
            expect(res.body?.success, where).toBe(1);
          }
        }),
        { seed: SEED + index, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
    }
    console.info(JSON.stringify({ fuzz: { seed: SEED, operations: operations.length, requests, seconds: (Date.now() - started) / 1000 } }));
  }, 600_000);
});

describe("fuzzing the viewer's subscriptions API and the unsubscribe links", () => {
  it("never answers 5xx; subscriptions answer errors in the envelope and store nothing when refused; unknown unsubscribe tokens are 404 pages", async () => {
    const { write } = await workspace();
    const email = `${unique("fz")}@fuzz.example`;
    const customer = await createCustomer(write, { provided_id: unique("fz-sub") });
    await admin("POST", "/admin/dashboards/", { embed_id: "fuzz-subs", name: "Fuzz" });
    await admin("POST", "/admin/dashboard_versions/", { embed_id: "fuzz-subs", definition: { title: "F", panels: [] } });
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: write,
      body: { provided_id: customer.provided_id, dashboard_embed_id: "fuzz-subs", user_email: email },
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    const body = fc.oneof(
      fc.record(
        {
          frequency: fc.oneof(fc.constantFrom("daily", "weekly", "monthly"), weirdString),
          hour: fc.oneof(fc.integer({ min: -2, max: 25 }), wrongValue),
          timezone: fc.oneof(fc.constantFrom("UTC", "Europe/Berlin"), weirdString),
        },
        { requiredKeys: [] },
      ),
      fc.dictionary(weirdString, wrongValue, { maxKeys: 4 }),
      wrongValue,
    );
    const auth = fc.oneof(fc.constant(`Bearer ${minted.body.token}`), fc.constant("Bearer x.y.z"), weirdString.map(pathSafe));
    await fc.assert(
      fc.asyncProperty(
        body,
        auth,
        fc.constantFrom("application/json", "text/plain"),
        fc.constantFrom("POST", "GET", "DELETE"),
        async (input, authorization, type, method) => {
          const path = method === "DELETE" ? "/embed/fuzz-subs/subscriptions/sch_nothing" : "/embed/fuzz-subs/subscriptions";
          const before = await snapshot();
          const res = await call(method, path, {
            headers: { Authorization: authorization, "Content-Type": type },
            rawBody: method === "POST" ? JSON.stringify(input) : undefined,
          });
          const where = `${method} ${path} ${JSON.stringify(input).slice(0, 200)}`;
          expect(res.status, where).toBeLessThan(500);
          if (res.status >= 400) {
            expect(res.body, where).toMatchObject({ success: 0, error: { code: expect.any(String) } });
            expect(errorStatus[res.body.error.code as keyof typeof errorStatus], where).toBe(res.status);
            expect(await snapshot(), `${where}: a refused request changed stored data`).toBe(before);
          }
        },
      ),
      { seed: SEED, numRuns: 60, endOnFailure: true },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), weirdString.map(pathSafe)),
        fc.constantFrom("GET", "POST"),
        async (token, method) => {
          const before = await snapshot();
          const res = await call(method, `/unsubscribe/${encodeURIComponent(token)}`, {
            rawBody: method === "POST" ? "List-Unsubscribe=One-Click" : undefined,
          });
          expect(res.status, token).toBeLessThan(500);
          if (token.length > 0) expect([404, 405]).toContain(res.status);
          expect(await snapshot()).toBe(before);
        },
      ),
      { seed: SEED + 1, numRuns: 40, endOnFailure: true },
    );
  }, 300_000);
});

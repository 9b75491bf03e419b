import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";

// The API explorer (/docs/explorer/) shows what /openapi.json declares, so every /api/
// operation must declare what it answers: a 200 with a schema, and its error responses in
// the one error envelope (docs/api-contract.md, "Errors").
describe("/openapi.json declares every /api/ operation's responses", async () => {
  const doc = (await call("GET", "/openapi.json")).body as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  };
  const operations = Object.entries(doc.paths)
    .filter(([path]) => path.startsWith("/api/"))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
    );

  it("has /api/ operations to check", () => {
    expect(operations.length).toBeGreaterThan(20);
  });

  it.each(operations)("$name: a 200 with a schema, and error responses with the error envelope", ({ operation }) => {
    const ok = operation.responses["200"];
    expect(ok, "200").toBeTruthy();
    const okSchemas = Object.values(ok.content ?? {}).map((media) => media.schema);
    expect(okSchemas.length, "200 content").toBeGreaterThan(0);
    for (const schema of okSchemas) expect(schema, "200 schema").toBeTruthy();

    const errors = Object.entries(operation.responses).filter(([status]) => /^[45]\d\d$/.test(status));
    expect(
      errors.map(([status]) => status),
      "error responses",
    ).toEqual(expect.arrayContaining([expect.stringMatching(/^4/)]));
    for (const [status, response] of errors) {
      const schema = response.content?.["application/json"]?.schema as { $ref?: string } | undefined;
      expect(schema?.$ref, `${status} schema`).toBe("#/components/schemas/Error");
    }
  });
});

// Every operation, not only /api/ ones, says how it is authorised and what it refuses
// (issue 39: what Redocly's `recommended` rules ask of it; `npm run lint` runs them).
describe("/openapi.json declares every operation's security and 4xx answers", async () => {
  const doc = (await call("GET", "/openapi.json")).body as {
    info: { license?: { name: string } };
    servers?: { url: string }[];
    components: { securitySchemes: Record<string, { type: string }> };
    paths: Record<string, Record<string, Operation>>;
  };
  interface Operation {
    security?: Record<string, string[]>[];
    description?: string;
    responses: Record<string, unknown>;
    callbacks?: Record<string, Record<string, Record<string, Operation>>>;
  }
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, path, operation })),
  );
  const callbacks = operations.flatMap(({ name, operation }) =>
    Object.values(operation.callbacks ?? {}).flatMap((callback) =>
      Object.values(callback).flatMap((item) => Object.values(item).map((callbackOperation) => ({ name, operation: callbackOperation }))),
    ),
  );

  it("names the service's own origin and a license", () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: "http://api.test" })]);
    expect(doc.info.license?.name).toBeTruthy();
  });

  it.each(operations)("$name: security from the declared schemes, a 4xx answer", ({ path, operation }) => {
    expect(operation.security, "security").toBeDefined();
    for (const requirement of operation.security ?? []) {
      for (const scheme of Object.keys(requirement)) expect(Object.keys(doc.components.securitySchemes)).toContain(scheme);
    }
    // No scheme for a token in the path, in the body (the console's sign-in) or for no credential: the description says which.
    if (operation.security?.length === 0) {
      expect(operation.description ?? "", "description of the authorisation").toMatch(
        path.includes("{token}") ? /capability token/ : path === "/console/session" ? /the body's `admin_token`/ : /public/,
      );
    }
    expect(
      Object.keys(operation.responses).some((status) => /^4/.test(status)),
      "a 4xx answer",
    ).toBe(true);
  });

  it("the kinds of access: API and admin tokens, embed and builder tokens in the query or as bearer, capability links", () => {
    const security = (method: string, path: string) => doc.paths[path][method].security;
    expect(security("post", "/api/create_customer/")).toEqual([{ ApiToken: [] }]);
    // The admin token, or the console's session cookie (from the service's own pages only).
    expect(security("post", "/admin/access_groups/")).toEqual([{ AdminToken: [] }, { ConsoleSession: [] }]);
    expect(security("delete", "/console/session")).toEqual([{ ConsoleSession: [] }]);
    expect(security("get", "/embed/{embedId}")).toEqual([{ EmbedQueryToken: [] }, { CustomerToken: [] }]);
    expect(security("get", "/embed/{embedId}/subscriptions")).toEqual([{ EmbedToken: [] }]);
    expect(security("get", "/report-builder/{embedId}")).toEqual([{ BuilderQueryToken: [] }]);
    expect(security("post", "/report-builder/{embedId}/query")).toEqual([{ BuilderToken: [] }]);
    expect(security("get", "/preview/{embedId}")).toEqual([{ PreviewToken: [] }]);
    for (const [method, path] of [
      ["get", "/share/{token}"],
      ["get", "/api/downloads/{token}"],
      ["get", "/unsubscribe/{token}"],
      ["post", "/unsubscribe/{token}"],
      ["get", "/embed.js"],
      ["get", "/schemas/dashboard.json"],
    ]) {
      expect(security(method, path), `${method} ${path}`).toEqual([]);
    }
    // A control: a token the API takes is never documented as public.
    expect(operations.filter(({ operation }) => operation.security?.length === 0).map(({ path }) => path)).not.toContain(
      "/api/get_customer/",
    );
  });

  it("4xx answers written from the one error table, by the operation's access", () => {
    const responses = doc.paths["/api/create_customer/"].post.responses as Record<string, { description: string }>;
    expect(responses["401"].description).toContain("`invalid_api_token`");
    expect(responses["401"].description).not.toContain("`invalid_admin_token`");
    expect(responses["415"].description).toContain("`unsupported_media_type`");
    const read = doc.paths["/api/v2/customers/"].get.responses as Record<string, { description: string }>;
    expect(read["400"].description).not.toContain("`invalid_json`");
    expect(read["403"]?.description ?? "").not.toContain("`read_only_token`");
    const admin = doc.paths["/admin/access_groups/"].post.responses as Record<string, { description: string }>;
    expect(admin["401"].description).toContain("`invalid_admin_token`");
    expect(admin["401"].description).not.toContain("`missing_api_token`");
  });

  it("callbacks say how they are signed", () => {
    expect(callbacks.length).toBeGreaterThan(0);
    for (const { name, operation } of callbacks) {
      expect(operation.security, name).toEqual([{ WebhookSignature: [] }]);
      expect(Object.keys(operation.responses), name).toContain("4XX");
    }
    expect(doc.components.securitySchemes.WebhookSignature).toMatchObject({ type: "apiKey", in: "header", name: "X-Signature" });
  });
});

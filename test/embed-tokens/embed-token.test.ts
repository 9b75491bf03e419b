import { sign } from "hono/jwt";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createCustomer, dashboard, kpi, panelText, seedOrders, sources, unique, workspace } from "../helpers/dashboards";

// Signed embed tokens (docs/embedding.md): minted by the vendor's backend, opened by browsers.
const SECRET = "test-embed-token-secret"; // vitest.config.mts gives the Worker this EMBED_TOKEN_SECRET

let ctx: { write: string; read: string; schema: number; demo: number };
let alpha: { provided_id: string; token: string };
let embedId: string;
let otherEmbedId: string;

beforeAll(async () => {
  await seedOrders();
  const { write, read } = await workspace();
  const { schema, demo } = await sources();
  ctx = { write, read, schema, demo };
  alpha = await createCustomer(write, { provided_id: "alpha", mapping: { [schema]: demo } });
  const definition = {
    variables: [{ name: "since", default: "2026-01-01" }],
    panels: [
      kpi(
        "since",
        schema,
        "SELECT SUM(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}} AND day >= {{variables.since}}",
      ),
    ],
  };
  embedId = await dashboard(definition, ["production"]);
  otherEmbedId = await dashboard(definition);
});

async function mint(body: Record<string, unknown>, token = ctx.write) {
  return call("POST", "/api/generate_embed_token/", {
    token,
    body: { provided_id: alpha.provided_id, dashboard_embed_id: embedId, ...body },
  });
}

async function open(path: string) {
  return call("GET", path);
}

function decodePart(part: string): any {
  const base64 = part.replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(base64 + "===".slice((base64.length + 3) % 4)));
}

function encodePart(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A 401 page: no dashboard, no data, no render mark. */
function expectRefused(res: { status: number; body: string }) {
  expect(res.status).toBe(401);
  expect(res.body).not.toContain("data-render-complete");
  expect(res.body).not.toContain("350");
  expect(res.body).toContain('data-status="401"');
}

describe("POST /api/generate_embed_token/", () => {
  it("mints a compact HS256 JWS with its expiry and the embed URL", async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await mint({});
    expect(res.status).toBe(200);
    const { token, expires_at, embed_url } = res.body;
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodePart(token.split(".")[0])).toEqual({ alg: "HS256", typ: "JWT" });
    const claims = decodePart(token.split(".")[1]);
    expect(claims.exp - claims.iat).toBe(900);
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(Date.parse(expires_at)).toBe(claims.exp * 1000);
    expect(expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(embed_url).toBe(`http://api.test/embed/${embedId}?token=${token}`);
    // The payload never carries the customer token (nor its stored hash).
    expect(token).not.toContain(alpha.token);
    expect(JSON.stringify(claims)).not.toContain(alpha.token);
  });

  it("takes expires_in (10–86400 seconds)", async () => {
    const res = await mint({ expires_in: 60 });
    const claims = decodePart(res.body.token.split(".")[1]);
    expect(claims.exp - claims.iat).toBe(60);
  });

  it("lets read tokens mint (it changes nothing)", async () => {
    const res = await mint({}, ctx.read);
    expect(res.status).toBe(200);
    expect((await open(new URL(res.body.embed_url).pathname + new URL(res.body.embed_url).search)).status).toBe(200);
  });

  it("a read token may not mint a token whose viewer could subscribe (user_email): 403 read_only_token; a write token may", async () => {
    const refused = await mint({ user_email: "viewer@example.com" }, ctx.read);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "read_only_token" });
    expect(refused.body.error.field).toBeUndefined();
    const allowed = await mint({ user_email: "viewer@example.com" });
    expect(allowed.status).toBe(200);
    expect(decodePart(allowed.body.token.split(".")[1]).eml).toBe("viewer@example.com");
  });

  it.each([
    [{ provided_id: undefined }, "provided_id"],
    [{ dashboard_embed_id: undefined }, "dashboard_embed_id"],
    [{ provided_id: "" }, "provided_id"],
    [{ expires_in: 9 }, "expires_in"],
    [{ expires_in: 86_401 }, "expires_in"],
    [{ expires_in: 60.5 }, "expires_in"],
    [{ expires_in: "60" }, "expires_in"],
    [{ variables: "since=2026" }, "variables"],
    [{ variables: { big: "x".repeat(5000) } }, "variables"],
    [{ allowed_origins: [] }, "allowed_origins"],
    [{ allowed_origins: "https://app.example.com" }, "allowed_origins"],
    [{ allowed_origins: ["https://app.example.com/"] }, "allowed_origins.0"],
    [{ allowed_origins: ["https://app.example.com", "https://app.example.com/path"] }, "allowed_origins.1"],
    [{ allowed_origins: ["app.example.com"] }, "allowed_origins.0"],
    [{ allowed_origins: ["*"] }, "allowed_origins.0"],
    [{ allowed_origins: ["ftp://files.example.com"] }, "allowed_origins.0"],
    [{ allowed_origins: ["https://a.example.com; script-src *"] }, "allowed_origins.0"],
    [{ allowed_origins: Array.from({ length: 11 }, (_, i) => `https://a${i}.example.com`) }, "allowed_origins"],
  ])("refuses %j (400 validation_error on %s)", async (body, field) => {
    const res = await mint(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field });
  });

  it("answers 404 for a customer of another access group and for an unknown dashboard", async () => {
    const other = await workspace();
    const stranger = await createCustomer(other.write, { provided_id: unique("stranger") });
    const hidden = await mint({ provided_id: stranger.provided_id });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error).toMatchObject({ code: "customer_not_found", field: "provided_id" });
    const missing = await mint({ dashboard_embed_id: "no-such-dashboard" });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: "dashboard_not_found", field: "dashboard_embed_id" });
  });

  it("costs one D1 round trip", async () => {
    const res = await mint({});
    expect(res.headers.get("X-D1-Round-Trips")).toBe("1");
  });
});

describe("GET /embed/<id>?token=…", () => {
  it("renders the token's customer and dashboard", async () => {
    const { token } = (await mint({})).body;
    const res = await open(`/embed/${embedId}?token=${token}`);
    expect(res.status).toBe(200);
    expect(panelText(res.body, "since")).toContain("350");
    expect(res.body).toContain('data-render-complete="true"');
  });

  it("refuses a token minted for another dashboard (valid on its own)", async () => {
    const { token } = (await mint({ dashboard_embed_id: otherEmbedId })).body;
    expect((await open(`/embed/${otherEmbedId}?token=${token}`)).status).toBe(200);
    expectRefused(await open(`/embed/${embedId}?token=${token}`));
  });

  it("refuses an altered signature, an altered payload and alg none", async () => {
    const { token } = (await mint({})).body;
    const [header, payload, signature] = token.split(".");
    expect((await open(`/embed/${embedId}?token=${token}`)).status).toBe(200);

    const flipped = signature.slice(0, -2) + (signature.at(-2) === "A" ? "B" : "A") + signature.at(-1);
    expectRefused(await open(`/embed/${embedId}?token=${header}.${payload}.${flipped}`));

    const other = await createCustomer(ctx.write, { provided_id: unique("other"), mapping: { [ctx.schema]: ctx.demo } });
    const claims = decodePart(payload);
    const forged = encodePart({ ...claims, cid: claims.cid + 1, vars: { since: "2000-01-01" } });
    expect(other).toBeTruthy();
    expectRefused(await open(`/embed/${embedId}?token=${header}.${forged}.${signature}`));

    const none = encodePart({ alg: "none", typ: "JWT" });
    expectRefused(await open(`/embed/${embedId}?token=${none}.${payload}.`));
    expectRefused(await open(`/embed/${embedId}?token=${none}.${payload}.${signature}`));
    const hs512 = await sign(claims, SECRET, "HS512");
    expectRefused(await open(`/embed/${embedId}?token=${hs512}`));
  });

  it("refuses an expired token; the same claims unexpired are accepted", async () => {
    const { token } = (await mint({})).body;
    const claims = decodePart(token.split(".")[1]);
    const now = Math.floor(Date.now() / 1000);
    const fresh = await sign({ ...claims, iat: now - 100, exp: now + 100 }, SECRET, "HS256");
    expect((await open(`/embed/${embedId}?token=${fresh}`)).status).toBe(200);
    const expired = await sign({ ...claims, iat: now - 100, exp: now - 1 }, SECRET, "HS256");
    expectRefused(await open(`/embed/${embedId}?token=${expired}`));
    const { exp: _exp, ...noExpiry } = claims;
    expectRefused(await open(`/embed/${embedId}?token=${await sign(noExpiry, SECRET, "HS256")}`));
    const wrongSecret = await sign({ ...claims, iat: now - 100, exp: now + 100 }, "another-secret", "HS256");
    expectRefused(await open(`/embed/${embedId}?token=${wrongSecret}`));
  });

  it("is revoked by refresh_customer_token and by deleting the customer", async () => {
    const viewer = await createCustomer(ctx.write, { provided_id: unique("viewer"), mapping: { [ctx.schema]: ctx.demo } });
    const before = (await mint({ provided_id: viewer.provided_id })).body.token;
    expect((await open(`/embed/${embedId}?token=${before}`)).status).toBe(200);
    const refreshed = await call("POST", "/api/refresh_customer_token/", { token: ctx.write, body: { current_token: viewer.token } });
    expect(refreshed.status).toBe(200);
    expectRefused(await open(`/embed/${embedId}?token=${before}`));

    const after = (await mint({ provided_id: viewer.provided_id })).body.token;
    expect((await open(`/embed/${embedId}?token=${after}`)).status).toBe(200);
    await call("DELETE", "/api/delete_customer/", { token: ctx.write, body: { current_token: refreshed.body.customer.token } });
    expectRefused(await open(`/embed/${embedId}?token=${after}`));
  });

  it("lets locked variables win over var_ parameters; unlocked ones still follow var_", async () => {
    const locked = (await mint({ variables: { since: "2026-02-01" } })).body.token;
    expect(panelText((await open(`/embed/${embedId}?token=${locked}`)).body, "since")).toContain("250");
    expect(panelText((await open(`/embed/${embedId}?token=${locked}&var_since=2026-01-01`)).body, "since")).toContain("250");
    const open_ = (await mint({})).body.token;
    expect(panelText((await open(`/embed/${embedId}?token=${open_}&var_since=2026-02-01`)).body, "since")).toContain("250");
    expect(panelText((await open(`/embed/${embedId}?token=${open_}`)).body, "since")).toContain("350");
  });

  it("pins the environment of the token", async () => {
    await admin("POST", "/admin/dashboard_versions/", {
      embed_id: embedId,
      draft: true,
      definition: { panels: [kpi("since", ctx.schema, "SELECT 'draft' AS value")] },
    });
    const pinned = (await mint({ environment: "production" })).body.token;
    expect(panelText((await open(`/embed/${embedId}?token=${pinned}&environment=draft`)).body, "since")).toContain("350");
    const unpinned = (await mint({})).body.token;
    expect(panelText((await open(`/embed/${embedId}?token=${unpinned}`)).body, "since")).toContain("draft");
    const staging = (await mint({ environment: "staging" })).body.token;
    const missing = await open(`/embed/${embedId}?token=${staging}`);
    expect(missing.status).toBe(404);
    expect(missing.body).not.toContain("data-render-complete");
  });

  it("sends allowed_origins as frame-ancestors; FRAME_ANCESTORS without them", async () => {
    const withOrigins = (await mint({ allowed_origins: ["https://app.example.com", "http://localhost:3000"] })).body.token;
    const framed = await open(`/embed/${embedId}?token=${withOrigins}`);
    expect(framed.headers.get("Content-Security-Policy")).toMatch(/frame-ancestors https:\/\/app\.example\.com http:\/\/localhost:3000$/);
    const plain = (await mint({})).body.token;
    expect((await open(`/embed/${embedId}?token=${plain}`)).headers.get("Content-Security-Policy")).toMatch(/frame-ancestors \*$/);
  });

  it("still accepts customer_token while EMBED_REQUIRE_SIGNED is off", async () => {
    expect((await open(`/embed/${embedId}?customer_token=${alpha.token}`)).status).toBe(200);
  });
});

describe("/openapi.json and /docs", () => {
  it("document the embed page, embed.js, share and download links with their responses", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const expected: Record<string, string[]> = {
      "/api/generate_embed_token/": ["200", "400", "401", "404"],
      "/embed/{embedId}": ["200", "401", "404", "422"],
      "/embed.js": ["200"],
      "/share/{token}": ["200", "404"],
      "/api/downloads/{token}": ["200", "202", "404", "500"],
    };
    for (const [path, statuses] of Object.entries(expected)) {
      const operation = doc.paths[path]?.get ?? doc.paths[path]?.post;
      expect(operation, path).toBeTruthy();
      expect(Object.keys(operation.responses), path).toEqual(expect.arrayContaining(statuses));
    }
    expect(doc.paths["/embed/{embedId}"].get.responses["200"].content).toHaveProperty("text/html");
    const docs = (await call("GET", "/docs")).body as string;
    for (const path of ["/api/generate_embed_token/", "/embed/{embedId}", "/embed.js", "/share/{token}", "/api/downloads/{token}"]) {
      expect(docs).toContain(path);
    }
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createCustomer, seedOrders, sources, unique, workspace } from "../helpers/dashboards";

// POST /admin/dashboard_previews/ and the link it answers: what `dashboards preview` prints.
let schema: number;
let write: string;
let alpha: { provided_id: string; token: string };

const definition = () => ({
  title: "Unsaved {{customer.name}} draft",
  variables: [{ name: "since", default: "2026-01-01", control: { type: "date" } }],
  panels: [
    {
      id: "revenue",
      type: "kpi",
      title: "Revenue",
      schema_id: schema,
      sql: "SELECT SUM(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}} AND day >= {{variables.since}}",
      layout: { x: 0, y: 0, w: 4, h: 2 },
    },
  ],
});
const mint = (body: Record<string, unknown>) =>
  admin("POST", "/admin/dashboard_previews/", {
    provided_id: alpha.provided_id,
    embed_id: "draft-board",
    name: "Draft",
    definition: definition(),
    ...body,
  });
const pathOf = (url: string) => url.replace(/^https?:\/\/[^/]+/, "");

beforeAll(async () => {
  await seedOrders();
  const registered = await sources();
  schema = registered.schema;
  ({ write } = await workspace());
  // seedOrders' orders belong to the provided_id 'alpha'.
  alpha = await createCustomer(write, { provided_id: "alpha", name: "Alpha GmbH", mapping: { [schema]: registered.demo } });
});

describe("POST /admin/dashboard_previews/", () => {
  it("needs the admin token (401 invalid_admin_token)", async () => {
    const res = await call("POST", "/admin/dashboard_previews/", {
      body: { provided_id: alpha.provided_id, definition: definition() },
      headers: { Authorization: "Bearer wrong" },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_admin_token");
  });

  it("answers a signed link that draws the unsaved definition for the customer, and saves no dashboard or version", async () => {
    const before = (await admin("GET", "/admin/dashboards/")).body.dashboards;
    const res = await mint({});
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(res.body.preview_url).toBe(`http://api.test/preview/draft-board?token=${res.body.token}`);
    expect(Date.parse(res.body.expires_at) - Date.now()).toBeGreaterThan(890_000);

    const page = await call("GET", pathOf(res.body.preview_url));
    expect(page.status).toBe(200);
    expect(page.body).toContain('data-render-complete="true"');
    expect(page.body).toContain("<h1>Unsaved Alpha GmbH draft</h1>");
    expect(page.body).toContain(">350<"); // alpha's orders: 100 + 250
    expect(page.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
    // The filter form submits to the preview itself, keeping its token.
    expect(page.body).toContain('action="/preview/draft-board"');
    const filtered = await call("GET", `${pathOf(res.body.preview_url)}&var_since=2026-02-01`);
    expect(filtered.body).toContain(">250<");

    expect((await admin("GET", "/admin/dashboards/")).body.dashboards).toEqual(before);
    expect((await admin("GET", "/admin/dashboard_versions/?embed_id=draft-board")).body.error.code).toBe("dashboard_not_found");
  });

  it("serves the previewed panel's CSV with the same token", async () => {
    const { preview_url } = (await mint({})).body;
    const csv = await call("GET", pathOf(preview_url).replace("/preview/draft-board?", "/preview/draft-board/panels/revenue.csv?"));
    expect(csv.status).toBe(200);
    expect(csv.body).toBe("value\r\n350\r\n");
  });

  it("refuses what saving a version refuses: an invalid definition (400) or an unknown schema (422), with a valid control", async () => {
    const invalid = await mint({ definition: { panels: [{ ...definition().panels[0], type: "gauge" }] } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatchObject({ code: "validation_error", field: "definition.panels.0.type" });
    const unknown = await mint({ definition: { panels: [{ ...definition().panels[0], schema_id: 987654 }] } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: "unknown_schema", field: "definition.panels.0.schema_id" });
    const tooLong = await mint({ expires_in: 86_401 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.field).toBe("expires_in");
    expect((await mint({ expires_in: 86_400 })).status).toBe(200);
  });

  it("refuses an unknown customer (404 customer_not_found)", async () => {
    const res = await mint({ provided_id: "nobody-here" });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "customer_not_found", field: "provided_id" });
  });
});

describe("GET /preview/<embed_id>", () => {
  it("answers 401 without dashboard data for an altered token, another embed id or no token; the genuine link works", async () => {
    const { token } = (await mint({})).body;
    const genuine = await call("GET", `/preview/draft-board?token=${token}`);
    expect(genuine.status).toBe(200);
    const [head, payload, signature] = token.split(".");
    const altered = `${head}.${payload}.${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`;
    for (const path of [`/preview/draft-board?token=${altered}`, `/preview/other-board?token=${token}`, "/preview/draft-board"]) {
      const res = await call("GET", path);
      expect(res.status, path).toBe(401);
      expect(res.body).not.toContain("data-render-complete");
      expect(res.body).not.toContain("350");
    }
  });

  it("ends when the customer token is refreshed", async () => {
    const customer = await createCustomer(write, { provided_id: unique("refresh"), mapping: { [schema]: 1 } });
    const { preview_url } = (await mint({ provided_id: customer.provided_id })).body;
    expect((await call("GET", pathOf(preview_url))).status).toBe(200);
    const refreshed = await call("POST", "/api/refresh_customer_token/", { token: write, body: { current_token: customer.token } });
    expect(refreshed.status).toBe(200);
    expect((await call("GET", pathOf(preview_url))).status).toBe(401);
  });

  it("is not an embed token, and an embed token does not open a preview", async () => {
    const { token } = (await mint({})).body;
    expect((await call("GET", `/embed/draft-board?token=${token}`)).status).toBe(401);
    const created = await admin("POST", "/admin/dashboards/", { embed_id: "saved-board", name: "Saved" });
    expect(created.status).toBe(200);
    await admin("POST", "/admin/dashboard_versions/", { embed_id: "saved-board", definition: definition() });
    const embedToken = await call("POST", "/api/generate_embed_token/", {
      token: write,
      body: { provided_id: alpha.provided_id, dashboard_embed_id: "saved-board" },
    });
    expect((await call("GET", `/embed/saved-board?token=${embedToken.body.token}`)).status).toBe(200);
    expect((await call("GET", `/preview/saved-board?token=${embedToken.body.token}`)).status).toBe(401);
  });
});

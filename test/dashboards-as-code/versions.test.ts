import { describe, expect, it } from "vitest";
import monthOrders from "../../examples/dashboards/month-orders.json";
import monthly from "../../examples/dashboards/monthly-report.json";
import sales from "../../examples/dashboards/sales.json";
import committedSchema from "../../examples/schemas/dashboard.json";
import { admin, call, dashboard, kpi, sources } from "../helpers/dashboards";

// GET /admin/dashboard_versions/ (what `dashboards pull` reads) and GET /schemas/dashboard.json.
describe("GET /admin/dashboard_versions/", () => {
  it("reads a version back as stored: the newest, by number, by tag", async () => {
    const { schema } = await sources();
    const first = { title: "First", panels: [kpi("a", schema, "SELECT 1 AS value")] };
    const embedId = await dashboard(first, ["production"]);
    await admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition: { ...first, title: "Second" }, draft: true });

    const newest = await admin("GET", `/admin/dashboard_versions/?embed_id=${embedId}`);
    expect(newest.status).toBe(200);
    expect(newest.body.dashboard).toEqual({ embed_id: embedId, name: "Test dashboard" });
    expect(newest.body.version).toMatchObject({ version_number: 2, draft: true, definition: { title: "Second" } });
    // Stored with defaults filled in (title, variables): saving it again stores the same.
    expect(newest.body.version.definition).toEqual({
      title: "Second",
      variables: [],
      panels: [{ ...kpi("a", schema, "SELECT 1 AS value") }],
    });

    expect((await admin("GET", `/admin/dashboard_versions/?embed_id=${embedId}&version_number=1`)).body.version.definition.title).toBe(
      "First",
    );
    expect((await admin("GET", `/admin/dashboard_versions/?embed_id=${embedId}&tag=production`)).body.version).toMatchObject({
      version_number: 1,
      draft: false,
    });
  });

  it("refuses what it cannot find (404) and a number and a tag together (400), with a valid control", async () => {
    const { schema } = await sources();
    const embedId = await dashboard({ panels: [kpi("a", schema, "SELECT 1 AS value")] });
    const cases: [string, number, string, string][] = [
      [`embed_id=nope`, 404, "dashboard_not_found", "embed_id"],
      [`embed_id=${embedId}&version_number=7`, 404, "dashboard_version_not_found", "version_number"],
      [`embed_id=${embedId}&tag=staging`, 404, "dashboard_version_not_found", "tag"],
      [`embed_id=${embedId}&version_number=1&tag=production`, 400, "validation_error", "tag"],
      [`embed_id=${embedId}&version_number=0`, 400, "validation_error", "version_number"],
      [``, 400, "validation_error", "embed_id"],
    ];
    for (const [query, status, code, field] of cases) {
      const res = await admin("GET", `/admin/dashboard_versions/?${query}`);
      expect(res.status, query).toBe(status);
      expect(res.body.error, query).toMatchObject({ code, field });
    }
    expect((await admin("GET", `/admin/dashboard_versions/?embed_id=${embedId}&version_number=1`)).status).toBe(200);
  });

  it("needs the admin token (401 invalid_admin_token)", async () => {
    const res = await call("GET", "/admin/dashboard_versions/?embed_id=x");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_admin_token");
  });
});

describe("GET /schemas/dashboard.json", () => {
  it("is a JSON Schema 2020-12 of a dashboard file, with descriptions, served without authentication", async () => {
    const res = await call("GET", "/schemas/dashboard.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/schema+json");
    const schema = res.body;
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.$id).toBe("http://api.test/schemas/dashboard.json");
    expect(schema.required).toEqual(["embed_id", "name", "definition"]);
    expect(schema.properties.embed_id.description).toMatch(/embed id/);
    const panel = schema.properties.definition.properties.panels.items;
    expect(panel.properties.type.enum).toEqual(["kpi", "table", "bar", "line", "area", "pie", "text"]);
    expect(panel.properties.sql.description).toMatch(/read-only/);
    // What each panel type needs, from the table the API checks with.
    expect(panel.allOf).toContainEqual(
      expect.objectContaining({
        if: { properties: { type: { const: "pie" } }, required: ["type"] },
        then: expect.objectContaining({ required: ["schema_id", "sql", "label_column", "value_column"] }),
      }),
    );
  });

  it("is what the example files' relative $schema names: examples/schemas/dashboard.json, the served schema but its $id", async () => {
    // docs/dashboards-as-code.md: an editor checks the examples against this checkout's schema with no server
    // running (not whatever answers on localhost:8787). Regenerate with `npm run dashboard-schema`.
    for (const file of [sales, monthly, monthOrders]) expect(file.$schema).toBe("../schemas/dashboard.json");
    const res = await call("GET", "/schemas/dashboard.json");
    const { $id, ...served } = res.body;
    expect($id).toBe("http://api.test/schemas/dashboard.json");
    expect(committedSchema).toEqual(served);
  });

  it("appears in the OpenAPI document with the new admin operations", async () => {
    const paths = (await call("GET", "/openapi.json")).body.paths;
    for (const path of ["/schemas/dashboard.json", "/admin/dashboard_checks/", "/admin/dashboard_previews/", "/preview/{embedId}"])
      expect(Object.keys(paths)).toContain(path);
    expect(paths["/admin/dashboard_versions/"].get.operationId).toBe("adminGetDashboardVersion");
  });
});

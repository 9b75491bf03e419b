import { describe, expect, it } from "vitest";
import { admin, dashboard, kpi, sources, unique } from "../helpers/dashboards";

const text = { id: "t", type: "text", title: "Hi", text: "Hello {{customer.name}}", layout: { x: 0, y: 0, w: 12, h: 1 } };

describe("dashboard administration", () => {
  it("creates, renames and lists dashboards; numbers versions; tags them", async () => {
    const { schema } = await sources();
    const embedId = unique("admin-dash");
    const created = await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "First" });
    expect(created.body).toEqual({ success: 1, dashboard: { embed_id: embedId, name: "First" } });
    const renamed = await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "Second" });
    expect(renamed.body.dashboard.name).toBe("Second");
    const generated = await admin("POST", "/admin/dashboards/", { name: "No id" });
    expect(generated.body.dashboard.embed_id).toMatch(/^[a-z0-9]{20}$/);

    const definition = { title: "T", panels: [text, kpi("k", schema, "SELECT 1 AS value", 0, 1)] };
    const v1 = await admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition });
    const v2 = await admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition, draft: true });
    expect(v1.body).toEqual({ success: 1, version: { version_number: 1, draft: false } });
    expect(v2.body).toEqual({ success: 1, version: { version_number: 2, draft: true } });
    expect((await admin("POST", "/admin/dashboard_tags/", { embed_id: embedId, tag: "production", version_number: 1 })).body).toEqual({
      success: 1,
    });

    const list = await admin("GET", "/admin/dashboards/");
    expect(list.body.dashboards).toContainEqual({
      embed_id: embedId,
      name: "Second",
      versions: 2,
      newest_version: 2,
      changed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      tags: { production: 1 },
    });
  });

  it("refuses tags for unknown dashboards (404 dashboard_not_found) and versions (404 dashboard_version_not_found)", async () => {
    const embedId = await dashboard({ panels: [text] });
    const noVersion = await admin("POST", "/admin/dashboard_tags/", { embed_id: embedId, tag: "production", version_number: 9 });
    expect(noVersion.status).toBe(404);
    expect(noVersion.body.error).toMatchObject({ code: "dashboard_version_not_found", field: "version_number" });
    const noDashboard = await admin("POST", "/admin/dashboard_tags/", { embed_id: "nope", tag: "production", version_number: 1 });
    expect(noDashboard.status).toBe(404);
    const noDashboardVersion = await admin("POST", "/admin/dashboard_versions/", { embed_id: "nope", definition: { panels: [text] } });
    expect(noDashboardVersion.status).toBe(404);
    expect(noDashboardVersion.body.error.code).toBe("dashboard_not_found");
  });
});

describe("an invalid definition is never stored", () => {
  const bad: [string, (schema: number) => unknown, number, string, string][] = [
    ["no panels", () => ({ panels: [] }), 400, "validation_error", "definition.panels"],
    [
      "an unknown panel type",
      (s) => ({ panels: [{ ...kpi("a", s, "SELECT 1 AS value"), type: "gauge" }] }),
      400,
      "validation_error",
      "definition.panels.0.type",
    ],
    [
      "a data panel without SQL",
      (s) => ({ panels: [{ ...kpi("a", s, ""), sql: undefined }] }),
      400,
      "validation_error",
      "definition.panels.0.sql",
    ],
    [
      "a data panel without schema_id",
      () => ({ panels: [{ id: "a", type: "table", sql: "SELECT 1", layout: { x: 0, y: 0, w: 4, h: 2 } }] }),
      400,
      "validation_error",
      "definition.panels.0.schema_id",
    ],
    [
      "a bar without y_columns",
      (s) => ({ panels: [{ ...kpi("a", s, "SELECT 1 AS v"), type: "bar", x_column: "v" }] }),
      400,
      "validation_error",
      "definition.panels.0.y_columns",
    ],
    [
      "a pie without value_column",
      (s) => ({ panels: [{ ...kpi("a", s, "SELECT 1 AS v"), type: "pie", label_column: "v" }] }),
      400,
      "validation_error",
      "definition.panels.0.value_column",
    ],
    [
      "a text panel without text",
      () => ({ panels: [{ id: "t", type: "text", layout: { x: 0, y: 0, w: 4, h: 1 } }] }),
      400,
      "validation_error",
      "definition.panels.0.text",
    ],
    [
      "a layout wider than the grid",
      (s) => ({ panels: [{ ...kpi("a", s, "SELECT 1 AS value"), layout: { x: 8, y: 0, w: 6, h: 2 } }] }),
      400,
      "validation_error",
      "definition.panels.0.layout.w",
    ],
    [
      "a negative x",
      (s) => ({ panels: [{ ...kpi("a", s, "SELECT 1 AS value"), layout: { x: -1, y: 0, w: 6, h: 2 } }] }),
      400,
      "validation_error",
      "definition.panels.0.layout.x",
    ],
    [
      "duplicate panel ids",
      (s) => ({ panels: [kpi("a", s, "SELECT 1 AS value"), kpi("a", s, "SELECT 2 AS value", 3)] }),
      400,
      "validation_error",
      "definition.panels.1.id",
    ],
    ["a DELETE statement", (s) => ({ panels: [kpi("a", s, "DELETE FROM orders")] }), 422, "query_not_read_only", "definition.panels.0.sql"],
    [
      "a write hidden after a SELECT",
      (s) => ({ panels: [kpi("a", s, "SELECT 1 AS value; DROP TABLE orders")] }),
      422,
      "query_not_read_only",
      "definition.panels.0.sql",
    ],
    [
      "a write inside a CTE",
      (s) => ({ panels: [kpi("a", s, "WITH x AS (SELECT 1) INSERT INTO orders SELECT * FROM x")] }),
      422,
      "query_not_read_only",
      "definition.panels.0.sql",
    ],
    ["a PRAGMA", (s) => ({ panels: [kpi("a", s, "PRAGMA table_info(orders)")] }), 422, "query_not_read_only", "definition.panels.0.sql"],
    [
      "an unknown placeholder",
      (s) => ({ panels: [kpi("a", s, "SELECT {{env.SECRET}} AS value")] }),
      400,
      "validation_error",
      "definition.panels.0.sql",
    ],
    [
      "an unknown schema",
      () => ({ panels: [kpi("a", 987654, "SELECT 1 AS value")] }),
      422,
      "unknown_schema",
      "definition.panels.0.schema_id",
    ],
  ];

  it.each(bad)("refuses %s", async (_name, definition, status, code, field) => {
    const { schema } = await sources();
    const embedId = unique("invalid");
    await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "Invalid" });
    const res = await admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition: definition(schema) });
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, field });
    const list = await admin("GET", "/admin/dashboards/");
    expect(list.body.dashboards.find((d: { embed_id: string }) => d.embed_id === embedId).versions).toBe(0);
  });

  it("accepts keywords inside string literals and identifiers", async () => {
    const { schema } = await sources();
    await dashboard({ panels: [kpi("a", schema, 'SELECT \'DELETE me; please\' AS value, "update" FROM (SELECT 1 AS "update")')] });
  });
});

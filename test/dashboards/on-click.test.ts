import { describe, expect, it } from "vitest";
import { admin, createCustomer, kpi, seedOrders, sources, unique, workspace } from "./helpers";

// on_click (DESIGN 20.4): what a click on a data panel does, checked when a version is saved,
// previewed or checked as a file. Each refusal has a passing control next to it.

const layout = { x: 0, y: 0, w: 6, h: 3 };
const variables = [{ name: "product", default: "all" }];

function bar(schema: number, on_click: unknown) {
  return {
    id: "b",
    type: "bar",
    schema_id: schema,
    sql: "SELECT 'a' AS month, 1 AS total",
    x_column: "month",
    y_columns: ["total"],
    layout,
    on_click,
  };
}
function table(schema: number, on_click: unknown) {
  return { id: "t", type: "table", schema_id: schema, sql: "SELECT 'a' AS product, 1 AS total", layout, on_click };
}

async function save(definition: unknown) {
  const embedId = unique("clicks");
  await admin("POST", "/admin/dashboards/", { embed_id: embedId, name: "Clicks" });
  const res = await admin("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition });
  return { res, embedId };
}

async function versionsOf(embedId: string): Promise<number> {
  const list = await admin("GET", "/admin/dashboards/");
  return list.body.dashboards.find((d: { embed_id: string }) => d.embed_id === embedId).versions;
}

describe("on_click is validated at save (400 validation_error on definition.panels.N.on_click.…)", () => {
  const cases: [string, (schema: number, target: string) => unknown, (schema: number, target: string) => unknown, string][] = [
    [
      "a filter on an undeclared variable",
      (s) => ({ variables, panels: [bar(s, { action: "filter", variable: "region" })] }),
      (s) => ({ variables, panels: [bar(s, { action: "filter", variable: "product" })] }),
      "definition.panels.0.on_click.variable",
    ],
    [
      "a filter on a table without column",
      (s) => ({ variables, panels: [table(s, { action: "filter", variable: "product" })] }),
      (s) => ({ variables, panels: [table(s, { action: "filter", variable: "product", column: "product" })] }),
      "definition.panels.0.on_click.column",
    ],
    [
      "a filter on a KPI without column",
      (s) => ({ variables, panels: [{ ...kpi("k", s, "SELECT 1 AS value"), on_click: { action: "filter", variable: "product" } }] }),
      (s) => ({
        variables,
        panels: [{ ...kpi("k", s, "SELECT 1 AS value"), on_click: { action: "filter", variable: "product", column: "value" } }],
      }),
      "definition.panels.0.on_click.column",
    ],
    [
      "an open of a dashboard that does not exist",
      (s) => ({ panels: [bar(s, { action: "open", dashboard: "no-such-dashboard", variables: { month: "month" } })] }),
      (s, target) => ({ panels: [bar(s, { action: "open", dashboard: target, variables: { month: "month" } })] }),
      "definition.panels.0.on_click.dashboard",
    ],
    [
      "an unknown action",
      (s) => ({ panels: [bar(s, { action: "navigate" })] }),
      (s) => ({ panels: [bar(s, { action: "emit" })] }),
      "definition.panels.0.on_click.action",
    ],
    [
      "an open without a dashboard",
      (s) => ({ panels: [bar(s, { action: "open", variables: {} })] }),
      (s, target) => ({ panels: [bar(s, { action: "open", dashboard: target })] }),
      "definition.panels.0.on_click.dashboard",
    ],
    [
      "a target variable that is not a variable name",
      (s, target) => ({ panels: [bar(s, { action: "open", dashboard: target, variables: { "not a name": "month" } })] }),
      (s, target) => ({ panels: [bar(s, { action: "open", dashboard: target, variables: { month: "month" } })] }),
      "definition.panels.0.on_click.variables.not a name",
    ],
    [
      "on_click on a text panel",
      () => ({ panels: [{ id: "x", type: "text", text: "Hi", layout, on_click: { action: "emit" } }] }),
      () => ({ panels: [{ id: "x", type: "text", text: "Hi", layout }] }),
      "definition.panels.0.on_click",
    ],
  ];

  it.each(cases)("refuses %s; the corrected definition is saved", async (_name, bad, good, field) => {
    const { schema } = await sources();
    const target = unique("target");
    await admin("POST", "/admin/dashboards/", { embed_id: target, name: "Target" });
    const refused = await save(bad(schema, target));
    expect(refused.res.status).toBe(400);
    expect(refused.res.body.error).toMatchObject({ code: "validation_error", field });
    expect(await versionsOf(refused.embedId)).toBe(0);
    const saved = await save(good(schema, target));
    expect(saved.res.status).toBe(200);
    expect(await versionsOf(saved.embedId)).toBe(1);
  });

  it("keeps the on_click it saved (column defaults are not written in)", async () => {
    const { schema } = await sources();
    const { res, embedId } = await save({ variables, panels: [bar(schema, { action: "filter", variable: "product" })] });
    expect(res.status).toBe(200);
    const read = await admin("GET", `/admin/dashboard_versions/?embed_id=${embedId}`);
    expect(read.body.version.definition.panels[0].on_click).toEqual({ action: "filter", variable: "product" });
  });

  it("a preview and a file check refuse an open of a missing dashboard too; the check names an on_click column the query lacks", async () => {
    await seedOrders();
    const { schema, demo } = await sources();
    const { write } = await workspace();
    const customer = await createCustomer(write, { provided_id: unique("alpha"), mapping: { [schema]: demo } });
    const definition = { panels: [bar(schema, { action: "open", dashboard: "missing-one", variables: { month: "month" } })] };
    const preview = await admin("POST", "/admin/dashboard_previews/", { provided_id: customer.provided_id, definition });
    expect(preview.status).toBe(400);
    expect(preview.body.error).toMatchObject({ code: "validation_error", field: "definition.panels.0.on_click.dashboard" });

    const target = unique("target");
    await admin("POST", "/admin/dashboards/", { embed_id: target, name: "Target" });
    const previewed = await admin("POST", "/admin/dashboard_previews/", {
      provided_id: customer.provided_id,
      definition: { panels: [bar(schema, { action: "open", dashboard: target, variables: { month: "month" } })] },
    });
    expect(previewed.status).toBe(200);

    const file = (on_click: unknown) => ({
      embed_id: unique("file"),
      name: "F",
      definition: { variables, panels: [bar(schema, on_click)] },
    });
    const missing = await admin("POST", "/admin/dashboard_checks/", file({ action: "open", dashboard: "missing-one" }));
    expect(missing.body.problems).toContainEqual(expect.objectContaining({ field: "definition.panels.0.on_click.dashboard" }));
    const fine = await admin("POST", "/admin/dashboard_checks/", {
      ...file({ action: "open", dashboard: target, variables: { month: "month" } }),
      provided_id: customer.provided_id,
    });
    expect(fine.body).toMatchObject({ valid: true });
    const lacking = await admin("POST", "/admin/dashboard_checks/", {
      ...file({ action: "filter", variable: "product", column: "nope" }),
      provided_id: customer.provided_id,
    });
    expect(lacking.body.problems).toContainEqual(expect.objectContaining({ field: "definition.panels.0.on_click.column" }));
  });
});

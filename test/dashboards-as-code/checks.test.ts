import { beforeAll, describe, expect, it } from "vitest";
import { admin, bindings, call, createCustomer, seedOrders, sources, unique, workspace } from "../helpers/dashboards";

// POST /admin/dashboard_checks/: what `npm run admin -- dashboards validate` runs.
let schema: number;
let demo: number;
let viewer: string; // a customer whose schema maps to DEMO_DATA (orders)
let unmapped: string; // a customer without any mapping

const layout = (y: number) => ({ x: 0, y, w: 6, h: 3 });
const bar = (sql: string, y_columns = ["revenue"]) => ({
  id: "by_month",
  type: "bar",
  title: "By month",
  schema_id: schema,
  sql,
  x_column: "month",
  y_columns,
  layout: layout(3),
});
type Panel = Record<string, unknown>;
const good = (): { embed_id: string; name: string; definition: { title: string; panels: Panel[] } } => ({
  embed_id: "checked",
  name: "Checked",
  definition: {
    title: "Checked",
    panels: [
      { id: "intro", type: "text", text: "Hello {{customer.name}}", layout: layout(0) },
      {
        id: "revenue",
        type: "kpi",
        title: "Revenue",
        schema_id: schema,
        sql: "SELECT SUM(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}}",
        layout: layout(1),
      },
      bar("SELECT month, SUM(amount) AS revenue FROM orders WHERE customer_id = {{customer.provided_id}} GROUP BY month"),
    ],
  },
});
const check = (body: unknown) => admin("POST", "/admin/dashboard_checks/", body);

beforeAll(async () => {
  await seedOrders();
  ({ schema, demo } = await sources());
  const { write } = await workspace();
  viewer = (await createCustomer(write, { provided_id: unique("alpha"), mapping: { [schema]: demo } })).provided_id;
  unmapped = (await createCustomer(write, { provided_id: unique("plain") })).provided_id;
});

describe("POST /admin/dashboard_checks/", () => {
  it("needs the admin token (401 invalid_admin_token)", async () => {
    const res = await call("POST", "/admin/dashboard_checks/", { body: good(), headers: { Authorization: "Bearer wrong" } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_admin_token");
  });

  it("passes a valid file, and saves nothing", async () => {
    const before = (await admin("GET", "/admin/dashboards/")).body.dashboards.length;
    const res = await check(good());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1, valid: true, problems: [] });
    expect((await admin("GET", "/admin/dashboards/")).body.dashboards.length).toBe(before);
  });

  it("reports every schema problem of the file at once, each with its field and panel", async () => {
    const file = good();
    file.definition.panels[1] = { ...file.definition.panels[1], type: "gauge" };
    file.definition.panels[2] = { ...file.definition.panels[2], x_column: undefined as never };
    const res = await check({ ...file, embed_id: "not ok!" });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.problems).toEqual([
      { field: "embed_id", panel_index: null, panel_id: null, message: "1–64 letters, digits, '_' or '-'" },
      {
        field: "definition.panels.1.type",
        panel_index: 1,
        panel_id: "revenue",
        message: "unknown panel type 'gauge'; use one of kpi, table, bar, line, area, pie, text",
      },
      { field: "definition.panels.2.x_column", panel_index: 2, panel_id: "by_month", message: "a bar panel needs x_column" },
    ]);
  });

  it("reports a missing field as required, and a file without a definition", async () => {
    const res = await check({ embed_id: "x" });
    expect(res.body.problems).toEqual([
      { field: "name", panel_index: null, panel_id: null, message: "required" },
      { field: "definition", panel_index: null, panel_id: null, message: "required" },
    ]);
  });

  it("reports a schema that does not exist (as saving would: unknown_schema)", async () => {
    const file = good();
    file.definition.panels[1] = { ...file.definition.panels[1], schema_id: 987654 };
    const res = await check(file);
    expect(res.body.problems).toEqual([
      { field: "definition.panels.1.schema_id", panel_index: 1, panel_id: "revenue", message: "Schema 987654 does not exist." },
    ]);
  });

  it("reports SQL that is not one read statement (as saving would: query_not_read_only), every panel of it", async () => {
    const file = good();
    file.definition.panels[1] = { ...file.definition.panels[1], sql: "DELETE FROM orders" };
    file.definition.panels[2] = { ...file.definition.panels[2], sql: "SELECT 1 AS month, 2 AS revenue; DROP TABLE orders" };
    const res = await check(file);
    expect(res.body.valid).toBe(false);
    expect(res.body.problems.map((p: { field: string }) => p.field)).toEqual(["definition.panels.1.sql", "definition.panels.2.sql"]);
    expect(res.body.problems[0].message).toMatch(/^Panel 'revenue' is not a read-only query: /);
  });

  describe("with a customer (provided_id)", () => {
    it("prepares every data panel on the customer's data source and lists its result columns", async () => {
      const res = await check({ ...good(), provided_id: viewer });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: 1,
        valid: true,
        problems: [],
        panels: [
          { id: "revenue", columns: ["value"] },
          { id: "by_month", columns: ["month", "revenue"] },
        ],
      });
    });

    it("reports a table the customer's data source lacks", async () => {
      const file = good();
      file.definition.panels[1] = { ...file.definition.panels[1], sql: "SELECT SUM(amount) AS value FROM orderz" };
      const res = await check({ ...file, provided_id: viewer });
      expect(res.body.valid).toBe(false);
      expect(res.body.problems).toEqual([
        { field: "definition.panels.1.sql", panel_index: 1, panel_id: "revenue", message: "the query failed: no such table: orderz" },
      ]);
    });

    it("reports a column a chart names that the query does not return", async () => {
      const file = good();
      file.definition.panels[2] = bar("SELECT month, SUM(amount) AS revenue FROM orders GROUP BY month", ["revenue", "revenu"]);
      const res = await check({ ...file, provided_id: viewer });
      expect(res.body.problems).toEqual([
        {
          field: "definition.panels.2.y_columns.1",
          panel_index: 2,
          panel_id: "by_month",
          message: "column 'revenu' is not in the query's result (month, revenue)",
        },
      ]);
    });

    it("reports a data panel whose schema the customer has no data source for", async () => {
      const res = await check({ ...good(), provided_id: unmapped });
      expect(res.body.problems.map((p: { field: string; message: string }) => [p.field, p.message])).toEqual([
        ["definition.panels.1.schema_id", `customer '${unmapped}' has no data source for schema ${schema}`],
        ["definition.panels.2.schema_id", `customer '${unmapped}' has no data source for schema ${schema}`],
      ]);
    });

    it("never prepares a panel on a data source the customer's access group may not use: it has no data source", async () => {
      const { write, group } = await workspace();
      const elsewhere = await workspace();
      const source = (await admin("POST", "/admin/data_sources/", { name: "Restricted", binding: "DEMO_DATA" })).body.data_source
        .id as number;
      const customer = (await createCustomer(write, { provided_id: unique("restricted"), mapping: { [schema]: source } })).provided_id;
      // A query that fails when prepared tells a prepared panel from one left alone.
      const file = good();
      file.definition.panels[1] = { ...file.definition.panels[1], sql: "SELECT SUM(amount) AS value FROM orderz" };
      file.definition.panels.splice(2, 1);
      // Control: while the customer's group may use the source, the panel is prepared on it.
      const prepared = await check({ ...file, provided_id: customer });
      expect(prepared.body.problems.map((p: { message: string }) => p.message)).toEqual(["the query failed: no such table: orderz"]);
      // The review's case: the source now belongs to another access group only.
      expect((await admin("POST", "/admin/update_data_source/", { id: source, access_groups: [elsewhere.group] })).status).toBe(200);
      const refused = await check({ ...file, provided_id: customer });
      expect(refused.body.problems).toEqual([
        {
          field: "definition.panels.1.schema_id",
          panel_index: 1,
          panel_id: "revenue",
          message: `customer '${customer}' has no data source for schema ${schema}`,
        },
      ]);
      // Control: given to the customer's group as well, it is prepared again.
      await admin("POST", "/admin/update_data_source/", { id: source, access_groups: [elsewhere.group, group] });
      expect((await check({ ...file, provided_id: customer })).body.problems[0].field).toBe("definition.panels.1.sql");
    });

    it("prepares without running: a query that would fail on its first row passes", async () => {
      // json('not json') raises only when a row is computed; LIMIT 0 computes none.
      const file = good();
      file.definition.panels[1] = { ...file.definition.panels[1], sql: "SELECT json('not json') AS value FROM orders" };
      const res = await check({ ...file, provided_id: viewer });
      expect(res.body.problems).toEqual([]);
      // Control: the same query fails once a row is fetched.
      await expect(bindings.DEMO_DATA.prepare("SELECT json('not json') AS value FROM orders").all()).rejects.toThrow(/malformed JSON/);
    });

    it("refuses an unknown customer (404 customer_not_found)", async () => {
      const res = await check({ ...good(), provided_id: "nobody-here" });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: "customer_not_found", field: "provided_id" });
    });
  });
});

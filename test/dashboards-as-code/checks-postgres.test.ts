import { beforeAll, describe, expect, it } from "vitest";
import { admin, createCustomer, unique, workspace } from "../helpers/dashboards";
import { onWarehouse } from "../helpers/warehouse";

// `dashboards validate --customer` on a PostgreSQL data source: the real local PostgreSQL
// behind the WAREHOUSE Hyperdrive binding, test data in its own schema.
const S = "dashboard_check_tests";
let schema: number;
let viewer: string;

const file = (sql: string, y_columns = ["revenue"]) => ({
  embed_id: "pg-checked",
  name: "PostgreSQL checked",
  definition: {
    panels: [
      {
        id: "total",
        type: "kpi",
        schema_id: schema,
        sql: `SELECT SUM(amount) AS value FROM ${S}.orders WHERE customer_id = {{customer.provided_id}}`,
        layout: { x: 0, y: 0, w: 4, h: 2 },
      },
      { id: "by_month", type: "line", schema_id: schema, sql, x_column: "month", y_columns, layout: { x: 4, y: 0, w: 8, h: 4 } },
    ],
  },
});
const check = (body: unknown) => admin("POST", "/admin/dashboard_checks/", { ...(body as object), provided_id: viewer });

beforeAll(async () => {
  await onWarehouse(`
    DROP SCHEMA IF EXISTS ${S} CASCADE;
    CREATE SCHEMA ${S};
    CREATE TABLE ${S}.orders (customer_id text NOT NULL, month text NOT NULL, amount numeric(12,2) NOT NULL);
    INSERT INTO ${S}.orders VALUES ('someone', '2026-01', 10), ('someone', '2026-02', 20);`);
  const { write } = await workspace();
  schema = (await admin("POST", "/admin/schemas/", { name: unique("warehouse") })).body.schema.id;
  const source = (await admin("POST", "/admin/data_sources/", { name: "Warehouse", binding: "WAREHOUSE", kind: "postgres" })).body
    .data_source.id;
  viewer = (await createCustomer(write, { provided_id: unique("pg-viewer"), mapping: { [schema]: source } })).provided_id;
});

describe("checking a dashboard file against a customer's PostgreSQL data source", () => {
  it("prepares every panel and lists its result columns (placeholders bound as $n)", async () => {
    const res = await check(
      file(`SELECT month, SUM(amount) AS revenue FROM ${S}.orders WHERE customer_id = {{customer.provided_id}} GROUP BY month`),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: true,
      problems: [],
      panels: [
        { id: "total", columns: ["value"] },
        { id: "by_month", columns: ["month", "revenue"] },
      ],
    });
  });

  it("reports a missing table with PostgreSQL's message, and a chart column the query lacks", async () => {
    const res = await check(file(`SELECT month, SUM(amount) AS revenu FROM ${S}.orderz GROUP BY month`));
    expect(res.body.problems).toEqual([
      {
        field: "definition.panels.1.sql",
        panel_index: 1,
        panel_id: "by_month",
        message: `the query failed: relation "${S}.orderz" does not exist`,
      },
    ]);
    const column = await check(file(`SELECT month, SUM(amount) AS revenu FROM ${S}.orders GROUP BY month`));
    expect(column.body.problems).toEqual([
      {
        field: "definition.panels.1.y_columns.0",
        panel_index: 1,
        panel_id: "by_month",
        message: "column 'revenue' is not in the query's result (month, revenu)",
      },
    ]);
  });

  it("fetches no row: a query that fails on its first row passes", async () => {
    const failing = `SELECT month, 1 / (amount - amount) AS revenue FROM ${S}.orders`;
    expect((await check(file(failing))).body).toMatchObject({ valid: true, problems: [] });
    // Control: fetching its rows fails.
    await expect(onWarehouse(failing)).rejects.toThrow(/division by zero/);
  });
});

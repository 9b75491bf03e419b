import { beforeAll, describe, expect, it } from "vitest";
import { admin, createCustomer, unique, workspace } from "../helpers/dashboards";
import { bothPanelsPrepared, byMonthProblem, checkedFile } from "../helpers/data-source-engines";
import { onWarehouse } from "../helpers/warehouse";

// `dashboards validate --customer` on a PostgreSQL data source: the real local PostgreSQL
// behind the WAREHOUSE Hyperdrive binding, test data in its own schema.
const S = "dashboard_check_tests";
let schema: number;
let viewer: string;

const file = (sql: string, y_columns = ["revenue"]) =>
  checkedFile({ embedId: "pg-checked", name: "PostgreSQL checked", schema, table: `${S}.orders` }, sql, y_columns);
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
    expect(res.body).toMatchObject(bothPanelsPrepared);
  });

  it("reports a missing table with PostgreSQL's message, and a chart column the query lacks", async () => {
    const res = await check(file(`SELECT month, SUM(amount) AS revenu FROM ${S}.orderz GROUP BY month`));
    expect(res.body.problems).toEqual([byMonthProblem("sql", `the query failed: relation "${S}.orderz" does not exist`)]);
    const column = await check(file(`SELECT month, SUM(amount) AS revenu FROM ${S}.orders GROUP BY month`));
    expect(column.body.problems).toEqual([byMonthProblem("y_columns.0", "column 'revenue' is not in the query's result (month, revenu)")]);
  });

  it("fetches no row: a query that fails on its first row passes", async () => {
    const failing = `SELECT month, 1 / (amount - amount) AS revenue FROM ${S}.orders`;
    expect((await check(file(failing))).body).toMatchObject({ valid: true, problems: [] });
    // Control: fetching its rows fails.
    await expect(onWarehouse(failing)).rejects.toThrow(/division by zero/);
  });
});

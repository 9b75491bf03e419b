import { beforeAll, describe, expect, it } from "vitest";
import { admin, createCustomer, unique, workspace } from "../helpers/dashboards";
import { bothPanelsPrepared, byMonthProblem, checkedFile } from "../helpers/data-source-engines";
import { mysqlAvailable, onMysql } from "../helpers/mysql-warehouse";

// `dashboard_checks` (`dashboards validate --customer`) on a MySQL data source: the test run's
// MySQL-protocol server behind the WAREHOUSE_MYSQL Hyperdrive binding, its data in a database of
// its own (the read-only account reads `warehouse%` databases). Each panel is prepared inside the
// READ ONLY transaction, never executed.
const D = "warehouse_dashboard_checks";
let schema: number;
let viewer: string;
let tenant: string;

const file = (sql: string, y_columns = ["revenue"]) =>
  checkedFile({ embedId: "my-checked", name: "MySQL checked", schema, table: `${D}.orders` }, sql, y_columns);
const check = (body: unknown, providedId = viewer) =>
  admin("POST", "/admin/dashboard_checks/", { ...(body as object), provided_id: providedId });

beforeAll(async () => {
  if (!mysqlAvailable) return;
  await onMysql(`
    DROP DATABASE IF EXISTS ${D};
    CREATE DATABASE ${D};
    CREATE TABLE ${D}.orders (customer_id varchar(100) NOT NULL, month varchar(7) NOT NULL, amount decimal(12,2) NOT NULL);
    INSERT INTO ${D}.orders VALUES ('someone', '2026-01', 10), ('someone', '2026-02', 20);
    DROP DATABASE IF EXISTS ${D}_tenant;
    CREATE DATABASE ${D}_tenant;
    CREATE TABLE ${D}_tenant.orders (customer_id varchar(100) NOT NULL, month varchar(7) NOT NULL, amount decimal(12,2) NOT NULL);`);
  const { write } = await workspace();
  schema = (await admin("POST", "/admin/schemas/", { name: unique("warehouse-mysql") })).body.schema.id;
  const source = (await admin("POST", "/admin/data_sources/", { name: "Warehouse (MySQL)", binding: "WAREHOUSE_MYSQL", kind: "mysql" }))
    .body.data_source.id;
  viewer = (await createCustomer(write, { provided_id: unique("my-viewer"), mapping: { [schema]: source } })).provided_id;
  // A second data source on the same binding, in another namespace.
  const namespaced = (
    await admin("POST", "/admin/data_sources/", {
      name: "Tenant (MySQL)",
      binding: "WAREHOUSE_MYSQL",
      kind: "mysql",
      namespace: `${D}_tenant`,
    })
  ).body.data_source.id;
  tenant = (await createCustomer(write, { provided_id: unique("my-tenant"), mapping: { [schema]: namespaced } })).provided_id;
});

describe.skipIf(!mysqlAvailable)("checking a dashboard file against a customer's MySQL data source", () => {
  it("prepares every panel and lists its result columns (placeholders bound as ?)", async () => {
    const res = await check(
      file(`SELECT month, SUM(amount) AS revenue FROM ${D}.orders WHERE customer_id = {{customer.provided_id}} GROUP BY month`),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(bothPanelsPrepared);
  });

  it("reports a missing table and a missing column with MySQL's message, and a chart column the query lacks", async () => {
    const res = await check(file(`SELECT month, SUM(amount) AS revenue FROM ${D}.orderz GROUP BY month`));
    expect(res.body.valid).toBe(false);
    expect(res.body.problems).toEqual([byMonthProblem("sql", `the query failed: Table '${D}.orderz' doesn't exist`)]);
    const unknownColumn = await check(file(`SELECT month, SUM(amount_eur) AS revenue FROM ${D}.orders GROUP BY month`));
    // MySQL 8 ends it "in 'field list'", MariaDB "in 'SELECT'".
    expect(unknownColumn.body.problems).toEqual([
      byMonthProblem("sql", expect.stringMatching(/^the query failed: Unknown column 'amount_eur' in '/)),
    ]);
    const column = await check(file(`SELECT month, SUM(amount) AS revenu FROM ${D}.orders GROUP BY month`));
    expect(column.body.problems).toEqual([byMonthProblem("y_columns.0", "column 'revenue' is not in the query's result (month, revenu)")]);
  });

  it("fetches no row: a panel that would sleep 20 s is prepared in a moment", async () => {
    const started = Date.now();
    const res = await check(file(`SELECT month, SLEEP(20) AS revenue FROM ${D}.orders`));
    expect(res.body).toMatchObject({ valid: true, problems: [] });
    expect(Date.now() - started).toBeLessThan(10_000);
    // Control: this server does sleep when a statement runs.
    const slow = Date.now();
    await onMysql("SELECT SLEEP(1) AS s");
    expect(Date.now() - slow).toBeGreaterThanOrEqual(900);
  });

  it("prepares in the data source's namespace: unqualified names are the tenant's", async () => {
    const unqualified = file("SELECT month, SUM(amount) AS revenue FROM orders GROUP BY month");
    unqualified.definition.panels[0].sql = "SELECT SUM(amount) AS value FROM orders";
    expect((await check(unqualified, tenant)).body).toMatchObject({ valid: true, problems: [] });
    // Control: the binding's own database has no such table.
    const own = await check(unqualified);
    expect(own.body.valid).toBe(false);
    expect(own.body.problems[0].message).toMatch(/^the query failed: Table 'warehouse\.orders' doesn't exist/);
  });
});

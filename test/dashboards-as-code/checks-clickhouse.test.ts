import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { admin, createCustomer, unique, workspace } from "../helpers/dashboards";
import { clickhouseAvailable, clickhouseServer, onClickhouse, sendClickhouse } from "../helpers/clickhouse-warehouse";

// `dashboard_checks` (`dashboards validate --customer`) on a ClickHouse data source: the test
// run's ClickHouse (the real engine), reached as the service reaches it. Each panel is
// prepared with `DESCRIBE (query)`, which reads no row (docs/clickhouse.md).
const D = "ch_dashboard_checks";
let schema: number;
let viewer: string;
let tenant: string;
let locked: string;

const file = (sql: string) => ({
  embed_id: "ch-checked",
  name: "ClickHouse checked",
  definition: {
    panels: [
      {
        id: "total",
        type: "kpi",
        schema_id: schema,
        sql: "SELECT sum(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}}",
        layout: { x: 0, y: 0, w: 4, h: 2 },
      },
      {
        id: "by_month",
        type: "line",
        schema_id: schema,
        sql,
        x_column: "month",
        y_columns: ["revenue"],
        layout: { x: 4, y: 0, w: 8, h: 4 },
      },
    ],
  },
});
const check = (body: unknown, providedId = viewer) =>
  admin("POST", "/admin/dashboard_checks/", { ...(body as object), provided_id: providedId });

beforeAll(async () => {
  if (!clickhouseAvailable) return;
  await onClickhouse(
    ...[D, `${D}_tenant`].flatMap((db) => [
      `DROP DATABASE IF EXISTS ${db}`,
      `CREATE DATABASE ${db}`,
      `CREATE TABLE ${db}.orders (customer_id String, month String, amount Decimal(12, 2)${db === D ? "" : ", tenant_only Int64"}) ENGINE = MergeTree ORDER BY tuple()`,
    ]),
    `INSERT INTO ${D}.orders VALUES ('someone', '2026-01', 10), ('someone', '2026-02', 20)`,
  );
  const { write } = await workspace();
  schema = (await admin("POST", "/admin/schemas/", { name: unique("ch-checks") })).body.schema.id;
  const connection = { url: clickhouseServer.url, user: clickhouseServer.user, password: clickhouseServer.password, database: D };
  const source = async (name: string, extra: Record<string, unknown>) =>
    (await admin("POST", "/admin/data_sources/", { name, kind: "clickhouse", ...extra })).body.data_source.id as number;
  const mapped = async (id: number) =>
    (await createCustomer(write, { provided_id: unique("ch-check"), mapping: { [schema]: id } })).provided_id;
  viewer = await mapped(await source("Checked (ClickHouse)", { connection }));
  tenant = await mapped(await source("Tenant (ClickHouse)", { connection, namespace: `${D}_tenant` }));
  locked = await mapped(await source("Wrong password (ClickHouse)", { connection: { ...connection, password: "not-the-password" } }));
});

afterEach(() => vi.restoreAllMocks());

describe.skipIf(!clickhouseAvailable)("checking a dashboard file against a customer's ClickHouse data source", () => {
  it("prepares every panel and lists its result columns (placeholders bound as {pN:Type})", async () => {
    const res = await check(
      file("SELECT month, sum(amount) AS revenue FROM orders WHERE customer_id = {{customer.provided_id}} GROUP BY month"),
    );
    expect([res.status, res.body.valid, res.body.problems]).toEqual([200, true, []]);
    const columns = Object.fromEntries(res.body.panels.map((panel: { id: string; columns: string[] }) => [panel.id, panel.columns]));
    expect(columns).toEqual({ total: ["value"], by_month: ["month", "revenue"] });
  });

  it("reports a missing table and a missing column with ClickHouse's word on the panel's field", async () => {
    for (const [sql, named] of [
      ["SELECT month, sum(amount) AS revenue FROM orderz GROUP BY month", "orderz"],
      ["SELECT month, sum(amount_eur) AS revenue FROM orders GROUP BY month", "amount_eur"],
    ]) {
      const res = await check(file(sql));
      expect(res.body.valid).toBe(false);
      expect(res.body.problems).toEqual([
        { field: "definition.panels.1.sql", panel_index: 1, panel_id: "by_month", message: expect.stringContaining(named) },
      ]);
    }
  });

  it("reads no row: a panel that would sleep far past the time limit is prepared in a moment", async () => {
    const started = Date.now();
    const res = await check(file("SELECT month, sum(sleep(3)) AS revenue FROM orders, numbers(100000000) AS n GROUP BY month"));
    expect(res.body).toMatchObject({ valid: true, problems: [] });
    expect(Date.now() - started).toBeLessThan(5_000);
    // Control: this engine does sleep when a query runs.
    const slow = Date.now();
    expect((await sendClickhouse("SELECT sleep(1) AS s")).status).toBe(200);
    expect(Date.now() - slow).toBeGreaterThanOrEqual(900);
  });

  it("prepares in the data source's namespace: unqualified names are the tenant's", async () => {
    const sql = "SELECT month, sum(tenant_only) AS revenue FROM orders GROUP BY month";
    expect((await check(file(sql), tenant)).body).toMatchObject({ valid: true, problems: [] });
    // Control: the connection's own database has no such column.
    expect((await check(file(sql))).body.valid).toBe(false);
  });

  it("a source that refuses the credentials: each panel's problem says so, and the password is in no answer or log line", async () => {
    const logged: string[] = [];
    for (const method of ["log", "info", "warn", "error", "debug"] as const)
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
    const res = await check(file("SELECT month, sum(amount) AS revenue FROM orders GROUP BY month"), locked);
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.problems).toHaveLength(2);
    for (const problem of res.body.problems) expect(problem.message).toMatch(/credentials/);
    for (const secret of ["not-the-password", clickhouseServer.password, `${clickhouseServer.user}:`]) {
      expect(JSON.stringify(res.body)).not.toContain(secret);
      expect(logged.join("\n")).not.toContain(secret);
    }
  });
});

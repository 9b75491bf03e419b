import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runMysql } from "../../../src/data/sources/mysql";
import type { PanelResult } from "../../../src/data/sources/types";
import { admin, call, dashboard, embed, kpi, panelText, unique, workspace } from "../../helpers/dashboards";
import {
  consoleLines,
  expectSlowPanelStopped,
  expectUnreachableSourcePage,
  mappedCustomer,
  panelsOf,
} from "../../helpers/data-source-engines";
import { mysqlAvailable, mysqlWarehouse, onMysql } from "../../helpers/mysql-warehouse";

// Every test here runs against the real MySQL-protocol server of the test run behind the
// WAREHOUSE_MYSQL Hyperdrive binding (scripts/lib/local-mysql.mjs). Its data lives in a
// database of its own; the panels run as the read-only account.
const D = "warehouse_panels";
const timeoutMs = Number((env as unknown as { QUERY_TIMEOUT_MS: string }).QUERY_TIMEOUT_MS);

let ctx: { write: string; read: string; schema: number; my: number; alpha: string; beta: string };

beforeAll(async () => {
  if (!mysqlAvailable) return;
  const alpha = unique("my-alpha");
  const beta = unique("my-beta");
  await onMysql(`
    DROP DATABASE IF EXISTS ${D};
    CREATE DATABASE ${D};
    CREATE TABLE ${D}.orders (id bigint AUTO_INCREMENT PRIMARY KEY, customer_id varchar(100) NOT NULL, day date NOT NULL, amount decimal(12,2) NOT NULL, region varchar(100));
    CREATE FUNCTION ${D}.add_order() RETURNS bigint MODIFIES SQL DATA
      BEGIN INSERT INTO ${D}.orders (customer_id, day, amount) VALUES ('intruder', '2026-01-01', 1); RETURN LAST_INSERT_ID(); END;
    CREATE TABLE ${D}.kinds (n decimal(10,2), precise decimal(30,1), big bigint, huge bigint unsigned, d date, dt datetime(3), ts timestamp(3) NULL, f double, flag tinyint(1), nothing varchar(10));
    INSERT INTO ${D}.kinds VALUES (12.50, 12345678901234567890123.5, 42, 9007199254740993, '2026-03-01', '2026-03-01 12:34:56.789', '2026-03-01 12:34:56.789', 0.1, 1, NULL);
    CREATE TABLE ${D}.digits (d int);
    INSERT INTO ${D}.digits VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9);
    CREATE TABLE ${D}.many (n int PRIMARY KEY);
    INSERT INTO ${D}.many SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 1 FROM ${D}.digits a, ${D}.digits b, ${D}.digits c, ${D}.digits e, ${D}.digits f WHERE f.d < 2;`);
  await onMysql(
    `INSERT INTO ${D}.orders (customer_id, day, amount, region) VALUES (?, '2026-01-05', 100, 'EU'), (?, '2026-02-05', 250, 'EU'), (?, '2026-01-07', 7, 'US')`,
    [alpha, alpha, beta],
  );
  const { write, read } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("mysql") })).body.schema.id as number;
  const my = (await admin("POST", "/admin/data_sources/", { name: "Warehouse (MySQL)", binding: "WAREHOUSE_MYSQL", kind: "mysql" })).body
    .data_source.id as number;
  ctx = { write, read, schema, my, alpha, beta };
});

const customer = (providedId = unique("my-customer"), source = ctx.my, extra: Record<string, unknown> = {}) =>
  mappedCustomer(ctx, source, providedId, extra);

async function ordersState() {
  const [orders] = await onMysql<{ n: string; total: string }>(`SELECT count(*) AS n, sum(amount) AS total FROM ${D}.orders`);
  return orders;
}

const run = (queries: { sql: string; params?: (string | number | null)[] }[], limits = { timeoutMs, rowLimit: 10_000 }) => {
  const trips = { kind: "mysql" as const, trips: 0, connections: 0 };
  return runMysql(mysqlWarehouse, panelsOf(queries), limits, trips).then((results) => ({ results, trips }));
};

describe.skipIf(!mysqlAvailable)("mysql data source: data per customer", () => {
  it("shows each customer its own rows through the same dashboard, on one connection", async () => {
    const alpha = await customer(ctx.alpha);
    const beta = await customer(ctx.beta);
    const embedId = await dashboard({
      panels: [
        kpi("revenue", ctx.schema, `SELECT SUM(amount) AS value FROM ${D}.orders WHERE customer_id = {{customer.provided_id}}`, 0),
        kpi("orders", ctx.schema, `SELECT COUNT(*) AS value FROM ${D}.orders WHERE customer_id = {{customer.provided_id}}`, 3),
        kpi("mode", ctx.schema, "SELECT CONCAT(@@time_zone, ' ', DATABASE(), ' ', @@sql_select_limit) AS value", 6),
      ],
    });
    const a = await embed(embedId, alpha.token);
    const b = await embed(embedId, beta.token);
    expect(a.status).toBe(200);
    expect(panelText(a.body, "revenue")).toBe("revenue 350");
    expect(panelText(a.body, "orders")).toBe("orders 2");
    expect(panelText(b.body, "revenue")).toBe("revenue 7");
    // In UTC, in the binding's own database, at most QUERY_ROW_LIMIT + 1 rows per statement.
    expect(panelText(a.body, "mode")).toBe("mode +00:00 warehouse 10001");
    expect(a.body).toContain('data-render-complete="true"');
    // One connection; three trips prepare the session (transaction, limits, database), then
    // two per panel with values (prepare, execute) and one without.
    expect(a.headers.get("X-Data-Connections")).toBe("1");
    expect(a.headers.get("X-Data-Round-Trips-By-Source")).toBe(`${ctx.my}=8`);
  });

  it("binds placeholders as ? parameters: quotes, backslashes and # in a property are data", async () => {
    const before = await ordersState();
    for (const hostile of ["'; DROP TABLE orders; #", "\\'; DELETE FROM orders; -- ", "x' OR '1'='1", "\\", "#\n' OR 1=1 -- "]) {
      const sneaky = await customer(unique("my-sneaky"), ctx.my, { properties: { region: hostile } });
      const embedId = await dashboard({
        panels: [
          kpi(
            "rows",
            ctx.schema,
            `SELECT COUNT(*) AS value FROM ${D}.orders WHERE region = {{customer.properties.region}} OR customer_id = {{customer.properties.region}}`,
            0,
          ),
          kpi("echo", ctx.schema, "SELECT {{customer.properties.region}} AS value", 3),
        ],
      });
      const page = await embed(embedId, sneaky.token);
      expect(panelText(page.body, "rows")).toBe("rows 0");
      // The value came back exactly as given (the control: it did reach the database).
      const { results } = await run([{ sql: "SELECT ? AS value", params: [hostile] }]);
      expect(results.get("p0")).toEqual({ status: "ok", rows: [{ value: hostile }], truncated: false });
    }
    expect(await ordersState()).toEqual(before);
  });
});

describe.skipIf(!mysqlAvailable)("mysql data source: the database refuses writes", () => {
  it("refuses a stored function that writes: the panel shows MySQL's message, the rest renders, nothing changes", async () => {
    const before = await ordersState();
    const viewer = await customer();
    const embedId = await dashboard({
      panels: [
        kpi("writer", ctx.schema, `SELECT ${D}.add_order() AS value`, 0),
        kpi("after", ctx.schema, `SELECT COUNT(*) AS value FROM ${D}.orders`, 3),
      ],
    });
    const page = await embed(embedId, viewer.token);
    expect(page.status).toBe(200);
    expect(panelText(page.body, "writer")).toMatch(/The query failed: .*READ ONLY transaction/i);
    expect(panelText(page.body, "after")).toBe(`after ${before.n}`);
    expect(await ordersState()).toEqual(before);
  });

  it("refuses writes and session changes that reach the database past the check; a plain query after them still runs", async () => {
    const before = await ordersState();
    const { results } = await run([
      { sql: `INSERT INTO ${D}.orders (customer_id, day, amount) VALUES ('intruder', '2026-01-01', 1)` },
      { sql: `SELECT ${D}.add_order() AS value` },
      { sql: "SELECT 1 AS a; DELETE FROM orders" },
      { sql: `SELECT COUNT(*) AS value FROM ${D}.orders` },
    ]);
    for (const id of ["p0", "p1", "p2"])
      expect(results.get(id)).toMatchObject({ status: "failed", message: expect.stringMatching(/^The query failed: /) });
    expect(results.get("p3")).toEqual({ status: "ok", rows: [{ value: Number(before.n) }], truncated: false });
    expect(await ordersState()).toEqual(before);
  });
});

describe.skipIf(!mysqlAvailable)("mysql data source: limits", () => {
  it("stops a SLEEP(40) panel at QUERY_TIMEOUT_MS with a message; the rest of the dashboard renders", async () => {
    const viewer = await customer();
    const page = await expectSlowPanelStopped(ctx.schema, viewer.token, "SELECT SLEEP(40) AS value", timeoutMs, 1000);
    expect(page.status).toBe(200);
  });

  it("cuts a 20,000-row panel at QUERY_ROW_LIMIT, in the panel's order, also under a LIMIT of its own", async () => {
    const { results } = await run([
      { sql: `SELECT n FROM ${D}.many ORDER BY n DESC` },
      { sql: `SELECT n FROM ${D}.many ORDER BY n DESC LIMIT 15000` },
      { sql: `SELECT n FROM ${D}.many ORDER BY n LIMIT 3 -- a trailing comment` },
      { sql: `SELECT COUNT(*) AS c FROM (SELECT n FROM ${D}.many) AS inner_rows` },
    ]);
    for (const id of ["p0", "p1"]) {
      const cut = results.get(id) as Extract<PanelResult, { status: "ok" }>;
      expect(cut.rows).toHaveLength(10_000);
      expect(cut.truncated).toBe(true);
      expect(cut.rows[0]).toEqual({ n: 20_000 });
      expect(cut.rows[9_999]).toEqual({ n: 10_001 });
    }
    expect(results.get("p2")).toEqual({ status: "ok", rows: [{ n: 1 }, { n: 2 }, { n: 3 }], truncated: false });
    // The limit is the result's, not a subquery's (the control: all 20,000 were counted).
    expect(results.get("p3")).toEqual({ status: "ok", rows: [{ c: 20_000 }], truncated: false });
  });

  it("cuts a panel at the default QUERY_ROW_LIMIT on the page", async () => {
    const viewer = await customer();
    const embedId = await dashboard({
      panels: [
        {
          id: "many",
          type: "table",
          title: "Many",
          schema_id: ctx.schema,
          sql: `SELECT n FROM ${D}.many`,
          layout: { x: 0, y: 0, w: 12, h: 6 },
        },
      ],
    });
    const page = await embed(embedId, viewer.token);
    expect(page.status).toBe(200);
    expect(panelText(page.body, "many")).toContain("Showing the first");
  });
});

describe.skipIf(!mysqlAvailable)("mysql data source: types", () => {
  it("maps DECIMAL and BIGINT to numbers where exact (else strings), DATETIME as UTC, TIMESTAMP as its instant, TINYINT(1) as a number", async () => {
    const { results } = await run([{ sql: `SELECT * FROM ${D}.kinds` }, { sql: `SELECT * FROM ${D}.kinds WHERE big = ?`, params: [42] }]);
    const expected = {
      status: "ok",
      truncated: false,
      rows: [
        {
          n: 12.5,
          precise: "12345678901234567890123.5",
          big: 42,
          huge: "9007199254740993",
          d: "2026-03-01",
          dt: "2026-03-01T12:34:56.789Z",
          ts: "2026-03-01T12:34:56.789Z",
          f: 0.1,
          flag: 1,
          nothing: null,
        },
      ],
    };
    // The same values as text (no values bound) and from a prepared statement (values bound).
    expect(results.get("p0")).toEqual(expected);
    expect(results.get("p1")).toEqual(expected);
  });

  it("answers the same values in the panel's CSV", async () => {
    const viewer = await customer();
    const embedId = await dashboard({
      panels: [
        {
          id: "kinds",
          type: "table",
          title: "Kinds",
          schema_id: ctx.schema,
          sql: `SELECT big, huge, precise, d, dt FROM ${D}.kinds`,
          layout: { x: 0, y: 0, w: 12, h: 4 },
        },
      ],
    });
    const res = await call("GET", `/embed/${embedId}/panels/kinds.csv?customer_token=${viewer.token}`);
    expect(res.status).toBe(200);
    expect(res.body).toBe("big,huge,precise,d,dt\r\n42,9007199254740993,12345678901234567890123.5,2026-03-01,2026-03-01T12:34:56.789Z\r\n");
  });
});

describe.skipIf(!mysqlAvailable)("mysql data source: unreachable database", () => {
  const secrets = () => {
    const bindings = env as unknown as Record<string, Hyperdrive>;
    return [
      mysqlWarehouse.connectionString,
      mysqlWarehouse.password,
      `'${mysqlWarehouse.user}'@`,
      bindings.WAREHOUSE_MYSQL_STOPPED.connectionString,
      bindings.WAREHOUSE_MYSQL_WRONG_PASSWORD.connectionString,
      "not-the-password",
    ];
  };
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ["a stopped server", "WAREHOUSE_MYSQL_STOPPED", "could not be reached"],
    ["a wrong password", "WAREHOUSE_MYSQL_WRONG_PASSWORD", "refused the credentials of this data source"],
  ])("%s: the panel says so, the page is not a 500, and no secret is in the page or the logs", async (_case, binding, says) => {
    const logged = consoleLines();
    const source = (await admin("POST", "/admin/data_sources/", { name: binding, binding, kind: "mysql" })).body.data_source.id as number;
    const viewer = await customer(unique("my-down"), source);
    await expectUnreachableSourcePage(
      { schema: ctx.schema, customerToken: viewer.token, table: `${D}.orders` },
      { says, logged, logLine: "mysql connection failed", secrets: secrets() },
    );
  });
});

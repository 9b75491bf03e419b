import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runPostgres } from "../../../src/data/sources/postgres";
import type { PanelResult } from "../../../src/data/sources/types";
import { admin, call, dashboard, embed, kpi, panelText, seedOrders, unique, workspace } from "../../helpers/dashboards";
import { fetchDownload, isPng, pngWidth, waitForJob } from "../../helpers/delivery";
import {
  consoleLines,
  expectSlowPanelStopped,
  expectUnreachableSourcePage,
  mappedCustomer,
  panelsOf,
} from "../../helpers/data-source-engines";
import { onWarehouse, warehouse } from "../../helpers/warehouse";

// Every test here runs against the real local PostgreSQL behind the WAREHOUSE Hyperdrive
// binding (wrangler.toml's local connection string, or
// CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE). Test data lives in its own schema.
const S = "dashboard_tests";
const timeoutMs = Number((env as unknown as { QUERY_TIMEOUT_MS: string }).QUERY_TIMEOUT_MS);

let ctx: { write: string; read: string; schema: number; pg: number; d1: number; alpha: string; beta: string };

beforeAll(async () => {
  const alpha = unique("pg-alpha");
  const beta = unique("pg-beta");
  await onWarehouse(`
    DROP SCHEMA IF EXISTS ${S} CASCADE;
    CREATE SCHEMA ${S};
    CREATE TABLE ${S}.orders (id bigserial PRIMARY KEY, customer_id text NOT NULL, day date NOT NULL, month text NOT NULL, amount numeric(12,2) NOT NULL, region text);
    CREATE SEQUENCE ${S}.s;
    CREATE FUNCTION ${S}.add_order() RETURNS bigint LANGUAGE sql VOLATILE AS
      $$ INSERT INTO ${S}.orders (customer_id, day, month, amount) VALUES ('intruder', '2026-01-01', '2026-01', 1) RETURNING id $$;
    CREATE TABLE ${S}.screenshot_only (label text, revenue numeric);
    INSERT INTO ${S}.screenshot_only VALUES ('EU', 1200.5), ('US', 800);
    CREATE TABLE ${S}.kinds (n numeric, precise numeric, big bigint, huge bigint, d date, ts timestamptz, local_ts timestamp, f double precision, nothing text);
    INSERT INTO ${S}.kinds VALUES (12.50, 123456789012345678901234.5, 42, 9007199254740993, '2026-03-01', '2026-03-01 12:34:56.789+02', '2026-03-01 12:34:56', 0.1, NULL);`);
  await onWarehouse(
    `INSERT INTO ${S}.orders (customer_id, day, month, amount, region) VALUES
       ($1, '2026-01-05', '2026-01', 100, 'EU'), ($1, '2026-02-05', '2026-02', 250, 'EU'), ($2, '2026-01-07', '2026-01', 7, 'US')`,
    [alpha, beta],
  );
  await seedOrders();
  const { write, read } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("warehouse") })).body.schema.id as number;
  const pgSource = (await admin("POST", "/admin/data_sources/", { name: "Warehouse", binding: "WAREHOUSE", kind: "postgres" })).body
    .data_source.id as number;
  const d1Source = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" })).body.data_source.id as number;
  ctx = { write, read, schema, pg: pgSource, d1: d1Source, alpha, beta };
});

/** A customer whose `schema` maps to the given data source (PostgreSQL by default). */
const customer = (providedId = unique("pg-customer"), source = ctx.pg, extra: Record<string, unknown> = {}) =>
  mappedCustomer(ctx, source, providedId, extra);

async function ordersState() {
  const [orders] = await onWarehouse<{ n: string; total: string }>(`SELECT count(*) AS n, sum(amount) AS total FROM ${S}.orders`);
  const [sequence] = await onWarehouse<{ last_value: string; is_called: boolean }>(`SELECT last_value, is_called FROM ${S}.s`);
  const [table] = await onWarehouse<{ exists: boolean }>(`SELECT to_regclass('${S}.orders') IS NOT NULL AS exists`);
  return { orders, sequence, table };
}

const run = (queries: { sql: string; params?: unknown[] }[], limits = { timeoutMs, rowLimit: 10_000 }) => {
  const trips = { kind: "postgres" as const, trips: 0, connections: 0 };
  return runPostgres(warehouse, panelsOf(queries as { sql: string; params?: (string | number | null)[] }[]), limits, trips).then(
    (results) => ({ results, trips }),
  );
};

describe("postgres data source: data per customer", () => {
  it("shows each customer its own rows through the same dashboard", async () => {
    const alpha = await customer(ctx.alpha);
    const beta = await customer(ctx.beta);
    const embedId = await dashboard({
      panels: [kpi("revenue", ctx.schema, `SELECT SUM(amount) AS value FROM ${S}.orders WHERE customer_id = {{customer.provided_id}}`)],
    });
    const a = await embed(embedId, alpha.token);
    const b = await embed(embedId, beta.token);
    expect(a.status).toBe(200);
    expect(panelText(a.body, "revenue")).toBe("revenue 350");
    expect(panelText(b.body, "revenue")).toBe("revenue 7");
    expect(a.body).toContain('data-render-complete="true"');
    // One connection; one trip opens the read-only transaction, one runs the panel.
    expect(a.headers.get("X-Data-Connections")).toBe("1");
    expect(a.headers.get("X-Data-Round-Trips")).toBe("2");
    expect(a.headers.get("X-Data-Round-Trips-By-Source")).toBe(`${ctx.pg}=2`);
  });

  it("binds placeholders as $n parameters: a property holding '; DROP TABLE orders; -- is data", async () => {
    const before = await ordersState();
    const sneaky = await customer(unique("pg-sneaky"), ctx.pg, { properties: { region: "'; DROP TABLE orders; --" } });
    const embedId = await dashboard({
      panels: [
        kpi(
          "rows",
          ctx.schema,
          `SELECT COUNT(*) AS value FROM ${S}.orders WHERE region = {{customer.properties.region}} OR customer_id = {{customer.properties.region}}`,
        ),
      ],
    });
    const page = await embed(embedId, sneaky.token);
    expect(panelText(page.body, "rows")).toBe("rows 0");
    expect(await ordersState()).toEqual(before);
    expect(before.table.exists).toBe(true);
  });

  it("runs all panels of one data source on one connection in one read-only transaction, next to D1", async () => {
    const viewer = await customer();
    const d1Schema = (await admin("POST", "/admin/schemas/", { name: unique("d1") })).body.schema.id as number;
    await call("POST", "/api/update_customer/", {
      token: ctx.write,
      body: { provided_id: viewer.provided_id, mapping: { [ctx.schema]: ctx.pg, [d1Schema]: ctx.d1 } },
    });
    const embedId = await dashboard({
      panels: [
        kpi("pid1", ctx.schema, "SELECT pg_backend_pid()::text AS value", 0, 0),
        kpi("pid2", ctx.schema, "SELECT pg_backend_pid()::text AS value", 3, 0),
        kpi("started1", ctx.schema, "SELECT now()::text AS value", 6, 0),
        kpi("started2", ctx.schema, "SELECT now()::text AS value", 9, 0),
        kpi(
          "mode",
          ctx.schema,
          "SELECT current_setting('transaction_read_only') || ' ' || current_setting('statement_timeout') AS value",
          0,
          2,
        ),
        kpi("d1", d1Schema, "SELECT COUNT(*) AS value FROM orders", 3, 2),
      ],
    });
    const page = await embed(embedId, viewer.token);
    const text = (id: string) => panelText(page.body, id).replace(/^\S+ /, "");
    expect(text("pid1")).toMatch(/^[\d,.]+$/);
    expect(text("pid2")).toBe(text("pid1"));
    expect(text("started2")).toBe(text("started1"));
    expect(text("mode")).toBe(`on ${timeoutMs / 1000}s`);
    expect(text("d1")).toBe("4");
    expect(page.headers.get("X-Data-Connections")).toBe("1");
    expect(page.headers.get("X-Data-Round-Trips-By-Source")).toBe([`${ctx.pg}=6`, `${ctx.d1}=1`].sort().join(","));
    expect(page.headers.get("X-Data-Round-Trips")).toBe("7");
  });
});

describe("postgres data source: the database refuses writes", () => {
  it("refuses a VOLATILE function that writes; nextval(…) and set_config(…) are refused on save and by the database", async () => {
    const before = await ordersState();
    const viewer = await customer();
    const embedId = await dashboard({
      panels: [
        kpi("writer", ctx.schema, `SELECT ${S}.add_order() AS value`, 3),
        kpi("after", ctx.schema, `SELECT COUNT(*) AS value FROM ${S}.orders`, 9),
      ],
    });
    const page = await embed(embedId, viewer.token);
    expect(page.status).toBe(200);
    expect(panelText(page.body, "writer")).toContain("cannot execute INSERT in a read-only transaction");
    expect(panelText(page.body, "after")).toBe(`after ${before.orders.n}`);
    const next = `SELECT nextval('${S}.s') AS value`;
    const unlock = "SELECT set_config('transaction_read_only', 'off', true) AS value";
    for (const sql of [next, unlock]) {
      const saved = await admin("POST", "/admin/dashboard_versions/", {
        embed_id: embedId,
        definition: { panels: [kpi("x", ctx.schema, sql)] },
      });
      expect(saved.status).toBe(422);
      expect(saved.body.error).toMatchObject({ code: "query_not_read_only", field: "definition.panels.0.sql" });
    }
    const { results } = await run([{ sql: next }, { sql: unlock }]);
    expect(results.get("p0")).toMatchObject({
      status: "failed",
      message: expect.stringContaining("cannot execute nextval() in a read-only transaction"),
    });
    expect(results.get("p1")).toMatchObject({
      status: "failed",
      message: expect.stringContaining("transaction read-write mode must be set before any query"),
    });
    expect(await ordersState()).toEqual(before);
  });

  it("refuses an INSERT hidden in a CTE and SET even when they get past the read-only check", async () => {
    const before = await ordersState();
    const hidden = `WITH added AS (INSERT INTO ${S}.orders (customer_id, day, month, amount) VALUES ('intruder', '2026-01-01', '2026-01', 1) RETURNING id) SELECT count(*) AS value FROM added`;
    // The API refuses to save them: the read-only check comes first …
    for (const sql of [hidden, "SET transaction_read_only = off", "SET statement_timeout = 0"]) {
      const res = await admin("POST", "/admin/dashboards/", { embed_id: unique("refused"), name: "x" });
      expect(res.status).toBe(200);
      const saved = await admin("POST", "/admin/dashboard_versions/", {
        embed_id: res.body.dashboard.embed_id,
        definition: { panels: [kpi("x", ctx.schema, sql)] },
      });
      expect(saved.status).toBe(422);
    }
    // … and the database refuses them when they reach it anyway.
    const { results } = await run([
      { sql: hidden },
      { sql: "SET transaction_read_only = off" },
      { sql: "SET statement_timeout = 0" },
      { sql: `SELECT count(*) AS value FROM ${S}.orders` },
    ]);
    for (const id of ["p0", "p1", "p2"])
      expect(results.get(id)).toMatchObject({ status: "failed", message: expect.stringMatching(/^The query failed: /) });
    expect(results.get("p3")).toEqual({ status: "ok", rows: [{ value: Number(before.orders.n) }], truncated: false });
    expect(await ordersState()).toEqual(before);
  });
});

describe("postgres data source: limits", () => {
  it("stops a slow panel at QUERY_TIMEOUT_MS with a message; the rest of the dashboard renders", async () => {
    const viewer = await customer();
    const page = await expectSlowPanelStopped(ctx.schema, viewer.token, "SELECT pg_sleep(30) AS value", timeoutMs, 1000);
    expect(page.status).toBe(200);
  });

  it("keeps QUERY_ROW_LIMIT rows and marks the panel as cut", async () => {
    const { results } = await run(
      [
        { sql: "SELECT n FROM generate_series(1, 5) AS n ORDER BY n" },
        { sql: "SELECT n FROM generate_series(1, 3) AS n -- a trailing comment" },
      ],
      { timeoutMs, rowLimit: 3 },
    );
    expect(results.get("p0")).toEqual({ status: "ok", rows: [{ n: 1 }, { n: 2 }, { n: 3 }], truncated: true });
    expect(results.get("p1")).toEqual({ status: "ok", rows: [{ n: 1 }, { n: 2 }, { n: 3 }], truncated: false });
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
          sql: "SELECT n FROM generate_series(1, 10005) AS n",
          layout: { x: 0, y: 0, w: 12, h: 6 },
        },
        {
          id: "trend",
          type: "line",
          title: "Trend",
          schema_id: ctx.schema,
          sql: "SELECT n AS x, n % 7 AS y FROM generate_series(1, 10005) AS n",
          x_column: "x",
          y_columns: ["y"],
          layout: { x: 0, y: 6, w: 12, h: 6 },
        },
      ],
    });
    const page = await embed(embedId, viewer.token);
    expect(page.status).toBe(200);
    expect(panelText(page.body, "many")).toContain("Showing the first");
    expect(panelText(page.body, "trend")).toContain("Cut at the first 10,000 rows.");
    const { results } = await run([{ sql: "SELECT n FROM generate_series(1, 10005) AS n" }]);
    const many = results.get("p0") as Extract<PanelResult, { status: "ok" }>;
    expect(many.rows).toHaveLength(10_000);
    expect(many.truncated).toBe(true);
  });
});

describe("postgres data source: types", () => {
  it("maps numeric and bigint to numbers where exact (else strings), dates to ISO 8601, NULL to null", async () => {
    const { results } = await run([{ sql: `SELECT * FROM ${S}.kinds` }]);
    expect(results.get("p0")).toEqual({
      status: "ok",
      truncated: false,
      rows: [
        {
          n: 12.5,
          precise: "123456789012345678901234.5",
          big: 42,
          huge: "9007199254740993",
          d: "2026-03-01",
          ts: "2026-03-01T10:34:56.789Z",
          local_ts: "2026-03-01T12:34:56",
          f: 0.1,
          nothing: null,
        },
      ],
    });
  });

  it("shows the mapped values on the page", async () => {
    const viewer = await customer();
    const embedId = await dashboard({
      panels: [
        {
          id: "kinds",
          type: "table",
          title: "Kinds",
          schema_id: ctx.schema,
          sql: `SELECT big, huge, d, ts FROM ${S}.kinds`,
          layout: { x: 0, y: 0, w: 12, h: 4 },
        },
      ],
    });
    const text = panelText((await embed(embedId, viewer.token)).body, "kinds");
    expect(text).toContain("9007199254740993");
    // The timestamp is shown as the en-US page shows an instant (UTC, the default zone), by Intl.
    const shown = new Intl.DateTimeFormat("en-US", {
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      timeZone: "UTC",
    }).format(Date.parse("2026-03-01T10:34:56.789Z"));
    expect(text).toContain(shown);
  });
});

describe("postgres data source: unreachable database", () => {
  const secrets = () => {
    const bindings = env as unknown as Record<string, Hyperdrive>;
    return [
      warehouse.connectionString,
      warehouse.password,
      bindings.WAREHOUSE_STOPPED.connectionString,
      bindings.WAREHOUSE_WRONG_PASSWORD.connectionString,
      bindings.WAREHOUSE_WRONG_PASSWORD.password,
      "warehouse_local",
      "not-the-password",
    ];
  };
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ["a stopped server", "WAREHOUSE_STOPPED", "could not be reached"],
    ["a wrong password", "WAREHOUSE_WRONG_PASSWORD", "refused the credentials of this data source"],
  ])("%s: the panel says so, the page is not a 500, and no secret is in the page or the logs", async (_case, binding, says) => {
    const logged = consoleLines();
    const source = (await admin("POST", "/admin/data_sources/", { name: binding, binding, kind: "postgres" })).body.data_source
      .id as number;
    const viewer = await customer(unique("pg-down"), source);
    await expectUnreachableSourcePage(
      { schema: ctx.schema, customerToken: viewer.token, table: `${S}.orders` },
      { says, logged, logLine: "postgres connection failed", secrets: secrets() },
    );
  });
});

describe("postgres data source: screenshots", () => {
  it("captures a PNG of a dashboard whose panels read PostgreSQL", async () => {
    const scans = async () =>
      Number(
        (
          await onWarehouse<{ n: string }>(
            `SELECT coalesce(seq_scan, 0) AS n FROM pg_stat_user_tables WHERE schemaname = '${S}' AND relname = 'screenshot_only'`,
          )
        )[0]?.n ?? 0,
      );
    const before = await scans();
    const viewer = await customer();
    const embedId = await dashboard({
      panels: [
        kpi("total", ctx.schema, `SELECT SUM(revenue) AS value FROM ${S}.screenshot_only`),
        {
          id: "chart",
          type: "bar",
          title: "By region",
          schema_id: ctx.schema,
          sql: `SELECT label, revenue FROM ${S}.screenshot_only ORDER BY label`,
          x_column: "label",
          y_columns: ["revenue"],
          layout: { x: 3, y: 0, w: 9, h: 4 },
        },
      ],
    });
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: viewer.provided_id, dashboard_embed_id: embedId, width: 800 },
    });
    expect(res.status).toBe(200);
    const job = await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed");
    expect(job).toMatchObject({ status: "done", error: null });
    const file = await fetchDownload(res.body.url);
    expect(file.headers.get("Content-Type")).toBe("image/png");
    expect(isPng(file.bytes)).toBe(true);
    expect(pngWidth(file.bytes)).toBe(800);
    // The captured page read the table in PostgreSQL (statistics arrive within a second or so).
    for (let i = 0; i < 40 && (await scans()) <= before; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await scans()).toBeGreaterThan(before);
  });
});

describe("postgres data source: CSV", () => {
  it("exports a panel's PostgreSQL rows as CSV with the same type mapping and row limit as the page", async () => {
    const viewer = await customer();
    const embedId = await dashboard({
      panels: [
        {
          id: "kinds",
          type: "table",
          title: "Kinds",
          schema_id: ctx.schema,
          sql: `SELECT n, big, huge, d, ts, nothing FROM ${S}.kinds`,
          layout: { x: 0, y: 0, w: 12, h: 4 },
        },
        {
          id: "many",
          type: "table",
          title: "Many",
          schema_id: ctx.schema,
          sql: "SELECT n FROM generate_series(1, 10005) AS n",
          layout: { x: 0, y: 4, w: 12, h: 4 },
        },
      ],
    });
    const kinds = await call("GET", `/embed/${embedId}/panels/kinds.csv?customer_token=${viewer.token}`);
    expect(kinds.status).toBe(200);
    expect(kinds.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(String(kinds.body).trim().split(/\r?\n/)).toEqual([
      "n,big,huge,d,ts,nothing",
      "12.5,42,9007199254740993,2026-03-01,2026-03-01T10:34:56.789Z,",
    ]);
    const many = await call("GET", `/embed/${embedId}/panels/many.csv?customer_token=${viewer.token}`);
    expect(many.status).toBe(200);
    const lines = String(many.body).trim().split(/\r?\n/);
    expect(lines).toHaveLength(1 + 10_000);
    expect(lines.at(-1)).toBe("10000");
  });
});

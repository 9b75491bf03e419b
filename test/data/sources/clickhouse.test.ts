import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { describeClickhouse, runClickhouse, settingsFor } from "../../../src/data/sources/clickhouse";
import { connectionToStore, type StoredConnection } from "../../../src/data/sources/clickhouse-connection";
import type { Param } from "../../../src/data/placeholders";
import type { PanelResult } from "../../../src/data/sources/types";
import { admin, call, dashboard, embed, kpi, panelText, unique, workspace } from "../../helpers/dashboards";
import { consoleLines, expectSlowPanelStopped, mappedCustomer, panelsOf } from "../../helpers/data-source-engines";
import { clickhouseAvailable, clickhouseRows, clickhouseServer, onClickhouse, sendClickhouse } from "../../helpers/clickhouse-warehouse";

// Every test here runs against the real ClickHouse engine of the test run (the tests' server
// around chdb, or CLICKHOUSE_TEST_URL's; scripts/lib/local-clickhouse.mjs), reached as the
// service reaches it: @clickhouse/client-web over HTTP, as the plain `reader` account, with the
// service's settings on every request. Its data lives in databases of its own.
const D = "ch_panels";
const TENANT_A = "ch_tenant_a";
const TENANT_B = "ch_tenant_b";
const timeoutMs = Number((env as unknown as { QUERY_TIMEOUT_MS: string }).QUERY_TIMEOUT_MS);
const dataSourceKey = (env as unknown as { DATA_SOURCE_KEY: string }).DATA_SOURCE_KEY;

let ctx: { write: string; schema: number; ch: number; alpha: string; beta: string; stored: StoredConnection };

const connection = (extra: Record<string, unknown> = {}) => ({
  url: clickhouseServer.url,
  user: clickhouseServer.user,
  password: clickhouseServer.password,
  database: D,
  ...extra,
});

async function createSource(name: string, extra: Record<string, unknown> = {}, namespace?: string): Promise<number> {
  const created = await admin("POST", "/admin/data_sources/", {
    name,
    kind: "clickhouse",
    connection: connection(extra),
    ...(namespace ? { namespace } : {}),
  });
  expect(created.status).toBe(200);
  return created.body.data_source.id as number;
}

beforeAll(async () => {
  if (!clickhouseAvailable) return;
  const alpha = unique("ch-alpha");
  const beta = unique("ch-beta");
  await onClickhouse(
    `DROP DATABASE IF EXISTS ${D}`,
    `CREATE DATABASE ${D}`,
    `CREATE TABLE ${D}.orders (id Int64, customer_id String, day Date, amount Decimal(12, 2), region Nullable(String)) ENGINE = MergeTree ORDER BY id`,
    `INSERT INTO ${D}.orders VALUES (1, '${alpha}', '2026-01-05', 100, 'EU'), (2, '${alpha}', '2026-02-05', 250, 'EU'), (3, '${beta}', '2026-01-07', 7, 'US')`,
    `CREATE TABLE ${D}.kinds (big Int64, huge UInt64, top UInt64, precise Decimal(38, 1), n Decimal(10, 2), d Date, dt DateTime('Europe/Berlin'), dt64 DateTime64(3, 'America/New_York'), flag Bool, f Float64, nothing Nullable(String)) ENGINE = MergeTree ORDER BY tuple()`,
    `INSERT INTO ${D}.kinds VALUES (42, 9007199254740993, 18446744073709551615, 1234567890123456789012345678901234567.5, 12.50, '2026-03-01', '2026-03-29 03:30:00', '2026-03-01 07:34:56.789', true, 0.1, NULL)`,
    `CREATE TABLE ${D}.scratch (a Int64) ENGINE = MergeTree ORDER BY tuple()`,
    ...[TENANT_A, TENANT_B].flatMap((tenant, i) => [
      `DROP DATABASE IF EXISTS ${tenant}`,
      `CREATE DATABASE ${tenant}`,
      `CREATE TABLE ${tenant}.orders (amount Int64) ENGINE = MergeTree ORDER BY tuple()`,
      `INSERT INTO ${tenant}.orders VALUES ${i === 0 ? "(1), (2)" : "(10), (20), (30)"}`,
    ]),
  );
  const { write } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("clickhouse") })).body.schema.id as number;
  const ch = await createSource("Events (ClickHouse)");
  const stored = await connectionToStore(env as never, connection());
  if ("field" in stored) throw new Error(stored.message);
  ctx = { write, schema, ch, alpha, beta, stored };
});

const customer = (providedId = unique("ch-customer"), source = ctx.ch, extra: Record<string, unknown> = {}) =>
  mappedCustomer(ctx, source, providedId, extra);

const ordersCount = async () => (await clickhouseRows<{ n: number }>(`SELECT count() AS n FROM ${D}.orders`))[0].n;

const run = (queries: { sql: string; params?: Param[] }[], limits = { timeoutMs, rowLimit: 10_000 }, namespace?: string | null) => {
  const trips = { kind: "clickhouse" as const, trips: 0, connections: 0 };
  return runClickhouse({ env: env as never, connection: ctx.stored }, panelsOf(queries), limits, trips, namespace).then((results) => ({
    results,
    trips,
  }));
};

describe.skipIf(!clickhouseAvailable)("clickhouse data source: data per customer", () => {
  it("shows each customer its own rows through the same dashboard, its values bound as {pN:Type} parameters", async () => {
    const alpha = await customer(ctx.alpha);
    const beta = await customer(ctx.beta);
    const embedId = await dashboard({
      panels: [
        kpi("revenue", ctx.schema, "SELECT sum(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}}", 0),
        kpi("orders", ctx.schema, "SELECT count() AS value FROM orders WHERE customer_id = {{customer.provided_id}}", 3),
        kpi(
          "mode",
          ctx.schema,
          "SELECT concat(getSetting('readonly')::String, ' ', currentDatabase(), ' ', getSetting('max_result_rows')::String) AS value",
          6,
        ),
      ],
    });
    const a = await embed(embedId, alpha.token);
    const b = await embed(embedId, beta.token);
    expect(a.status).toBe(200);
    expect(panelText(a.body, "revenue")).toBe("revenue 350");
    expect(panelText(a.body, "orders")).toBe("orders 2");
    expect(panelText(b.body, "revenue")).toBe("revenue 7");
    // Read-only, in the connection's database, at most QUERY_ROW_LIMIT + 1 rows per request.
    expect(panelText(a.body, "mode")).toBe("mode 1 ch_panels 10001");
    expect(a.body).toContain('data-render-complete="true"');
    // One request per panel, in parallel.
    expect(a.headers.get("X-Data-Round-Trips-By-Source")).toBe(`${ctx.ch}=3`);
  });

  it("reads each data source's namespace as the request's database: the same SQL, each tenant's rows", async () => {
    const a = await createSource("Tenant A", {}, TENANT_A);
    const b = await createSource("Tenant B", {}, TENANT_B);
    const embedId = await dashboard({ panels: [kpi("total", ctx.schema, "SELECT sum(amount) AS value FROM orders", 0)] });
    expect(panelText((await embed(embedId, (await customer(unique("ch-ta"), a)).token)).body, "total")).toBe("total 3");
    expect(panelText((await embed(embedId, (await customer(unique("ch-tb"), b)).token)).body, "total")).toBe("total 60");
    // A namespace the server does not have: that panel's message.
    const missing = await createSource("Tenant C", {}, "ch_tenant_missing");
    const page = await embed(embedId, (await customer(unique("ch-tc"), missing)).token);
    expect(panelText(page.body, "total")).toBe(
      "total The namespace &#39;ch_tenant_missing&#39; of this data source does not exist; the panel could not be loaded.",
    );
  });

  it("binds hostile properties as data: quotes, backslashes, braces and comment marks never reach the SQL text", async () => {
    const before = await ordersCount();
    for (const hostile of ["'; DROP TABLE orders; --", "\\'; SELECT 1 #", "x' OR '1'='1", "\\", "{p1:String}", "$a$ '\n", "\t\\N"]) {
      const sneaky = await customer(unique("ch-sneaky"), ctx.ch, { properties: { region: hostile } });
      const embedId = await dashboard({
        panels: [
          kpi(
            "rows",
            ctx.schema,
            "SELECT count() AS value FROM orders WHERE region = {{customer.properties.region}} OR customer_id = {{customer.properties.region}}",
            0,
          ),
        ],
      });
      expect(panelText((await embed(embedId, sneaky.token)).body, "rows")).toBe("rows 0");
      // The value came back exactly as given (the control: it did reach the database).
      const { results } = await run([{ sql: "SELECT {p1:String} AS value", params: [hostile] }]);
      expect(results.get("p0")).toEqual({ status: "ok", rows: [{ value: hostile }], truncated: false });
    }
    const { results } = await run([
      { sql: "SELECT {p1:Int64} AS i, {p2:Float64} AS f, {p3:Bool} AS b, {p4:Nullable(String)} AS n", params: [7, 1.5, true, null] },
    ]);
    expect(results.get("p0")).toEqual({ status: "ok", rows: [{ i: 7, f: 1.5, b: true, n: null }], truncated: false });
    expect(await ordersCount()).toBe(before);
  });
});

describe.skipIf(!clickhouseAvailable)("clickhouse data source: the engine refuses writes", () => {
  it("refuses writes and settings changes sent straight to it with the service's settings; a plain query after them still runs", async () => {
    const before = await ordersCount();
    const { results } = await run([
      { sql: `INSERT INTO ${D}.orders VALUES (99, 'intruder', '2026-01-01', 1, NULL)` },
      { sql: `CREATE TABLE ${D}.intruder (a Int64) ENGINE = Memory` },
      { sql: `ALTER TABLE ${D}.orders DELETE WHERE 1` },
      { sql: "SELECT * FROM file('/etc/passwd', 'LineAsString')" },
      { sql: `SELECT count() AS value FROM ${D}.orders` },
    ]);
    for (const id of ["p0", "p1", "p2", "p3"])
      expect(results.get(id)).toMatchObject({ status: "failed", message: expect.stringMatching(/^The query failed: .*readonly mode/) });
    expect(results.get("p4")).toEqual({ status: "ok", rows: [{ value: before }], truncated: false });
    expect(await ordersCount()).toBe(before);
    // SET (which the client cannot send with a FORMAT) goes as the service's request would: with its settings.
    const settings = Object.fromEntries(Object.entries(settingsFor({ timeoutMs, rowLimit: 10 })).map(([k, v]) => [k, String(v)]));
    for (const set of ["SET max_execution_time = 0", "SET readonly = 0"]) {
      const refused = await sendClickhouse(set, { account: "reader", settings });
      expect(refused.status).toBe(500);
      expect(refused.text).toMatch(/Code: 164\..*readonly mode/);
    }
    expect(await clickhouseRows(`SELECT name FROM system.tables WHERE database = '${D}' AND name = 'intruder'`)).toEqual([]);
  });

  it("the refusal is the engine's, by the service's readonly=1: the same account writes without it (the control)", async () => {
    const insert = `INSERT INTO ${D}.scratch VALUES (1)`;
    expect((await sendClickhouse(insert, { account: "reader", settings: { readonly: "1" } })).status).not.toBe(200);
    expect(await clickhouseRows(`SELECT count() AS n FROM ${D}.scratch`)).toEqual([{ n: 0 }]);
    expect((await sendClickhouse(insert, { account: "reader" })).status).toBe(200);
    expect(await clickhouseRows(`SELECT count() AS n FROM ${D}.scratch`)).toEqual([{ n: 1 }]);
  });
});

describe.skipIf(!clickhouseAvailable)("clickhouse data source: limits", () => {
  it("stops a panel of sleep(3) repeated past the time limit with a message", async () => {
    const started = Date.now();
    const { results } = await run([{ sql: "SELECT sum(sleep(3)) AS s FROM numbers(100000000)" }, { sql: "SELECT 42 AS value" }], {
      timeoutMs: 2000,
      rowLimit: 100,
    });
    expect(Date.now() - started).toBeLessThan(2000 + 2000);
    expect(results.get("p0")).toEqual({ status: "failed", message: "The query took longer than 2 s and was stopped." });
    expect(results.get("p1")).toEqual({ status: "ok", rows: [{ value: 42 }], truncated: false });
  });

  it("stops a slow panel at QUERY_TIMEOUT_MS on the page; the rest of the dashboard renders", async () => {
    const viewer = await customer();
    await expectSlowPanelStopped(ctx.schema, viewer.token, "SELECT sum(sleep(3)) AS value FROM numbers(100000000)", timeoutMs, 2000);
  });

  it("cuts a panel at the row limit, in the panel's order, also under a LIMIT of its own", async () => {
    const { results } = await run(
      [
        { sql: "SELECT number AS n FROM numbers(20000) ORDER BY n DESC" },
        { sql: "SELECT number AS n FROM numbers(20000) ORDER BY n LIMIT 3 -- a trailing comment" },
        { sql: "SELECT count() AS c FROM numbers(20000)" },
      ],
      { timeoutMs, rowLimit: 10_000 },
    );
    const cut = results.get("p0") as Extract<PanelResult, { status: "ok" }>;
    expect(cut.rows).toHaveLength(10_000);
    expect(cut.truncated).toBe(true);
    expect(cut.rows[0]).toEqual({ n: 19_999 });
    expect(cut.rows[9_999]).toEqual({ n: 10_000 });
    expect(results.get("p1")).toEqual({ status: "ok", rows: [{ n: 0 }, { n: 1 }, { n: 2 }], truncated: false });
    expect(results.get("p2")).toEqual({ status: "ok", rows: [{ c: 20_000 }], truncated: false });
  });
});

describe.skipIf(!clickhouseAvailable)("clickhouse data source: types", () => {
  const expected = {
    big: 42,
    huge: "9007199254740993",
    top: "18446744073709551615",
    precise: "1234567890123456789012345678901234567.5",
    n: 12.5,
    d: "2026-03-01",
    // 03:30 in Berlin on the day summer time starts is 01:30 UTC; 07:34:56.789 in New York in March is 12:34:56.789 UTC.
    dt: "2026-03-29T01:30:00.000Z",
    dt64: "2026-03-01T12:34:56.789Z",
    flag: true,
    f: 0.1,
    nothing: null,
  };

  it("maps Int64/UInt64 and Decimal to numbers where exact (else strings), DateTime/DateTime64 to UTC instants, Bool to booleans", async () => {
    const { results } = await run([{ sql: "SELECT * FROM kinds" }, { sql: "SELECT * FROM kinds WHERE big = {p1:Int64}", params: [42] }]);
    expect(results.get("p0")).toEqual({ status: "ok", truncated: false, rows: [expected] });
    expect(results.get("p1")).toEqual({ status: "ok", truncated: false, rows: [expected] });
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
          sql: "SELECT big, top, precise, d, dt, flag FROM kinds",
          layout: { x: 0, y: 0, w: 12, h: 4 },
        },
      ],
    });
    const res = await call("GET", `/embed/${embedId}/panels/kinds.csv?customer_token=${viewer.token}`);
    expect(res.status).toBe(200);
    expect(res.body).toBe(
      "big,top,precise,d,dt,flag\r\n42,18446744073709551615,1234567890123456789012345678901234567.5,2026-03-01,2026-03-29T01:30:00.000Z,true\r\n",
    );
  });

  it("prepares panels without reading rows (DESCRIBE): their columns, or the server's word on an unknown column", async () => {
    const trips = { kind: "clickhouse" as const, trips: 0, connections: 0 };
    const described = await describeClickhouse(
      { env: env as never, connection: ctx.stored },
      [
        {
          panelId: "ok",
          sql: "SELECT customer_id, sum(amount) AS total FROM orders WHERE region = {p1:String} GROUP BY customer_id",
          params: ["EU"],
        },
        { panelId: "bad", sql: "SELECT nope FROM orders", params: [] },
      ],
      { timeoutMs, rowLimit: 10 },
      trips,
    );
    expect(described.get("ok")).toEqual({ status: "ok", columns: ["customer_id", "total"] });
    expect(described.get("bad")).toMatchObject({ status: "failed", message: expect.stringContaining("nope") });
  });
});

describe.skipIf(!clickhouseAvailable)("clickhouse data source: a source that cannot answer", () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ["a stopped server", { url: "http://127.0.0.1:1" }, "could not be reached"],
    ["a wrong password", { password: "not-the-password" }, "refused the credentials of this data source"],
    ["an unknown database", { database: "ch_no_such_database" }, "The database of this data source does not exist"],
  ])(
    "%s: the panel says so within the time limit, the page is not a 500, and no credential is in the page or the logs",
    async (_case, change, says) => {
      const logged = consoleLines();
      const source = await createSource(`Down ${_case}`, change);
      const viewer = await customer(unique("ch-down"), source);
      const embedId = await dashboard({
        panels: [
          kpi("revenue", ctx.schema, "SELECT sum(amount) AS value FROM orders", 0),
          kpi("count", ctx.schema, "SELECT count() AS value FROM orders", 3),
        ],
      });
      const started = Date.now();
      const page = await embed(embedId, viewer.token);
      expect(Date.now() - started).toBeLessThan(timeoutMs);
      expect(page.status).toBe(200);
      expect(panelText(page.body, "revenue")).toContain(says);
      expect(panelText(page.body, "count")).toContain(says);
      expect(page.body).toContain('data-render-complete="true"');
      expect(logged.join("\n")).toContain("panel query failed");
      const listed = await admin("GET", "/admin/data_sources/");
      for (const secret of [clickhouseServer.password, "not-the-password", `${clickhouseServer.user}:`]) {
        expect(page.body).not.toContain(secret);
        expect(logged.join("\n")).not.toContain(secret);
        expect(JSON.stringify(listed.body)).not.toContain(secret);
      }
    },
  );
});

describe.skipIf(!clickhouseAvailable)("clickhouse data source: the stored password", () => {
  it("is sealed with a fresh nonce each time and opens only under DATA_SOURCE_KEY", async () => {
    const again = await connectionToStore(env as never, connection());
    if ("field" in again) throw new Error(again.message);
    expect(again.password).toMatch(/^v1\./);
    expect(again.password).not.toBe(ctx.stored.password);
    expect(again.password).not.toContain(clickhouseServer.password);
    // Under another key nothing opens: the panel says the source could not be reached.
    const otherKey = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));
    expect(otherKey).not.toBe(dataSourceKey);
    const trips = { kind: "clickhouse" as const, trips: 0, connections: 0 };
    const results = await runClickhouse(
      { env: { ...(env as object), DATA_SOURCE_KEY: otherKey } as never, connection: again },
      [{ panelId: "p", sql: "SELECT 1 AS a", params: [] }],
      { timeoutMs, rowLimit: 10 },
      trips,
    );
    expect(results.get("p")).toMatchObject({ status: "failed", message: expect.stringContaining("could not be reached") });
  });
});

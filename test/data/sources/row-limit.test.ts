import { beforeAll, describe, expect, it } from "vitest";
import { runD1 } from "../../../src/data/sources/d1";
import { runPostgres } from "../../../src/data/sources/postgres";
import { admin, bindings, call, createCustomer, dashboard, unique, workspace } from "../../helpers/dashboards";
import { warehouse } from "../../helpers/warehouse";

// A panel's query that would answer millions of rows reads no more than QUERY_ROW_LIMIT + 1
// of them (the extra one says the panel was cut): the limit is in the SQL the database runs,
// so memory stays bounded. The queries below count to five million and fail on the first row
// past `limit + 1` they compute, so any row read beyond it shows as a failed panel.

const MILLIONS = 5_000_000;
/** wrangler.toml's QUERY_ROW_LIMIT for the workers project. */
const QUERY_ROW_LIMIT = 10_000;

/** SQLite: abs() of the smallest integer raises "integer overflow", on that row only. */
const d1Query = (failAfter: number) =>
  `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${MILLIONS})
   SELECT CASE WHEN i > ${failAfter} THEN abs(-9223372036854775807 - 1) ELSE i END AS i FROM n`;
/**
 * PostgreSQL: a division by zero on that row only (not a constant, so not folded when planned);
 * the series in the select list, which PostgreSQL produces row by row (in FROM it would first
 * be gathered whole).
 */
const pgQuery = (failAfter: number) =>
  `SELECT CASE WHEN i > ${failAfter} THEN i / (i - i) ELSE i END AS i FROM (SELECT generate_series(1, ${MILLIONS}) AS i) AS s`;

const d1Trips = () => ({ kind: "d1" as const, trips: 0, connections: 0 });
const pgTrips = () => ({ kind: "postgres" as const, trips: 0, connections: 0 });

describe("a panel reads no more than QUERY_ROW_LIMIT + 1 rows", () => {
  it("on D1: a query of millions of rows stops after limit + 1 (the next row would fail it)", async () => {
    const started = performance.now();
    const results = await runD1(
      bindings.DEMO_DATA,
      [{ panelId: "p", sql: d1Query(101), params: [] }],
      { timeoutMs: 10_000, rowLimit: 100 },
      d1Trips(),
    );
    const result = results.get("p");
    expect(result).toMatchObject({ status: "ok", truncated: true });
    expect(result?.status === "ok" && result.rows.map((r) => r.i)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("on D1: the probe has teeth: a row beyond limit + 1, when read, fails the panel (control)", async () => {
    const results = await runD1(
      bindings.DEMO_DATA,
      [{ panelId: "p", sql: d1Query(100), params: [] }],
      { timeoutMs: 10_000, rowLimit: 100 },
      d1Trips(),
    );
    expect(results.get("p")).toEqual({ status: "failed" });
  });

  it("on D1: a result within the limit is whole and in its order, not marked cut (control)", async () => {
    const sql = "SELECT column1 AS v FROM (VALUES (3), (1), (2)) ORDER BY v DESC -- trailing comment";
    const results = await runD1(bindings.DEMO_DATA, [{ panelId: "p", sql, params: [] }], { timeoutMs: 10_000, rowLimit: 3 }, d1Trips());
    expect(results.get("p")).toEqual({ status: "ok", rows: [{ v: 3 }, { v: 2 }, { v: 1 }], truncated: false });
  });

  it("on PostgreSQL: the same query stops after limit + 1; a row beyond it would fail the panel (control)", async () => {
    const cut = await runPostgres(
      warehouse,
      [{ panelId: "p", sql: pgQuery(101), params: [] }],
      { timeoutMs: 10_000, rowLimit: 100 },
      pgTrips(),
    );
    expect(cut.get("p")).toMatchObject({ status: "ok", truncated: true });
    const read = await runPostgres(
      warehouse,
      [{ panelId: "p", sql: pgQuery(100), params: [] }],
      { timeoutMs: 10_000, rowLimit: 100 },
      pgTrips(),
    );
    expect(read.get("p")).toMatchObject({ status: "failed" });
  });

  describe("through the API (a panel's CSV on D1, QUERY_ROW_LIMIT = 10000)", () => {
    let embedId: string;
    let token: string;

    beforeAll(async () => {
      const { write } = await workspace();
      const schema = (await admin("POST", "/admin/schemas/", { name: unique("rows") })).body.schema.id as number;
      const demo = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" })).body.data_source.id as number;
      const table = (id: string, sql: string, x: number) => ({
        id,
        type: "table",
        title: id,
        schema_id: schema,
        sql,
        layout: { x, y: 0, w: 6, h: 4 },
      });
      embedId = await dashboard({
        panels: [table("millions", d1Query(QUERY_ROW_LIMIT + 1), 0), table("few", "SELECT 1 AS i UNION ALL SELECT 2", 6)],
      });
      token = (await createCustomer(write, { provided_id: unique("rows"), mapping: { [schema]: demo } })).token;
    });

    it("answers the first QUERY_ROW_LIMIT rows of a query of millions, having read one more", async () => {
      const started = performance.now();
      const csv = await call("GET", `/embed/${embedId}/panels/millions.csv?customer_token=${token}`);
      expect(csv.status).toBe(200);
      const lines = (csv.body as string).trim().split("\r\n");
      expect(lines).toHaveLength(QUERY_ROW_LIMIT + 1); // the header and the rows
      expect(lines.at(-1)).toBe(String(QUERY_ROW_LIMIT));
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it("answers every row of a small result (control)", async () => {
      const csv = await call("GET", `/embed/${embedId}/panels/few.csv?customer_token=${token}`);
      expect(csv.body).toBe("i\r\n1\r\n2\r\n");
    });
  });
});

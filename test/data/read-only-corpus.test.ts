import { beforeAll, describe, expect, it } from "vitest";
import { runPostgres } from "../../src/data/sources/postgres";
import { admin, bindings, call, createCustomer, dashboard, kpi, panelText, unique, workspace } from "../helpers/dashboards";
import { fetchDownload, waitForJob } from "../helpers/delivery";
import { forTable, READ_ONLY_CORPUS, VALID_READS } from "../helpers/sql-corpus";
import { onWarehouse, warehouse } from "../helpers/warehouse";

// Every statement of the read-only corpus (docs/postgres.md "Safety in three layers" and the bypasses found while
// writing the lexer) against the real local D1 and the real PostgreSQL behind WAREHOUSE:
// refused when saved (422 query_not_read_only on its field), and — stored behind the API's
// back, as a version saved before this check existed would be — never changing a row when
// the dashboard is rendered, exported as CSV or delivered. A valid SELECT is the control
// every time.

const PG_SCHEMA = "read_only_corpus";
const D1_TABLE = "corpus_t";
const PG_TABLE = `${PG_SCHEMA}.t`;
const ROWS = 5;

let ctx: { write: string; read: string; d1Schema: number; pgSchema: number; customer: { provided_id: string; token: string } };

beforeAll(async () => {
  await onWarehouse(`
    DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE;
    CREATE SCHEMA ${PG_SCHEMA};
    CREATE TABLE ${PG_TABLE} (id integer PRIMARY KEY);
    INSERT INTO ${PG_TABLE} SELECT generate_series(1, ${ROWS});
    CREATE SEQUENCE IF NOT EXISTS corpus_seq;
    DROP TABLE IF EXISTS created_by_panel, corpus_copy;`);
  await bindings.DEMO_DATA.batch([
    bindings.DEMO_DATA.prepare(`DROP TABLE IF EXISTS ${D1_TABLE}`),
    bindings.DEMO_DATA.prepare(`CREATE TABLE ${D1_TABLE} (id INTEGER PRIMARY KEY)`),
    bindings.DEMO_DATA.prepare(`INSERT INTO ${D1_TABLE} (id) VALUES (1), (2), (3), (4), (5)`),
  ]);
  const { write, read } = await workspace();
  const d1Schema = (await admin("POST", "/admin/schemas/", { name: unique("corpus-d1") })).body.schema.id as number;
  const pgSchema = (await admin("POST", "/admin/schemas/", { name: unique("corpus-pg") })).body.schema.id as number;
  const d1 = (await admin("POST", "/admin/data_sources/", { name: "Corpus D1", binding: "DEMO_DATA" })).body.data_source.id as number;
  const pg = (await admin("POST", "/admin/data_sources/", { name: "Corpus PostgreSQL", binding: "WAREHOUSE", kind: "postgres" })).body
    .data_source.id as number;
  const customer = await createCustomer(write, { provided_id: unique("corpus"), mapping: { [d1Schema]: d1, [pgSchema]: pg } });
  ctx = { write, read, d1Schema, pgSchema, customer };
});

/** Row counts and everything else a write could have changed, on both databases. */
async function state() {
  const d1 = await bindings.DEMO_DATA.prepare(
    `SELECT (SELECT COUNT(*) FROM ${D1_TABLE}) AS n, (SELECT COUNT(*) FROM sqlite_master WHERE name IN ('created_by_panel', 'corpus_copy')) AS created`,
  ).first<{ n: number; created: number }>();
  const [pg] = await onWarehouse<{ n: string; created: string; seq: string; called: boolean }>(
    `SELECT (SELECT count(*) FROM ${PG_TABLE}) AS n,
            (SELECT count(*) FROM pg_class WHERE relname IN ('created_by_panel', 'corpus_copy')) AS created,
            (SELECT last_value FROM corpus_seq) AS seq, (SELECT is_called FROM corpus_seq) AS called`,
  );
  return {
    d1: { rows: d1!.n, created: d1!.created },
    pg: { rows: Number(pg.n), created: Number(pg.created), seq: pg.seq, called: pg.called },
  };
}

const unchanged = { d1: { rows: ROWS, created: 0 }, pg: { rows: ROWS, created: 0, seq: "1", called: false } };

const databases = [
  { name: "D1", table: D1_TABLE, schema: () => ctx.d1Schema },
  { name: "PostgreSQL", table: PG_TABLE, schema: () => ctx.pgSchema },
] as const;

const control = (schema: number, table: string, id = "control") => kpi(id, schema, `SELECT count(*) AS value FROM ${table}`);

describe(`the read-only corpus (${READ_ONLY_CORPUS.length} statements) is refused on save`, () => {
  for (const db of databases) {
    it(`on ${db.name}: every statement as panel SQL (definition.panels.<i>.sql) and blueprint query (tables.<i>.query); the valid SELECTs are saved`, async () => {
      const embedId = await dashboard({ panels: [control(db.schema(), db.table)] });
      for (const entry of READ_ONLY_CORPUS) {
        const sql = forTable(entry.sql, db.table);
        const saved = await admin("POST", "/admin/dashboard_versions/", {
          embed_id: embedId,
          definition: { panels: [control(db.schema(), db.table), kpi("bad", db.schema(), sql, 3)] },
        });
        expect({ entry: entry.name, status: saved.status, code: saved.body.error?.code, field: saved.body.error?.field }).toEqual({
          entry: entry.name,
          status: 422,
          code: "query_not_read_only",
          field: "definition.panels.1.sql",
        });
        const table = (query: string) => ({ table_name: "t", schema_id: db.schema(), query, columns: [{ name: "id", type: "INTEGER" }] });
        const blueprint = await call("POST", "/api/create_blueprint/", {
          token: ctx.write,
          body: {
            customer_id: ctx.customer.provided_id,
            blueprint_name: "Corpus",
            tables: [table(`SELECT id FROM ${db.table}`), table(sql)],
          },
        });
        expect({
          entry: entry.name,
          status: blueprint.status,
          code: blueprint.body.error?.code,
          field: blueprint.body.error?.field,
        }).toEqual({
          entry: entry.name,
          status: 422,
          code: "query_not_read_only",
          field: "tables.1.query",
        });
      }
      // The controls: valid reads are saved, as panels and as blueprint queries.
      const valid = VALID_READS.map((sql, i) => kpi(`valid${i}`, db.schema(), forTable(sql, db.table), (i % 4) * 3, Math.floor(i / 4) * 2));
      const saved = await admin("POST", "/admin/dashboard_versions/", {
        embed_id: embedId,
        definition: { variables: [{ name: "min", default: 0 }], panels: valid },
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      const blueprint = await call("POST", "/api/create_blueprint/", {
        token: ctx.write,
        body: {
          customer_id: ctx.customer.provided_id,
          blueprint_name: "Valid",
          tables: VALID_READS.map((sql, i) => ({
            table_name: `t${i}`,
            schema_id: db.schema(),
            query: forTable(sql, db.table),
            columns: [{ name: "value", type: "INTEGER" }],
          })),
        },
      });
      expect(blueprint.status, JSON.stringify(blueprint.body)).toBe(200);
      expect(await state()).toEqual(unchanged);
    });
  }
});

describe("stored behind the API's back, the corpus changes no row when rendered, exported or delivered", () => {
  let embedId: string;
  const panelIds: string[] = [];

  beforeAll(async () => {
    // Every statement on both databases, plus a control panel on each; stored directly, as a
    // version saved before the read-only check existed would be.
    const panels = [control(ctx.d1Schema, D1_TABLE, "control_d1"), control(ctx.pgSchema, PG_TABLE, "control_pg")];
    READ_ONLY_CORPUS.forEach((entry, i) => {
      for (const db of databases) {
        const id = `c${i}_${db.name === "D1" ? "d1" : "pg"}`;
        panelIds.push(id);
        panels.push(kpi(id, db.schema(), forTable(entry.sql, db.table), (panels.length % 4) * 3, Math.floor(panels.length / 4) * 2));
      }
    });
    embedId = await dashboard({ panels: [control(ctx.d1Schema, D1_TABLE, "control_d1")] });
    await bindings.DB.prepare(
      "INSERT INTO dashboard_versions (dashboard_id, version_number, definition) SELECT id, 99, ? FROM dashboards WHERE embed_id = ?",
    )
      .bind(JSON.stringify({ variables: [], panels }), embedId)
      .run();
  });

  it("renders the page: every corpus panel refused, the control panels show the row count", async () => {
    const page = await call("GET", `/embed/${embedId}?customer_token=${ctx.customer.token}`);
    expect(page.status).toBe(200);
    expect(panelText(page.body, "control_d1")).toBe(`control_d1 ${ROWS}`);
    expect(panelText(page.body, "control_pg")).toBe(`control_pg ${ROWS}`);
    for (const id of panelIds) expect(panelText(page.body, id), id).toContain("query was not run");
    expect(await state()).toEqual(unchanged);
  });

  it("exports each panel as CSV: every corpus panel refused (422), the controls answer their rows", async () => {
    for (const id of ["control_d1", "control_pg"]) {
      const csv = await call("GET", `/embed/${embedId}/panels/${id}.csv?customer_token=${ctx.customer.token}`);
      expect(csv.status).toBe(200);
      expect(csv.body).toBe(`value\r\n${ROWS}\r\n`);
    }
    for (const id of panelIds) {
      const csv = await call("GET", `/embed/${embedId}/panels/${id}.csv?customer_token=${ctx.customer.token}`);
      expect({ id, status: csv.status, code: csv.body?.error?.code }).toEqual({ id, status: 422, code: "panel_data_unavailable" });
    }
    expect(await state()).toEqual(unchanged);
  });

  it("delivers it (a screenshot job): done with the controls' data, no row changed", async () => {
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: embedId },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const job = await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed", 90_000);
    expect(job.status, job.error).toBe("done");
    expect((await fetchDownload(res.body.url)).status).toBe(200);
    expect(await state()).toEqual(unchanged);
  }, 120_000);
});

describe("PostgreSQL refuses a second statement itself (extended protocol), whatever reaches it", () => {
  it("runs the wrapper-escaping statement as one statement: refused, nothing changed; a SELECT still runs", async () => {
    const wrapperEscape = READ_ONLY_CORPUS.find((e) => e.name.startsWith("COMMIT out of"))!;
    const trips = { kind: "postgres" as const, trips: 0, connections: 0 };
    const results = await runPostgres(
      warehouse,
      [
        { panelId: "escape", sql: forTable(wrapperEscape.sql, PG_TABLE), params: [] },
        { panelId: "two", sql: `SELECT 1 AS value; DELETE FROM ${PG_TABLE}`, params: [] },
        { panelId: "control", sql: `SELECT count(*) AS value FROM ${PG_TABLE}`, params: [] },
      ],
      { timeoutMs: 10_000, rowLimit: 100 },
      trips,
    );
    // The server itself sees several statements in one message and runs none of them.
    expect(results.get("escape")).toMatchObject({
      status: "failed",
      message: expect.stringContaining("cannot insert multiple commands into a prepared statement"),
    });
    expect(results.get("two")).toMatchObject({ status: "failed" });
    expect(results.get("control")).toEqual({ status: "ok", rows: [{ value: ROWS }], truncated: false });
    expect(await state()).toEqual(unchanged);
  });
});

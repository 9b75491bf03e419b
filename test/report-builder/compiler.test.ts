import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredTable } from "../../src/blueprints/schemas";
import { compileReportQuery } from "../../src/report-builder/compiler";
import type { ReportFilter } from "../../src/data/filters";
import { ReportQuery } from "../../src/report-builder/query";
import { runReport } from "../../src/report-builder/run";
import { connectionToStore, type StoredConnection } from "../../src/data/sources/clickhouse-connection";
import { clickhouseAvailable, clickhouseRows, clickhouseServer, onClickhouse, sendClickhouse } from "../helpers/clickhouse-warehouse";
import { mysqlAvailable, onMysql } from "../helpers/mysql-warehouse";
import { onWarehouse } from "../helpers/warehouse";

// The compiler, run for real: the same known rows in a real local D1 (OTHER_DATA), in the
// real local PostgreSQL behind WAREHOUSE, in the test run's MySQL-protocol server behind
// WAREHOUSE_MYSQL and in the test run's ClickHouse (over HTTP, as a `clickhouse` data source);
// every query must answer what is written here, and the four databases must answer exactly the same.

const d1 = (env as unknown as { OTHER_DATA: D1Database }).OTHER_DATA;
// PostgreSQL is shared by every test file (and checkout): a table of our own.
const PG_SCHEMA = `report_compiler_${crypto.randomUUID().slice(0, 8)}`;
const TABLE = "report rows";
// MySQL: a database of our own (the read-only account reads `warehouse%` databases).
const MY_DB = `warehouse_report_compiler_${crypto.randomUUID().slice(0, 8)}`;
// ClickHouse: a database of our own, the data source's `database`.
const CH_DB = `report_compiler_${crypto.randomUUID().slice(0, 8)}`;

// id, customer, product, amount, units, paid, day, at
const ROWS: [number, string, string | null, number | null, number | null, boolean | null, string, string | null][] = [
  [1, "acme", "Seats", 100.5, 2, true, "2025-12-29", "2025-12-31T23:30:00.000Z"], // year boundary; its week starts 2025-12-29
  [2, "acme", "seats", 20.25, 1, false, "2026-01-01", "2026-01-01T00:30:00.000Z"], // same ISO week as row 1
  [3, "acme", "Support", 300, 5, true, "2026-03-29", "2026-03-29T01:30:00.000Z"], // Sunday: clocks in Europe go forward at 01:00 UTC
  [4, "acme", null, 40, 3, null, "2026-03-30", "2026-03-30T00:15:00.000Z"],
  [5, "acme", 'O\'Brien "quoted" -- x', null, 7, false, "2026-10-25", "2026-10-25T00:59:59.000Z"], // clocks go back at 01:00 UTC
  [6, "acme", "Übergröße", 5.75, null, true, "2026-11-02", null],
  [7, "globex", "Seats", 999, 100, true, "2026-01-15", "2026-01-15T12:00:00.000Z"], // another customer's row
];

const table: StoredTable = {
  table_name: TABLE,
  schema_id: 1,
  // The placeholder is bound: each customer sees its own rows.
  query: `SELECT * FROM "${TABLE}" WHERE customer = {{customer.provided_id}}`,
  dataset_name: "orders",
  description: null,
  columns: [
    { name: "id", type: "INTEGER", display_name: "Id", can_be_grouped: true },
    { name: "product", type: "STRING", display_name: "Product", can_be_grouped: true },
    { name: "amount", type: "FLOAT", display_name: "Amount", can_be_grouped: false },
    { name: "units", type: "INTEGER", display_name: "Units", can_be_grouped: true },
    { name: "paid", type: "BOOLEAN", display_name: "Paid", can_be_grouped: true },
    { name: "day", type: "DATE", display_name: "Day", can_be_grouped: true },
    { name: "at", type: "DATETIME", display_name: "Placed at", can_be_grouped: true },
  ],
};

type Db = "d1" | "postgres" | "mysql" | "clickhouse";
const sources: { id: number; binding: string; kind: Db; connection?: StoredConnection }[] = [
  { id: 1, binding: "OTHER_DATA", kind: "d1" as const },
  { id: 2, binding: "WAREHOUSE", kind: "postgres" as const },
  { id: 3, binding: "WAREHOUSE_MYSQL", kind: "mysql" as const },
];
const databases: readonly Db[] = [
  "d1",
  "postgres",
  ...(mysqlAvailable ? (["mysql"] as const) : []),
  ...(clickhouseAvailable ? (["clickhouse"] as const) : []),
];
const context = (customer = "acme") => ({ customer: { provided_id: customer, name: customer, properties: {} }, variables: {} });

beforeAll(async () => {
  await d1.prepare(`DROP TABLE IF EXISTS "${TABLE}"`).run();
  await d1
    .prepare(
      `CREATE TABLE "${TABLE}" (id INTEGER, customer TEXT, product TEXT, amount REAL, units INTEGER, paid INTEGER, day TEXT, at TEXT)`,
    )
    .run();
  await d1.batch(
    ROWS.map((r) =>
      d1
        .prepare(`INSERT INTO "${TABLE}" VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
        .bind(...r.map((v) => (typeof v === "boolean" ? (v ? 1 : 0) : v))),
    ),
  );
  await onWarehouse(`CREATE SCHEMA ${PG_SCHEMA}`);
  await onWarehouse(
    `CREATE TABLE ${PG_SCHEMA}."${TABLE}" (id integer, customer text, product text, amount double precision, units integer, paid boolean, day date, at timestamptz)`,
  );
  for (const row of ROWS) await onWarehouse(`INSERT INTO ${PG_SCHEMA}."${TABLE}" VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, row);
  if (clickhouseAvailable) await clickhouseRowsLoaded();
  if (!mysqlAvailable) return;
  // MySQL as a vendor's would be: the server's default (case-insensitive) collation, BOOLEAN as TINYINT(1), DATETIME in UTC.
  await onMysql(
    `CREATE DATABASE ${MY_DB} CHARACTER SET utf8mb4;
     CREATE TABLE ${MY_DB}.\`${TABLE}\` (id int, customer varchar(20), product varchar(100), amount double, units int, paid boolean, day date, at datetime(3))`,
  );
  for (const row of ROWS) {
    const values = row.map((v, i) => (i === 7 && typeof v === "string" ? v.replace("T", " ").replace("Z", "") : v));
    await onMysql(`INSERT INTO ${MY_DB}.\`${TABLE}\` VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, values);
  }
});

/** ClickHouse as a vendor's would be: Bool, Nullable columns, a DateTime64 in UTC; the data source reads CH_DB. */
async function clickhouseRowsLoaded() {
  await onClickhouse(
    `CREATE DATABASE ${CH_DB}`,
    `CREATE TABLE ${CH_DB}.\`${TABLE}\` (id Int32, customer String, product Nullable(String), amount Nullable(Float64), units Nullable(Int32), paid Nullable(Bool), day Date, at Nullable(DateTime64(3, 'UTC'))) ENGINE = MergeTree ORDER BY id`,
  );
  const names = ["id", "customer", "product", "amount", "units", "paid", "day", "at"];
  const lines = ROWS.map((row) =>
    JSON.stringify(
      Object.fromEntries(row.map((v, i) => [names[i], i === 7 && typeof v === "string" ? v.replace("T", " ").replace("Z", "") : v])),
    ),
  );
  const inserted = await sendClickhouse(`INSERT INTO ${CH_DB}.\`${TABLE}\` FORMAT JSONEachRow\n${lines.join("\n")}`);
  if (inserted.status !== 200) throw new Error(inserted.text);
  const connection = await connectionToStore(env as never, {
    url: clickhouseServer.url,
    user: clickhouseServer.user,
    password: clickhouseServer.password,
    database: CH_DB,
  });
  if ("field" in connection) throw new Error(connection.message);
  sources.push({ id: 4, binding: "", kind: "clickhouse", connection });
}

afterAll(async () => {
  await onWarehouse(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
  if (clickhouseAvailable) await onClickhouse(`DROP DATABASE IF EXISTS ${CH_DB}`);
  if (mysqlAvailable) await onMysql(`DROP DATABASE IF EXISTS ${MY_DB}`);
});

/** The dataset's query as each database spells it: the table in the test's own schema (database), MySQL's names in backticks. */
function queryOn(db: Db, query: string): string {
  // ClickHouse reads "…" as a name, and its data source's database holds the table.
  if (db === "d1" || db === "clickhouse") return query;
  if (db === "postgres") return query.replace(`"${TABLE}"`, `${PG_SCHEMA}."${TABLE}"`);
  const backticks = query.replace(/"((?:[^"]|"")*)"/g, (_, name: string) => `\`${name.replaceAll('""', '"').replaceAll("`", "``")}\``);
  return backticks.replace(`\`${TABLE}\``, `${MY_DB}.\`${TABLE}\``);
}

/** The query on one database, as the builder runs it. */
function runOn(db: Db, body: unknown, options: { locked?: ReportFilter[]; customer?: string; dataset?: StoredTable } = {}) {
  const dataset = options.dataset ?? table;
  const query = ReportQuery.parse(body);
  return runReport({
    env,
    table: { ...dataset, query: queryOn(db, dataset.query) },
    query,
    locked: options.locked ?? [],
    context: context(options.customer),
    mapping: { "1": String(sources.find((s) => s.kind === db)?.id) },
    sources,
  });
}

/** Runs on every database; they must agree, and the agreed answer is returned. */
async function both(body: unknown, options: Parameters<typeof runOn>[2] = {}) {
  const [onD1, ...others] = await Promise.all(databases.map((db) => runOn(db, body, options)));
  for (const [i, answer] of others.entries()) expect(answer, databases[i + 1]).toEqual(onD1);
  return onD1;
}

const ids = async (filter: unknown) =>
  (await both({ dataset: "orders", columns: ["id"], filters: [filter], sort: [{ column: "id" }] })).rows.map((r) => r.id);

describe("the report compiler on real D1, PostgreSQL, MySQL and ClickHouse: the same rows give the same answers", () => {
  it("computes every aggregate alike (count, count_distinct, sum, avg, min, max on numbers, text, dates)", async () => {
    const result = await both({
      dataset: "orders",
      values: [
        { aggregate: "count" },
        { aggregate: "count_distinct", column: "product" },
        { aggregate: "count_distinct", column: "paid" },
        { aggregate: "sum", column: "amount" },
        { aggregate: "sum", column: "units" },
        { aggregate: "avg", column: "units" },
        { aggregate: "min", column: "amount" },
        { aggregate: "max", column: "units" },
        { aggregate: "min", column: "product" },
        { aggregate: "max", column: "product" },
        { aggregate: "min", column: "day" },
        { aggregate: "max", column: "at" },
      ],
    });
    expect(result.rows).toEqual([
      {
        count: 6,
        count_distinct_product: 5,
        count_distinct_paid: 2,
        sum_amount: 466.5,
        sum_units: 18,
        avg_units: 3.6,
        min_amount: 5.75,
        max_units: 7,
        // Byte order on both (PostgreSQL's locale would put 'seats' before 'Support').
        min_product: 'O\'Brien "quoted" -- x',
        max_product: "Übergröße",
        min_day: "2025-12-29",
        max_at: "2026-10-25T00:59:59.000Z",
      },
    ]);
    expect(result.columns.map((c) => [c.name, c.display_name, c.type])).toEqual([
      ["count", "Count", "INTEGER"],
      ["count_distinct_product", "Distinct Product", "INTEGER"],
      ["count_distinct_paid", "Distinct Paid", "INTEGER"],
      ["sum_amount", "Sum of Amount", "FLOAT"],
      ["sum_units", "Sum of Units", "INTEGER"],
      ["avg_units", "Average of Units", "FLOAT"],
      ["min_amount", "Min of Amount", "FLOAT"],
      ["max_units", "Max of Units", "INTEGER"],
      ["min_product", "Min of Product", "STRING"],
      ["max_product", "Max of Product", "STRING"],
      ["min_day", "Min of Day", "DATE"],
      ["max_at", "Max of Placed at", "DATETIME"],
    ]);
    expect(result).toMatchObject({ row_count: 1, truncated: false });
  });

  it("buckets a DATETIME by day, week (Monday), month, quarter and year across the year boundary and both DST changes", async () => {
    const bucket = async (b: string, column = "at") =>
      (await both({ dataset: "orders", group_by: [{ column, bucket: b }], values: [{ aggregate: "count" }] })).rows.map((r) => [
        r[`${column}_${b}`],
        r.count,
      ]);
    expect(await bucket("day")).toEqual([
      [null, 1],
      ["2025-12-31", 1],
      ["2026-01-01", 1],
      ["2026-03-29", 1],
      ["2026-03-30", 1],
      ["2026-10-25", 1],
    ]);
    expect(await bucket("week")).toEqual([
      [null, 1],
      ["2025-12-29", 2],
      ["2026-03-23", 1],
      ["2026-03-30", 1],
      ["2026-10-19", 1],
    ]);
    expect(await bucket("month")).toEqual([
      [null, 1],
      ["2025-12", 1],
      ["2026-01", 1],
      ["2026-03", 2],
      ["2026-10", 1],
    ]);
    expect(await bucket("quarter")).toEqual([
      [null, 1],
      ["2025-Q4", 1],
      ["2026-Q1", 3],
      ["2026-Q4", 1],
    ]);
    expect(await bucket("year")).toEqual([
      [null, 1],
      ["2025", 1],
      ["2026", 4],
    ]);
    // A DATE column too (a Monday is its own week's start).
    expect(await bucket("week", "day")).toEqual([
      ["2025-12-29", 2],
      ["2026-03-23", 1],
      ["2026-03-30", 1],
      ["2026-10-19", 1],
      ["2026-11-02", 1],
    ]);
    const named = await both({
      dataset: "orders",
      group_by: [{ column: "day", bucket: "month" }],
      values: [{ aggregate: "sum", column: "amount" }],
    });
    expect(named.columns[0]).toEqual({ name: "day_month", display_name: "Day (month)", type: "STRING" });
  });

  it("applies every filter op with values typed by the column", async () => {
    expect(await ids({ column: "product", op: "eq", value: "Seats" })).toEqual([1]);
    expect(await ids({ column: "product", op: "neq", value: "Seats" })).toEqual([2, 3, 5, 6]);
    expect(await ids({ column: "amount", op: "gt", value: 40 })).toEqual([1, 3]);
    expect(await ids({ column: "amount", op: "gte", value: 40 })).toEqual([1, 3, 4]);
    expect(await ids({ column: "units", op: "lt", value: 3 })).toEqual([1, 2]);
    expect(await ids({ column: "units", op: "lte", value: 3 })).toEqual([1, 2, 4]);
    expect(await ids({ column: "product", op: "in", values: ["Seats", "Support"] })).toEqual([1, 3]);
    expect(await ids({ column: "product", op: "not_in", values: ["Seats"] })).toEqual([2, 3, 5, 6]);
    expect(await ids({ column: "day", op: "between", values: ["2026-01-01", "2026-03-29"] })).toEqual([2, 3]);
    expect(await ids({ column: "product", op: "contains", value: "EAT" })).toEqual([1, 2]);
    expect(await ids({ column: "product", op: "starts_with", value: "su" })).toEqual([3]);
    expect(await ids({ column: "product", op: "starts_with", value: "o'b" })).toEqual([5]);
    // % and _ are letters here, not wildcards.
    expect(await ids({ column: "product", op: "contains", value: "%" })).toEqual([]);
    expect(await ids({ column: "product", op: "contains", value: "_" })).toEqual([]);
    expect(await ids({ column: "amount", op: "is_null" })).toEqual([5]);
    expect(await ids({ column: "at", op: "is_not_null" })).toEqual([1, 2, 3, 4, 5]);
    expect(await ids({ column: "paid", op: "eq", value: true })).toEqual([1, 3, 6]);
    expect(await ids({ column: "paid", op: "neq", value: true })).toEqual([2, 5]);
    expect(await ids({ column: "units", op: "eq", value: 7 })).toEqual([5]);
    expect(await ids({ column: "day", op: "eq", value: "2026-03-30" })).toEqual([4]);
    // Date-times in any ISO spelling mean the same instant.
    expect(await ids({ column: "at", op: "eq", value: "2026-03-29T01:30:00Z" })).toEqual([3]);
    expect(await ids({ column: "at", op: "gte", value: "2026-03-29T03:30:00+02:00" })).toEqual([3, 4, 5]);
    expect(await ids({ column: "at", op: "between", values: ["2026-01-01", "2026-03-29T23:59:59Z"] })).toEqual([2, 3]);
    // `in` with 100 values, of text and of date-times.
    const filler = (i: number) => `2020-01-01T00:${String(Math.floor(i / 60)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z`;
    expect(
      await ids({ column: "product", op: "in", values: ["Seats", "Support", ...Array.from({ length: 98 }, (_, i) => `x${i}`)] }),
    ).toEqual([1, 3]);
    expect(
      await ids({ column: "at", op: "in", values: ["2026-03-29T01:30:00Z", ...Array.from({ length: 99 }, (_, i) => filler(i))] }),
    ).toEqual([3]);
    expect(await ids({ column: "units", op: "not_in", values: Array.from({ length: 100 }, (_, i) => i + 3) })).toEqual([1, 2]);
  });

  it("sorts NULLs first ascending and last descending, cuts at the limit and says truncated", async () => {
    const top = await both({
      dataset: "orders",
      group_by: [{ column: "product" }],
      values: [{ aggregate: "sum", column: "amount" }],
      sort: [{ column: "sum_amount", direction: "desc" }],
      limit: 2,
    });
    expect(top.rows).toEqual([
      { product: "Support", sum_amount: 300 },
      { product: "Seats", sum_amount: 100.5 },
    ]);
    expect(top).toMatchObject({ row_count: 2, truncated: true });
    const all = await both({
      dataset: "orders",
      group_by: [{ column: "product" }],
      values: [{ aggregate: "sum", column: "amount" }],
      sort: [{ column: "sum_amount", direction: "desc" }],
      limit: 6,
    });
    expect(all.rows.map((r) => r.sum_amount)).toEqual([300, 100.5, 40, 20.25, 5.75, null]);
    expect(all.truncated).toBe(false);
    // Default: group columns ascending, NULL first, byte order.
    const groups = await both({ dataset: "orders", group_by: [{ column: "product" }] });
    expect(groups.rows.map((r) => r.product)).toEqual([null, 'O\'Brien "quoted" -- x', "Seats", "Support", "seats", "Übergröße"]);
    const exact = await both({ dataset: "orders", columns: ["id"], sort: [{ column: "id" }], limit: 6 });
    expect(exact).toMatchObject({ row_count: 6, truncated: false });
  });

  it("lists records with their columns typed alike: booleans, DATE, DATETIME in UTC, NULLs", async () => {
    const records = await both({
      dataset: "orders",
      columns: ["id", "product", "amount", "units", "paid", "day", "at"],
      sort: [{ column: "id", direction: "asc" }],
    });
    expect(records.rows).toEqual(
      ROWS.filter((r) => r[1] === "acme").map(([id, , product, amount, units, paid, day, at]) => ({
        id,
        product,
        amount,
        units,
        paid,
        day,
        at,
      })),
    );
    expect(records.columns.map((c) => c.display_name)).toEqual(["Id", "Product", "Amount", "Units", "Paid", "Day", "Placed at"]);
  });

  it("binds {{customer.provided_id}} in the dataset's query: each customer sees only its rows", async () => {
    expect((await both({ dataset: "orders", values: [{ aggregate: "count" }] }, { customer: "globex" })).rows).toEqual([{ count: 1 }]);
    expect((await both({ dataset: "orders", values: [{ aggregate: "count" }] }, { customer: "nobody' OR '1'='1" })).rows).toEqual([
      { count: 0 },
    ]);
  });

  it("ANDs locked filters in: a query cannot widen them", async () => {
    const locked: ReportFilter[] = [{ column: "product", op: "eq", value: "Seats" }];
    expect((await both({ dataset: "orders", columns: ["id"], sort: [{ column: "id" }] }, { locked })).rows).toEqual([{ id: 1 }]);
    const widened = {
      dataset: "orders",
      columns: ["id"],
      filters: [{ column: "product", op: "in", values: ["Seats", "Support", "seats"] }],
      sort: [{ column: "id" }],
    };
    expect((await both(widened, { locked })).rows).toEqual([{ id: 1 }]);
  });

  it("treats hostile values as data and quotes hostile declared names; the table is unchanged", async () => {
    const before = await d1.prepare(`SELECT count(*) AS n FROM "${TABLE}"`).first("n");
    for (const value of [`'; DROP TABLE "${TABLE}"; --`, `") OR 1=1 --`, "/* */ UNION SELECT 1", "Seats'--", "😀", "\u202eRTL"]) {
      expect(await ids({ column: "product", op: "eq", value })).toEqual([]);
    }
    expect(await ids({ column: "product", op: "eq", value: 'O\'Brien "quoted" -- x' })).toEqual([5]);
    // A vendor may declare odd column names; they are quoted for the dialect.
    const odd: StoredTable = {
      ...table,
      query: `SELECT id AS "we""ird -- name", product AS "prödüct; DROP" FROM "${TABLE}" WHERE customer = {{customer.provided_id}}`,
      columns: [
        { name: 'we"ird -- name', type: "INTEGER", display_name: "Weird", can_be_grouped: true },
        { name: "prödüct; DROP", type: "STRING", display_name: "Product", can_be_grouped: true },
      ],
    };
    const result = await both(
      {
        dataset: "orders",
        group_by: [{ column: "prödüct; DROP" }],
        values: [{ aggregate: "max", column: 'we"ird -- name' }],
        filters: [{ column: "prödüct; DROP", op: "eq", value: "Seats" }],
      },
      { dataset: odd },
    );
    expect(result.rows).toEqual([{ "prödüct; DROP": "Seats", 'max_we"ird -- name': 1 }]);
    expect(await d1.prepare(`SELECT count(*) AS n FROM "${TABLE}"`).first("n")).toBe(before);
    const [pg] = await onWarehouse<{ n: string }>(`SELECT count(*) AS n FROM ${PG_SCHEMA}."${TABLE}"`);
    expect(Number(pg.n)).toBe(ROWS.length);
    if (mysqlAvailable) {
      const [my] = await onMysql<{ n: number }>(`SELECT count(*) AS n FROM ${MY_DB}.\`${TABLE}\``);
      expect(Number(my.n)).toBe(ROWS.length);
    }
    if (clickhouseAvailable) expect(await clickhouseRows(`SELECT count() AS n FROM ${CH_DB}.\`${TABLE}\``)).toEqual([{ n: ROWS.length }]);
  });

  it("compiles to one statement with every value bound and identifiers quoted for each dialect", () => {
    const query = ReportQuery.parse({
      dataset: "orders",
      group_by: [{ column: "day", bucket: "month" }],
      values: [{ aggregate: "avg", column: "units" }],
      filters: [{ column: "product", op: "eq", value: "x'y" }],
    });
    const input = { table, query, locked: [], context: context(), rowLimit: 10_000 };
    const sqlite = compileReportQuery({ ...input, dialect: "sqlite" });
    const pg = compileReportQuery({ ...input, dialect: "postgres" });
    expect(sqlite.params).toEqual(["acme", "x'y", 1001]);
    expect(pg.params).toEqual(["acme", "x'y", 1001]);
    expect(sqlite.sql).not.toContain("x'y");
    expect(sqlite.sql).toContain('"dataset"."product" = ?');
    expect(pg.sql).toContain('"dataset"."product" = $2');
    expect(pg.sql).toContain("LIMIT $3");
    expect(pg.sql).toContain("CAST(avg(");
    // MySQL: backticks, `?`, the limit our own integer.
    const my = compileReportQuery({ ...input, table: { ...table, query: queryOn("mysql", table.query) }, dialect: "mysql" });
    expect(my.params).toEqual(["acme", "x'y"]);
    expect(my.sql).not.toContain("x'y");
    expect(my.sql).toContain("`dataset`.`product` USING utf8mb4) COLLATE utf8mb4_bin) = ?");
    expect(my.sql).toContain("LIMIT 1001");
    // ClickHouse: backticks, typed {pN:Type} server-side parameters, the limit our own integer.
    const ch = compileReportQuery({ ...input, dialect: "clickhouse" });
    expect(ch.params).toEqual(["acme", "x'y"]);
    expect(ch.sql).not.toContain("x'y");
    expect(ch.sql).toContain("`dataset`.`product` = {p2:String}");
    expect(ch.sql).toMatch(/WHERE customer = +\{p1:String\}/);
    expect(ch.sql).toContain("LIMIT 1001");
  });
});

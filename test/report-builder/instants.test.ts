import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredTable } from "../../src/blueprints/schemas";
import { compileReportQuery } from "../../src/report-builder/compiler";
import { ReportQuery } from "../../src/report-builder/query";
import { runReport } from "../../src/report-builder/run";
import { onWarehouse } from "../helpers/warehouse";

// Date-times compared by the instant they name, not by how they are spelled; `in`/`not_in`
// lists bound as one parameter. The same instants are stored five times, once in each
// ISO 8601 spelling, in a real local D1 (OTHER_DATA) and as text in the real local
// PostgreSQL behind WAREHOUSE; each spelling is one "customer" of the dataset (its query
// binds {{customer.provided_id}}), and once more with the spellings mixed in one dataset.
// Every question must get the same answer from all twelve.

const d1 = (env as unknown as { OTHER_DATA: D1Database }).OTHER_DATA;
const PG_SCHEMA = `report_instants_${crypto.randomUUID().slice(0, 8)}`;
const TABLE = "instant rows";

const SPELLINGS: Record<string, (utc: Date) => string> = {
  z: (d) => d.toISOString().replace(".000Z", "Z"),
  millis: (d) => d.toISOString(),
  "utc-offset": (d) => d.toISOString().replace(".000Z", "+00:00"),
  "plus-two": (d) => new Date(d.getTime() + 2 * 3600_000).toISOString().replace(".000Z", "+02:00"),
  sqlite: (d) => d.toISOString().replace("T", " ").replace(".000Z", ""),
};

// id, instant (UTC), label, flag. Chosen where spelling and instant disagree: +02:00 moves
// rows 1 and 4 into the next day, month, quarter and year as text.
const ROWS: [number, string | null, string, boolean][] = [
  [1, "2025-12-31T23:30:00Z", 'a"b', true], // +02:00: 2026-01-01T01:30:00+02:00
  [2, "2026-01-04T23:59:59Z", "c\\d", false], // a Sunday, last second: its week starts 2025-12-29
  [3, "2026-03-29T01:30:00Z", "{x}", true],
  [4, "2026-06-30T23:00:00Z", "NULL", false], // +02:00: 2026-07-01T01:00:00+02:00
  [5, "2026-07-01T00:00:00Z", "a,b", true],
  [6, "2026-07-01T00:00:00Z", "plain", false], // the same instant as row 5
  [7, null, "none", true],
];

const table: StoredTable = {
  table_name: TABLE,
  schema_id: 1,
  query: `SELECT id, at, stamp, label, flag FROM "${TABLE}" WHERE spelling = {{customer.provided_id}}`,
  dataset_name: "events",
  description: null,
  columns: [
    { name: "id", type: "INTEGER", display_name: "Id", can_be_grouped: true },
    { name: "at", type: "DATETIME", display_name: "At", can_be_grouped: true },
    { name: "stamp", type: "TIMESTAMP", display_name: "Stamp", can_be_grouped: true },
    { name: "label", type: "STRING", display_name: "Label", can_be_grouped: true },
    { name: "flag", type: "BOOLEAN", display_name: "Flag", can_be_grouped: true },
  ],
};

const sources = [
  { id: 1, binding: "OTHER_DATA", kind: "d1" as const },
  { id: 2, binding: "WAREHOUSE", kind: "postgres" as const },
];

// Each spelling alone, and all of them mixed in one dataset (row i in spelling i mod 5): there
// text order and instant order disagree (row 4's `2026-07-01T01:00:00+02:00` sorts after row
// 5's `2026-07-01 00:00:00`), and rows 5 and 6 spell one instant two ways.
const DATASETS = [...Object.keys(SPELLINGS), "mixed"];
const stored = () =>
  DATASETS.flatMap((dataset) =>
    ROWS.map(([id, at, label, flag], i) => {
      const spell = SPELLINGS[dataset] ?? Object.values(SPELLINGS)[i % 5];
      const text = at === null ? null : spell(new Date(at));
      return [dataset, id, text, text, label, flag] as const;
    }),
  );

beforeAll(async () => {
  await d1.prepare(`DROP TABLE IF EXISTS "${TABLE}"`).run();
  await d1.prepare(`CREATE TABLE "${TABLE}" (spelling TEXT, id INTEGER, at TEXT, stamp TEXT, label TEXT, flag INTEGER)`).run();
  await d1.batch(
    stored().map((row) =>
      d1.prepare(`INSERT INTO "${TABLE}" VALUES (?, ?, ?, ?, ?, ?)`).bind(...row.map((v) => (typeof v === "boolean" ? (v ? 1 : 0) : v))),
    ),
  );
  await onWarehouse(`CREATE SCHEMA ${PG_SCHEMA}`);
  await onWarehouse(`CREATE TABLE ${PG_SCHEMA}."${TABLE}" (spelling text, id integer, at text, stamp text, label text, flag boolean)`);
  const rows = stored();
  const placeholders = rows.map((_, i) => `($${i * 6 + 1}, $${i * 6 + 2}, $${i * 6 + 3}, $${i * 6 + 4}, $${i * 6 + 5}, $${i * 6 + 6})`);
  await onWarehouse(`INSERT INTO ${PG_SCHEMA}."${TABLE}" VALUES ${placeholders.join(", ")}`, rows.flat());
});

afterAll(async () => {
  await onWarehouse(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
});

function runOn(db: "d1" | "postgres", spelling: string, body: unknown) {
  return runReport({
    env,
    table: db === "postgres" ? { ...table, query: table.query.replace(`"${TABLE}"`, `${PG_SCHEMA}."${TABLE}"`) } : table,
    query: ReportQuery.parse(body),
    locked: [],
    context: { customer: { provided_id: spelling, name: spelling, properties: {} }, variables: {} },
    mapping: { "1": db === "d1" ? "1" : "2" },
    sources,
  });
}

/** The question asked of every spelling (and the mix) on both databases: all twelve answers must be the same one. */
async function everywhere(body: unknown) {
  const answers = await Promise.all(DATASETS.flatMap((dataset) => [runOn("d1", dataset, body), runOn("postgres", dataset, body)]));
  for (const [i, answer] of answers.entries()) expect(answer, `answer ${i}`).toEqual(answers[0]);
  return answers[0];
}

const ids = async (column: string, filter: Record<string, unknown>) =>
  (await everywhere({ dataset: "events", columns: ["id"], filters: [{ column, ...filter }], sort: [{ column: "id" }] })).rows.map(
    (r) => r.id,
  );

describe("DATETIME and TIMESTAMP by instant: five spellings, D1 and PostgreSQL, one answer", () => {
  it("answers every comparison operator alike, whatever the spelling of the rows and of the value", async () => {
    for (const column of ["at", "stamp"]) {
      // The cases: an exact match without milliseconds, lte on the last second, between's upper bound.
      expect(await ids(column, { op: "eq", value: "2026-07-01T00:00:00Z" })).toEqual([5, 6]);
      expect(await ids(column, { op: "eq", value: "2026-07-01T02:00:00+02:00" })).toEqual([5, 6]);
      expect(await ids(column, { op: "eq", value: "2026-07-01 00:00:00" })).toEqual([5, 6]);
      expect(await ids(column, { op: "neq", value: "2026-07-01T00:00:00.000Z" })).toEqual([1, 2, 3, 4]);
      expect(await ids(column, { op: "gt", value: "2026-06-30T23:00:00Z" })).toEqual([5, 6]);
      expect(await ids(column, { op: "gte", value: "2026-07-01T01:00:00+02:00" })).toEqual([4, 5, 6]);
      expect(await ids(column, { op: "lt", value: "2026-01-01T01:30:00+02:00" })).toEqual([]);
      expect(await ids(column, { op: "lte", value: "2026-01-04T23:59:59Z" })).toEqual([1, 2]);
      expect(await ids(column, { op: "between", values: ["2025-12-31T23:30:00Z", "2026-01-04T23:59:59Z"] })).toEqual([1, 2]);
      expect(await ids(column, { op: "between", values: ["2026-01-01", "2026-07-01T00:00:00+00:00"] })).toEqual([2, 3, 4, 5, 6]);
      expect(await ids(column, { op: "in", values: ["2026-01-05T01:59:59+02:00", "2026-06-30 23:00:00"] })).toEqual([2, 4]);
      expect(await ids(column, { op: "not_in", values: ["2026-07-01T00:00:00Z", "2025-12-31T23:30:00.000Z"] })).toEqual([2, 3, 4]);
      expect(await ids(column, { op: "is_null" })).toEqual([7]);
    }
  });

  it("sorts, takes min and max, counts distinct and groups by the instant", async () => {
    const sorted = (direction: "asc" | "desc") =>
      everywhere({ dataset: "events", columns: ["id", "at"], sort: [{ column: "at", direction }, { column: "id" }] });
    expect((await sorted("asc")).rows.map((r) => r.id)).toEqual([7, 1, 2, 3, 4, 5, 6]);
    expect((await sorted("desc")).rows.map((r) => r.id)).toEqual([5, 6, 4, 3, 2, 1, 7]);
    // Shown in UTC whatever the spelling.
    expect((await sorted("asc")).rows[1]).toEqual({ id: 1, at: "2025-12-31T23:30:00.000Z" });

    const summary = await everywhere({
      dataset: "events",
      values: [
        { aggregate: "min", column: "at" },
        { aggregate: "max", column: "at" },
        { aggregate: "min", column: "stamp" },
        { aggregate: "max", column: "stamp" },
        { aggregate: "count_distinct", column: "at" },
      ],
    });
    expect(summary.rows).toEqual([
      {
        min_at: "2025-12-31T23:30:00.000Z",
        max_at: "2026-07-01T00:00:00.000Z",
        min_stamp: "2025-12-31T23:30:00.000Z",
        max_stamp: "2026-07-01T00:00:00.000Z",
        count_distinct_at: 5,
      },
    ]);

    const grouped = await everywhere({
      dataset: "events",
      group_by: [{ column: "stamp" }],
      values: [{ aggregate: "count" }],
      sort: [{ column: "stamp", direction: "desc" }],
    });
    expect(grouped.rows).toEqual([
      { stamp: "2026-07-01T00:00:00.000Z", count: 2 },
      { stamp: "2026-06-30T23:00:00.000Z", count: 1 },
      { stamp: "2026-03-29T01:30:00.000Z", count: 1 },
      { stamp: "2026-01-04T23:59:59.000Z", count: 1 },
      { stamp: "2025-12-31T23:30:00.000Z", count: 1 },
      { stamp: null, count: 1 },
    ]);
  });

  it("puts every row in the same day, week, month, quarter and year bucket", async () => {
    const buckets = async (column: string, bucket: string) =>
      (await everywhere({ dataset: "events", group_by: [{ column, bucket }], values: [{ aggregate: "count" }] })).rows.map((r) => [
        r[`${column}_${bucket}`],
        r.count,
      ]);
    for (const column of ["at", "stamp"]) {
      expect(await buckets(column, "day")).toEqual([
        [null, 1],
        ["2025-12-31", 1],
        ["2026-01-04", 1],
        ["2026-03-29", 1],
        ["2026-06-30", 1],
        ["2026-07-01", 2],
      ]);
      expect(await buckets(column, "week")).toEqual([
        [null, 1],
        ["2025-12-29", 2],
        ["2026-03-23", 1],
        ["2026-06-29", 3],
      ]);
      expect(await buckets(column, "month")).toEqual([
        [null, 1],
        ["2025-12", 1],
        ["2026-01", 1],
        ["2026-03", 1],
        ["2026-06", 1],
        ["2026-07", 2],
      ]);
      expect(await buckets(column, "quarter")).toEqual([
        [null, 1],
        ["2025-Q4", 1],
        ["2026-Q1", 2],
        ["2026-Q2", 1],
        ["2026-Q3", 2],
      ]);
      expect(await buckets(column, "year")).toEqual([
        [null, 1],
        ["2025", 1],
        ["2026", 5],
      ]);
    }
  });
});

describe("in and not_in with 100 values: one bound list, whatever else the statement binds", () => {
  const hundred = <T>(real: T[], filler: (i: number) => T): T[] => [
    ...real,
    ...Array.from({ length: 100 - real.length }, (_, i) => filler(i)),
  ];

  it("answers with exactly 100 values of every type on D1 and PostgreSQL (the dataset's query binds a placeholder)", async () => {
    const integers = hundred([2, 5], (i) => 1000 + i);
    expect(await ids("id", { op: "in", values: integers })).toEqual([2, 5]);
    expect(await ids("id", { op: "not_in", values: integers })).toEqual([1, 3, 4, 6, 7]);
    // Text that an array literal or JSON would have to escape stays data.
    const labels = hundred(['a"b', "c\\d", "{x}", "NULL", "a,b"], (i) => `other ${i}`);
    expect(await ids("label", { op: "in", values: labels })).toEqual([1, 2, 3, 4, 5]);
    expect(await ids("label", { op: "not_in", values: labels })).toEqual([6, 7]);
    const instants = hundred(["2026-07-01T02:00:00+02:00", "2025-12-31 23:30:00"], (i) =>
      new Date(Date.UTC(2030, 0, 1, 0, i)).toISOString(),
    );
    expect(await ids("at", { op: "in", values: instants })).toEqual([1, 5, 6]);
    expect(await ids("stamp", { op: "not_in", values: instants })).toEqual([2, 3, 4]);
    const flags = hundred([true], () => true);
    expect(await ids("flag", { op: "in", values: flags })).toEqual([1, 3, 5, 7]);
    expect(await ids("flag", { op: "not_in", values: flags })).toEqual([2, 4, 6]);
  });

  it("binds the list as one parameter on each dialect", () => {
    const query = ReportQuery.parse({
      dataset: "events",
      columns: ["id"],
      filters: [{ column: "id", op: "in", values: Array.from({ length: 100 }, (_, i) => i) }],
    });
    const input = {
      table,
      query,
      locked: [],
      context: { customer: { provided_id: "z", name: "z", properties: {} }, variables: {} },
      rowLimit: 10_000,
    };
    const sqlite = compileReportQuery({ ...input, dialect: "sqlite" });
    const pg = compileReportQuery({ ...input, dialect: "postgres" });
    expect(sqlite.params).toHaveLength(3);
    expect(sqlite.sql).toContain("json_each(?)");
    expect(pg.params).toHaveLength(3);
    expect(pg.sql).toContain('"dataset"."id" = ANY($2)');
  });
});

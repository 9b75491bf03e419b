import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredTable } from "../../src/blueprints/schemas";
import { compileReportQuery } from "../../src/report-builder/compiler";
import { ReportQuery } from "../../src/report-builder/query";
import { runReport } from "../../src/report-builder/run";
import { connectionToStore, type StoredConnection } from "../../src/data/sources/clickhouse-connection";
import { clickhouseAvailable, clickhouseServer, onClickhouse } from "../helpers/clickhouse-warehouse";
import { mysqlAvailable, onMysql } from "../helpers/mysql-warehouse";
import { onWarehouse } from "../helpers/warehouse";

// The report builder's day/week/month/quarter/year buckets of date-times in the view's time
// zone: on D1 (SQLite has no zone database: the zone's offset transitions over the data's range
// are computed with Intl and bound), on PostgreSQL (AT TIME ZONE) and on MySQL (whose zone
// tables are not loaded in the tests' server: the same transitions as on D1, in a CASE) and on
// ClickHouse (toTimeZone with its own zone database), all compared with the buckets this test
// computes with the runtime's own Intl — never hand-typed.

const d1 = (env as unknown as { OTHER_DATA: D1Database }).OTHER_DATA;
const PG_SCHEMA = `report_zones_${crypto.randomUUID().slice(0, 8)}`;
const TABLE = "zoned rows";
const MY_DB = `warehouse_report_zones_${crypto.randomUUID().slice(0, 8)}`;
const CH_DB = `report_zones_${crypto.randomUUID().slice(0, 8)}`;
type Db = "d1" | "postgres" | "mysql" | "clickhouse";
const DATABASES: readonly Db[] = [
  "d1",
  "postgres",
  ...(mysqlAvailable ? (["mysql"] as const) : []),
  ...(clickhouseAvailable ? (["clickhouse"] as const) : []),
];

const HOUR = 3_600_000;
// Both sides of the EU changes (2026-03-29 01:00Z, 2026-10-25 01:00Z) and the US ones
// (2026-03-08 10:00Z, 2026-11-01 09:00Z in Los Angeles), every 50 minutes for two days; the
// turn of months and years; and instants a little before and after midnight UTC.
const around = (iso: string) => Array.from({ length: 58 }, (_, i) => Date.parse(iso) - 24 * HOUR + i * 50 * 60_000);
const INSTANTS = [
  ...around("2026-03-29T01:00:00Z"),
  ...around("2026-10-25T01:00:00Z"),
  ...around("2026-03-08T10:00:00Z"),
  ...around("2026-11-01T09:00:00Z"),
  ...["2025-12-31T15:30:00Z", "2025-12-31T23:30:00Z", "2026-01-01T08:30:00Z", "2026-03-31T22:30:00Z", "2026-06-30T23:59:59Z"].map(
    Date.parse,
  ),
  Date.parse("2026-03-01T23:30:00Z"),
  Date.parse("2026-03-02T00:30:00Z"),
];
// Stored in three spellings (the instant is what counts): Z, +02:00 and SQLite's own.
const spell = (ms: number, i: number) => {
  const iso = new Date(ms).toISOString();
  if (i % 3 === 1) return new Date(ms + 2 * HOUR).toISOString().replace(".000Z", "+02:00");
  if (i % 3 === 2) return iso.replace("T", " ").replace(".000Z", "");
  return iso;
};
const ROWS = INSTANTS.map((ms, i) => [i + 1, spell(ms, i), new Date(ms).toISOString().slice(0, 10)] as const);

const table: StoredTable = {
  table_name: TABLE,
  schema_id: 1,
  query: `SELECT id, at, stamp, day FROM "${TABLE}" WHERE {{customer.provided_id}} = 'zones'`,
  dataset_name: "events",
  description: null,
  columns: [
    { name: "id", type: "INTEGER", display_name: "Id", can_be_grouped: true },
    { name: "at", type: "DATETIME", display_name: "At", can_be_grouped: true },
    { name: "stamp", type: "TIMESTAMP", display_name: "Stamp", can_be_grouped: true },
    { name: "day", type: "DATE", display_name: "Day", can_be_grouped: true },
  ],
};
const sources: { id: number; binding: string; kind: Db; connection?: StoredConnection }[] = [
  { id: 1, binding: "OTHER_DATA", kind: "d1" as const },
  { id: 2, binding: "WAREHOUSE", kind: "postgres" as const },
  { id: 3, binding: "WAREHOUSE_MYSQL", kind: "mysql" as const },
];

beforeAll(async () => {
  await d1.prepare(`DROP TABLE IF EXISTS "${TABLE}"`).run();
  await d1.prepare(`CREATE TABLE "${TABLE}" (id INTEGER, at TEXT, stamp TEXT, day TEXT)`).run();
  await d1.batch(ROWS.map(([id, at, day]) => d1.prepare(`INSERT INTO "${TABLE}" VALUES (?, ?, ?, ?)`).bind(id, at, at, day)));
  await onWarehouse(`CREATE SCHEMA ${PG_SCHEMA}`);
  // PostgreSQL keeps them as it would: timestamptz and timestamp (UTC) columns, a date.
  await onWarehouse(`CREATE TABLE ${PG_SCHEMA}."${TABLE}" (id integer, at timestamptz, stamp timestamp, day date)`);
  const placeholders = ROWS.map((_, i) => `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`);
  await onWarehouse(
    `INSERT INTO ${PG_SCHEMA}."${TABLE}" VALUES ${placeholders.join(", ")}`,
    ROWS.flatMap(([id, , day], i) => [id, new Date(INSTANTS[i]).toISOString(), new Date(INSTANTS[i]).toISOString().slice(0, 19), day]),
  );
  if (clickhouseAvailable) await clickhouseRowsLoaded();
  if (!mysqlAvailable) return;
  // MySQL's: a DATETIME (UTC wall-clock time) and a TIMESTAMP (an instant; the session is UTC), a DATE.
  await onMysql(
    `CREATE DATABASE ${MY_DB};
     CREATE TABLE ${MY_DB}.\`${TABLE}\` (id int, at datetime(3), stamp timestamp(3) NULL, day date);
     SET time_zone = '+00:00';
     INSERT INTO ${MY_DB}.\`${TABLE}\` VALUES ${ROWS.map(() => "(?, ?, ?, ?)").join(", ")}`,
    ROWS.flatMap(([id, , day], i) => {
      const wall = new Date(INSTANTS[i]).toISOString().replace("T", " ").replace("Z", "");
      return [id, wall, wall, day];
    }),
  );
});

/** ClickHouse's: a DateTime64 in UTC and one declared in New York's zone (the same instants), a Date. */
async function clickhouseRowsLoaded() {
  const values = ROWS.map(([id, , day], i) => {
    const wall = new Date(INSTANTS[i]).toISOString().replace("T", " ").replace("Z", "");
    return `(${id}, toDateTime64('${wall}', 3, 'UTC'), toDateTime64('${wall}', 3, 'UTC'), '${day}')`;
  });
  await onClickhouse(
    `CREATE DATABASE ${CH_DB}`,
    `CREATE TABLE ${CH_DB}.\`${TABLE}\` (id Int32, at DateTime64(3, 'UTC'), stamp DateTime64(3, 'America/New_York'), day Date) ENGINE = MergeTree ORDER BY id`,
    `INSERT INTO ${CH_DB}.\`${TABLE}\` VALUES ${values.join(", ")}`,
  );
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

function queryOn(db: Db): string {
  // ClickHouse reads "…" as a name, and its data source's database holds the table.
  if (db === "d1" || db === "clickhouse") return table.query;
  if (db === "postgres") return table.query.replace(`"${TABLE}"`, `${PG_SCHEMA}."${TABLE}"`);
  return table.query.replace(`"${TABLE}"`, `${MY_DB}.\`${TABLE}\``);
}

function runOn(db: Db, timezone: string, body: unknown) {
  return runReport({
    env,
    table: { ...table, query: queryOn(db) },
    query: ReportQuery.parse(body),
    locked: [],
    context: { customer: { provided_id: "zones", name: "zones", properties: {} }, variables: {} },
    mapping: { "1": String(sources.find((s) => s.kind === db)?.id) },
    sources,
    timezone,
  });
}

/** The local calendar day of an instant in a zone, as Intl tells it. */
function localDate(ms: number, zone: string): { y: number; m: number; d: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone: zone, year: "numeric", month: "numeric", day: "numeric" })
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  return { y: Number(parts.year), m: Number(parts.month), d: Number(parts.day) };
}

const pad = (n: number) => String(n).padStart(2, "0");
const BUCKETS = {
  day: ({ y, m, d }: { y: number; m: number; d: number }) => `${y}-${pad(m)}-${pad(d)}`,
  week: ({ y, m, d }: { y: number; m: number; d: number }) => {
    const date = new Date(Date.UTC(y, m - 1, d));
    date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
    return date.toISOString().slice(0, 10);
  },
  month: ({ y, m }: { y: number; m: number }) => `${y}-${pad(m)}`,
  quarter: ({ y, m }: { y: number; m: number }) => `${y}-Q${Math.ceil(m / 3)}`,
  year: ({ y }: { y: number }) => `${y}`,
};
type BucketName = keyof typeof BUCKETS;

/** What the buckets must be: Intl's local date of every instant, counted and sorted. */
function expected(zone: string, bucket: BucketName, instants = INSTANTS): [string, number][] {
  const counts = new Map<string, number>();
  for (const ms of instants) {
    const key = BUCKETS[bucket](localDate(ms, zone));
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

async function buckets(db: Db, zone: string, column: string, bucket: BucketName, filters: unknown[] = []) {
  const result = await runOn(db, zone, { dataset: "events", group_by: [{ column, bucket }], values: [{ aggregate: "count" }], filters });
  return result.rows.map((r) => [r[`${column}_${bucket}`], r.count]);
}

describe("report builder buckets in the view's time zone, D1, PostgreSQL, MySQL and ClickHouse alike", () => {
  it("puts a date-time near midnight UTC on the local day of Asia/Tokyo and America/Los_Angeles", async () => {
    const late = Date.parse("2026-03-01T23:30:00Z");
    const early = Date.parse("2026-03-02T00:30:00Z");
    const body = {
      dataset: "events",
      columns: ["id"],
      filters: [{ column: "at", op: "in", values: [new Date(late).toISOString(), new Date(early).toISOString()] }],
    };
    for (const zone of ["Asia/Tokyo", "America/Los_Angeles"]) {
      for (const db of DATABASES) {
        const rows = await buckets(db, zone, "at", "day", body.filters);
        // Both instants on one local day: Tokyo's next, Los Angeles' previous.
        expect(rows, `${db} ${zone}`).toEqual(expected(zone, "day", [late, early]));
      }
    }
    // The two zones do not agree on that day (and UTC splits the two instants).
    expect(expected("Asia/Tokyo", "day", [late])).not.toEqual(expected("America/Los_Angeles", "day", [late]));
    expect(await buckets("d1", "UTC", "at", "day", body.filters)).toEqual(expected("UTC", "day", [late, early]));
  });

  it("buckets across the EU and US daylight-saving changes as Intl does, on every database", async () => {
    const zones = ["Europe/Berlin", "America/Los_Angeles", "Asia/Tokyo", "Australia/Lord_Howe", "Asia/Kathmandu", "UTC"];
    for (const zone of zones) {
      for (const bucket of Object.keys(BUCKETS) as BucketName[]) {
        const want = expected(zone, bucket);
        for (const column of ["at", "stamp"]) {
          const answers = await Promise.all(DATABASES.map((db) => buckets(db, zone, column, bucket)));
          for (const [i, answer] of answers.entries()) expect(answer, `${DATABASES[i]} ${zone} ${column} ${bucket}`).toEqual(want);
        }
      }
    }
  });

  it("puts Europe/Berlin's months right across both DST changes on MySQL, without its time-zone tables", async () => {
    if (!mysqlAvailable) return;
    // The tests' server has no zone tables: MySQL itself cannot tell Berlin's offset.
    const [named] = await onMysql<{ t: string | null }>("SELECT CONVERT_TZ('2026-03-29 00:30:00', 'UTC', 'Europe/Berlin') AS t");
    expect(named.t).toBeNull();
    // Computed here from Intl: 2026-03-31T22:30Z is April in Berlin (+02:00), 2025-12-31T23:30Z January (+01:00).
    const want = expected("Europe/Berlin", "month");
    expect(want).toContainEqual(["2026-04", 1]);
    expect(want).not.toEqual(expected("UTC", "month"));
    for (const column of ["at", "stamp"]) expect(await buckets("mysql", "Europe/Berlin", column, "month"), column).toEqual(want);
    // Both changes inside one range: the month of every instant around them.
    const around = INSTANTS.filter(
      (ms) =>
        Math.abs(ms - Date.parse("2026-03-29T01:00:00Z")) < 30 * HOUR || Math.abs(ms - Date.parse("2026-10-25T01:00:00Z")) < 30 * HOUR,
    );
    const hours = await runOn("mysql", "Europe/Berlin", {
      dataset: "events",
      group_by: [{ column: "at", bucket: "day" }],
      values: [{ aggregate: "count" }],
      filters: [{ column: "id", op: "in", values: INSTANTS.flatMap((ms, i) => (around.includes(ms) ? [i + 1] : [])).slice(0, 100) }],
    });
    const chosen = INSTANTS.filter((ms) => around.includes(ms)).slice(0, 100);
    expect(hours.rows.map((r) => [r.at_day, r.count])).toEqual(expected("Europe/Berlin", "day", chosen));
  });

  it("leaves DATE columns without a zone", async () => {
    const utcDays = expected("UTC", "month");
    for (const db of DATABASES) expect(await buckets(db, "Asia/Tokyo", "day", "month"), db).toEqual(utcDays);
  });

  it("takes the data's range under the query's filters: a narrow filter still buckets right", async () => {
    const after = Date.parse("2026-10-24T12:00:00Z");
    const filters = [{ column: "stamp", op: "gte", value: new Date(after).toISOString() }];
    const zone = "Europe/Berlin";
    const want = expected(
      zone,
      "day",
      INSTANTS.filter((ms) => ms >= after),
    );
    for (const db of DATABASES) expect(await buckets(db, zone, "stamp", "day", filters), db).toEqual(want);
  });

  it("reads a date-only filter value on a date-time column as that local day's first instant", async () => {
    for (const zone of ["Asia/Tokyo", "America/Los_Angeles", "Europe/Berlin"]) {
      // Local midnight of 2026-03-29 in the zone, as Intl tells it: the first instant whose local date is that day.
      const first = INSTANTS.filter((ms) => BUCKETS.day(localDate(ms, zone)) >= "2026-03-29");
      for (const db of DATABASES) {
        const result = await runOn(db, zone, {
          dataset: "events",
          values: [{ aggregate: "count" }],
          filters: [{ column: "at", op: "gte", value: "2026-03-29" }],
        });
        expect(result.rows, `${db} ${zone}`).toEqual([{ count: first.length }]);
      }
    }
  });

  it("binds the zone once per statement, whatever the number of transitions", () => {
    const input = {
      table,
      query: ReportQuery.parse({
        dataset: "events",
        group_by: [
          { column: "at", bucket: "month" },
          { column: "stamp", bucket: "week" },
        ],
        values: [{ aggregate: "count" }],
      }),
      locked: [],
      context: { customer: { provided_id: "zones", name: "zones", properties: {} }, variables: {} },
      rowLimit: 10_000,
      timezone: "Europe/Berlin",
    };
    const offsets = Array.from({ length: 400 }, (_, i): [string, number] => [new Date(Date.UTC(1900 + i, 0, 1)).toISOString(), 3600]);
    const sqlite = compileReportQuery({ ...input, dialect: "sqlite", offsets });
    // The dataset's placeholder, the offsets (one JSON parameter) and the limit.
    expect(sqlite.params).toHaveLength(3);
    expect(sqlite.zoneRange?.sql).toContain("min(");
    const pg = compileReportQuery({ ...input, dialect: "postgres" });
    // MySQL: the range statement first, then the transitions as a CASE of literals (no parameter for them).
    const my = compileReportQuery({ ...input, table: { ...table, query: queryOn("mysql") }, dialect: "mysql", offsets });
    expect(my.params).toEqual(["zones"]);
    expect(my.zoneRange?.sql).toContain("min(");
    expect(my.sql).toContain("WHEN CAST(`dataset`.`at` AS DATETIME(6)) >= TIMESTAMP '2299-01-01 00:00:00.000' THEN 3600");
    expect(pg.params.slice(0, 2)).toEqual(["zones", "Europe/Berlin"]);
    expect(pg.params).toHaveLength(3);
    expect(pg.zoneRange).toBeUndefined();
    // UTC: the statement of before, no zone at all.
    const utc = compileReportQuery({ ...input, dialect: "sqlite", timezone: "UTC" });
    expect(utc.params).toHaveLength(2);
    expect(utc.zoneRange).toBeUndefined();
  });
});

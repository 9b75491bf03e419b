import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredTable } from "../../src/blueprints/schemas";
import { compileReportQuery } from "../../src/report-builder/compiler";
import { ReportQuery } from "../../src/report-builder/query";
import { runReport } from "../../src/report-builder/run";
import { onWarehouse } from "../helpers/warehouse";

// The report builder's day/week/month/quarter/year buckets of date-times in the view's time
// zone: on D1 (SQLite has no zone database: the zone's offset transitions over the data's range
// are computed with Intl and bound) and on PostgreSQL (AT TIME ZONE), both compared with the
// buckets this test computes with the runtime's own Intl — never hand-typed.

const d1 = (env as unknown as { OTHER_DATA: D1Database }).OTHER_DATA;
const PG_SCHEMA = `report_zones_${crypto.randomUUID().slice(0, 8)}`;
const TABLE = "zoned rows";

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
const sources = [
  { id: 1, binding: "OTHER_DATA", kind: "d1" as const },
  { id: 2, binding: "WAREHOUSE", kind: "postgres" as const },
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
});

afterAll(async () => {
  await onWarehouse(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
});

function runOn(db: "d1" | "postgres", timezone: string, body: unknown) {
  return runReport({
    env,
    table: db === "postgres" ? { ...table, query: table.query.replace(`"${TABLE}"`, `${PG_SCHEMA}."${TABLE}"`) } : table,
    query: ReportQuery.parse(body),
    locked: [],
    context: { customer: { provided_id: "zones", name: "zones", properties: {} }, variables: {} },
    mapping: { "1": db === "d1" ? "1" : "2" },
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

async function buckets(db: "d1" | "postgres", zone: string, column: string, bucket: BucketName, filters: unknown[] = []) {
  const result = await runOn(db, zone, { dataset: "events", group_by: [{ column, bucket }], values: [{ aggregate: "count" }], filters });
  return result.rows.map((r) => [r[`${column}_${bucket}`], r.count]);
}

describe("report builder buckets in the view's time zone, D1 and PostgreSQL alike", () => {
  it("puts a date-time near midnight UTC on the local day of Asia/Tokyo and America/Los_Angeles", async () => {
    const late = Date.parse("2026-03-01T23:30:00Z");
    const early = Date.parse("2026-03-02T00:30:00Z");
    const body = {
      dataset: "events",
      columns: ["id"],
      filters: [{ column: "at", op: "in", values: [new Date(late).toISOString(), new Date(early).toISOString()] }],
    };
    for (const zone of ["Asia/Tokyo", "America/Los_Angeles"]) {
      for (const db of ["d1", "postgres"] as const) {
        const rows = await buckets(db, zone, "at", "day", body.filters);
        // Both instants on one local day: Tokyo's next, Los Angeles' previous.
        expect(rows, `${db} ${zone}`).toEqual(expected(zone, "day", [late, early]));
      }
    }
    // The two zones do not agree on that day (and UTC splits the two instants).
    expect(expected("Asia/Tokyo", "day", [late])).not.toEqual(expected("America/Los_Angeles", "day", [late]));
    expect(await buckets("d1", "UTC", "at", "day", body.filters)).toEqual(expected("UTC", "day", [late, early]));
  });

  it("buckets across the EU and US daylight-saving changes as Intl does, on both databases", async () => {
    const zones = ["Europe/Berlin", "America/Los_Angeles", "Asia/Tokyo", "Australia/Lord_Howe", "Asia/Kathmandu", "UTC"];
    for (const zone of zones) {
      for (const bucket of Object.keys(BUCKETS) as BucketName[]) {
        const want = expected(zone, bucket);
        for (const column of ["at", "stamp"]) {
          const [onD1, onPg] = await Promise.all([buckets("d1", zone, column, bucket), buckets("postgres", zone, column, bucket)]);
          expect(onD1, `D1 ${zone} ${column} ${bucket}`).toEqual(want);
          expect(onPg, `PostgreSQL ${zone} ${column} ${bucket}`).toEqual(want);
        }
      }
    }
  });

  it("leaves DATE columns without a zone", async () => {
    const utcDays = expected("UTC", "month");
    expect(await buckets("d1", "Asia/Tokyo", "day", "month")).toEqual(utcDays);
    expect(await buckets("postgres", "Asia/Tokyo", "day", "month")).toEqual(utcDays);
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
    expect(await buckets("d1", zone, "stamp", "day", filters)).toEqual(want);
    expect(await buckets("postgres", zone, "stamp", "day", filters)).toEqual(want);
  });

  it("reads a date-only filter value on a date-time column as that local day's first instant", async () => {
    for (const zone of ["Asia/Tokyo", "America/Los_Angeles", "Europe/Berlin"]) {
      // Local midnight of 2026-03-29 in the zone, as Intl tells it: the first instant whose local date is that day.
      const first = INSTANTS.filter((ms) => BUCKETS.day(localDate(ms, zone)) >= "2026-03-29");
      for (const db of ["d1", "postgres"] as const) {
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
    expect(pg.params.slice(0, 2)).toEqual(["zones", "Europe/Berlin"]);
    expect(pg.params).toHaveLength(3);
    expect(pg.zoneRange).toBeUndefined();
    // UTC: the statement of before, no zone at all.
    const utc = compileReportQuery({ ...input, dialect: "sqlite", timezone: "UTC" });
    expect(utc.params).toHaveLength(2);
    expect(utc.zoneRange).toBeUndefined();
  });
});

import { sql, type SQL } from "drizzle-orm";
import { MySqlDialect } from "drizzle-orm/mysql-core";
import type { Param } from "../../data/placeholders";
import type { ReportDialect } from "../dialect";

const drizzle = new MySqlDialect();

/**
 * A DATETIME(6): a DATETIME is UTC wall-clock time, a TIMESTAMP its instant in the session's
 * UTC (the runner sets `time_zone = '+00:00'`), a DATE its midnight, text `YYYY-MM-DD
 * HH:MM:SS[.ffffff]` (or with `T`) UTC.
 */
function instant(expression: SQL): SQL {
  return sql`CAST(${expression} AS DATETIME(6))`;
}

/** `2026-03-29T01:30:00.000Z` → `2026-03-29 01:30:00.000` (at most microseconds: DATETIME(6)). */
function wallClockText(utc: string): string {
  return utc.replace("T", " ").replace(/Z$/, "").slice(0, 26);
}

const TRANSITION = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?$/;

/**
 * MySQL 8 and MariaDB 10.6+ (through Hyperdrive): `?` parameters, backtick names. The session
 * runs in UTC with backslash escapes on and ANSI_QUOTES off (src/data/sources/mysql.ts).
 *
 * The view's zone: MySQL reads zone names only from its time-zone tables, which most servers
 * never load (`CONVERT_TZ` then answers NULL). So, as on D1, the Worker computes the zone's
 * offset transitions over the data's range (a range statement runs first) and the statement
 * shifts each instant by the offset in force at it — a CASE over those transitions, newest
 * first. They are written into the statement as literals, not bound: they are the Worker's own
 * numbers, checked against their format here, and the CASE must be the same text in SELECT,
 * GROUP BY and ORDER BY (three bound markers would be three different expressions to
 * ONLY_FULL_GROUP_BY). A range of a few years is a few dozen WHENs.
 */
export const mysqlReport: ReportDialect = {
  render: (statement) => {
    const { sql: text, params } = drizzle.sqlToQuery(statement);
    return { sql: text, params: params as Param[] };
  },
  // Our own integer, as a literal: MySQL 8's `LIMIT ?` refuses a parameter the driver sends as a double.
  limit: (rows) => sql.raw(`LIMIT ${Math.floor(rows)}`),
  // TINYINT(1), as BOOLEAN columns are.
  booleanValue: (value) => (value ? 1 : 0),
  instantValue: wallClockText,
  instant,
  // The server's default collation ignores case and accents ('Seats' = 'seats'); utf8mb4_bin
  // compares code points, like SQLite's BINARY (it is PAD SPACE: trailing spaces do not count).
  text: (value) => sql`(CONVERT(${value} USING utf8mb4) COLLATE utf8mb4_bin)`,
  // Text reaches ordering already as `text`, so in code point order.
  textOrder: (value) => value,
  lower: (value) => sql`lower(${value})`,
  // Backslash escapes are on in MySQL's string literals: `'\\'` is one backslash.
  likeEscape: sql`ESCAPE '\\\\'`,
  // avg of integers is a DECIMAL of four places; of a double, a double (`+ 0e0` makes one).
  avg: (value) => sql`avg(${value} + 0e0)`,
  // MySQL's own NULL order is SQLite's (first ascending, last descending), and it has no NULLS FIRST.
  ordered: (key, direction) => (direction === "desc" ? sql`${key} DESC` : sql`${key} ASC`),
  // MySQL binds up to 65,535 parameters: one each.
  inList: (value, negated, values, instants) => {
    const list = sql.join(
      values.map((v) => (instants ? instant(sql`${v}`) : sql`${v}`)),
      sql`, `,
    );
    return negated ? sql`${value} NOT IN (${list})` : sql`${value} IN (${list})`;
  },
  zone: "offsets",
  zoneSource: () => undefined,
  localTime: (moment, { offsets }) => {
    const whens = offsets
      .slice(1)
      .reverse()
      .map(([from, seconds]) => {
        const at = wallClockText(from);
        if (!TRANSITION.test(at) || !Number.isSafeInteger(seconds)) throw new Error(`not a zone transition: ${from} ${seconds}`);
        return sql`WHEN ${moment} >= ${sql.raw(`TIMESTAMP '${at}'`)} THEN ${sql.raw(String(seconds))}`;
      });
    const first = offsets[0]?.[1] ?? 0;
    if (!Number.isSafeInteger(first)) throw new Error(`not a zone offset: ${first}`);
    const offset = whens.length ? sql`CASE ${sql.join(whens, sql` `)} ELSE ${sql.raw(String(first))} END` : sql.raw(String(first));
    return sql`DATE_ADD(${moment}, INTERVAL (${offset}) SECOND)`;
  },
  utcTime: (moment) => moment,
  bucket: (time, bucket): SQL => {
    switch (bucket) {
      case "day":
        return sql`DATE_FORMAT(${time}, '%Y-%m-%d')`;
      case "week":
        return sql`DATE_FORMAT(DATE_SUB(${time}, INTERVAL WEEKDAY(${time}) DAY), '%Y-%m-%d')`;
      case "month":
        return sql`DATE_FORMAT(${time}, '%Y-%m')`;
      case "quarter":
        return sql`CONCAT(DATE_FORMAT(${time}, '%Y'), '-Q', QUARTER(${time}))`;
      case "year":
        return sql`DATE_FORMAT(${time}, '%Y')`;
    }
  },
};

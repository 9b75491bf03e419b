import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { parameterMark, type Param } from "../../data/placeholders";
import type { ReportDialect } from "../dialect";

/**
 * Drizzle's statement builder with ClickHouse's spelling: each value a server-side
 * `{pN:Type}` parameter typed by its value (the runner sends them as `param_pN`), names in
 * backticks with ClickHouse's backslash escapes, string literals likewise.
 */
class ClickhouseStatements extends PgDialect {
  override escapeParam(num: number, value?: unknown): string {
    return parameterMark("clickhouse", num + 1, value as Param);
  }
  override escapeName(name: string): string {
    return `\`${name.replaceAll("\\", "\\\\").replaceAll("`", "\\`")}\``;
  }
  override escapeString(text: string): string {
    return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
  }
}

const drizzle = new ClickhouseStatements();

/**
 * A DateTime64(6) in UTC: a DateTime or DateTime64 column is the instant it is (whatever zone
 * the column is declared in), a Date its midnight, text `YYYY-MM-DD HH:MM:SS[.ffffff]` UTC.
 */
function instant(expression: SQL): SQL {
  return sql`toDateTime64(${expression}, 6, 'UTC')`;
}

/** `2026-03-29T01:30:00.000Z` → `2026-03-29 01:30:00.000` (at most microseconds). */
function wallClockText(utc: string): string {
  return utc.replace("T", " ").replace(/Z$/, "").slice(0, 26);
}

/**
 * ClickHouse over HTTP: `{pN:Type}` parameters, backtick names. Strings compare and sort
 * byte by byte (UTF-8: code point order), as SQLite's BINARY does. It carries its own zone
 * database, so the view's zone is named (bound) and `toTimeZone` gives the local wall-clock
 * time; `toMonday`, `toStartOfMonth`, `toStartOfQuarter` and `toStartOfYear` of it are the
 * zone's own buckets across daylight-saving changes.
 */
export const clickhouseReport: ReportDialect = {
  render: (statement) => {
    const { sql: text, params } = drizzle.sqlToQuery(statement);
    return { sql: text, params: params as Param[] };
  },
  limit: (rows) => sql.raw(`LIMIT ${Math.floor(rows)}`),
  booleanValue: (value) => value,
  instantValue: wallClockText,
  instant,
  text: (value) => value,
  textOrder: (value) => value,
  lower: (value) => sql`lowerUTF8(${value})`,
  // A backslash is LIKE's escape in ClickHouse already (it has no ESCAPE clause).
  likeEscape: sql``,
  avg: (value) => sql`toFloat64(avg(${value}))`,
  ordered: (key, direction) => (direction === "desc" ? sql`${key} DESC NULLS LAST` : sql`${key} ASC NULLS FIRST`),
  inList: (value, negated, values, instants) => {
    const list = sql.join(
      values.map((v) => (instants ? instant(sql`${v}`) : sql`${v}`)),
      sql`, `,
    );
    return negated ? sql`${value} NOT IN (${list})` : sql`${value} IN (${list})`;
  },
  zone: "named",
  zoneSource: () => undefined,
  localTime: (moment, { name }) => sql`toTimeZone(${moment}, ${name})`,
  utcTime: (moment) => sql`toTimeZone(${moment}, 'UTC')`,
  bucket: (time, bucket): SQL => {
    switch (bucket) {
      case "day":
        return sql`formatDateTime(${time}, '%Y-%m-%d')`;
      case "week":
        return sql`formatDateTime(toMonday(${time}), '%Y-%m-%d')`;
      case "month":
        return sql`formatDateTime(toStartOfMonth(${time}), '%Y-%m')`;
      case "quarter":
        return sql`concat(toString(toYear(${time})), '-Q', toString(toQuarter(${time})))`;
      case "year":
        return sql`toString(toYear(${time}))`;
    }
  },
};

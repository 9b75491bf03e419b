import { sql, type SQL } from "drizzle-orm";
import type { Dialect } from "../data/placeholders";
import type { Aggregate, Bucket, ColumnType } from "./query";

/**
 * The SQL expressions a report query's statement is built of, each spelled for SQLite (D1)
 * or PostgreSQL so that both answer the same: a column of the dataset, a date bucket, an
 * aggregate and its result type, an ordering. compiler.ts assembles them into the statement.
 */

const NUMERIC: readonly ColumnType[] = ["INTEGER", "FLOAT"];
const INSTANTS: readonly ColumnType[] = ["DATETIME", "TIMESTAMP"];

/** DATETIME and TIMESTAMP: values that name an instant, compared, grouped and sorted as one. */
export function isInstant(type: ColumnType): boolean {
  return INSTANTS.includes(type);
}

/**
 * A DATETIME or TIMESTAMP value as the instant it names, whatever ISO 8601 spelling it is
 * stored in (`…Z`, `….000Z`, `+00:00`, `+02:00`, `YYYY-MM-DD HH:MM:SS`): compared as text,
 * two spellings of one instant would land on different sides of a filter. One function per
 * dialect, so that time-zone-aware buckets can build on it.
 */
export function instant(expression: SQL, dialect: Dialect): SQL {
  return dialect === "sqlite" ? sqliteInstant(expression) : postgresInstant(expression);
}

/**
 * SQLite reads any of those spellings (an offset is applied, no offset is UTC) and writes
 * one: `YYYY-MM-DDTHH:MM:SS.SSSZ`, fixed width, so text order is time order — and it is
 * exactly JavaScript's `toISOString()`, the spelling filter values are bound in. A value it
 * cannot read is NULL.
 */
export function sqliteInstant(expression: SQL): SQL {
  return sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${expression})`;
}

/**
 * PostgreSQL: a timestamptz, from ISO text, a date, a timestamp (read in the run's time
 * zone, UTC) or a timestamptz alike.
 */
export function postgresInstant(expression: SQL): SQL {
  return sql`CAST(${expression} AS timestamptz)`;
}

/** A column of the dataset's subquery (`"dataset"."name"`). */
export function ref(name: string): SQL {
  return sql`${sql.identifier("dataset")}.${sql.identifier(name)}`;
}

export function aggregateAllowed(aggregate: Aggregate, type: ColumnType): boolean {
  if (aggregate === "sum" || aggregate === "avg") return NUMERIC.includes(type);
  if (aggregate === "min" || aggregate === "max") return type !== "BOOLEAN";
  return true;
}

export function aggregateType(aggregate: Aggregate, type: ColumnType): ColumnType {
  if (aggregate === "count" || aggregate === "count_distinct") return "INTEGER";
  if (aggregate === "avg") return "FLOAT";
  return type;
}

export function aggregated(aggregate: Exclude<Aggregate, "count">, column: SQL, type: ColumnType, dialect: Dialect): SQL {
  switch (aggregate) {
    case "count_distinct":
      return sql`count(DISTINCT ${isInstant(type) ? instant(column, dialect) : column})`;
    case "sum":
      return sql`sum(${column})`;
    // PostgreSQL's avg of integers is numeric (arbitrary precision); both answer a double.
    case "avg":
      return dialect === "postgres" ? sql`CAST(avg(${column}) AS double precision)` : sql`avg(${column})`;
    case "min":
    case "max": {
      const fn = sql.raw(aggregate);
      if (type === "STRING") return sql`${fn}(${textOrder(column, dialect)})`;
      // The earliest and latest instant, not the first and last spelling.
      return isInstant(type) ? sql`${fn}(${instant(column, dialect)})` : sql`${fn}(${column})`;
    }
  }
}

/**
 * Text compared byte by byte on both databases: PostgreSQL's collation (e.g. en_US) would
 * sort and pick min/max differently from SQLite's BINARY.
 */
function textOrder(expression: SQL, dialect: Dialect): SQL {
  return dialect === "postgres" ? sql`CAST(${expression} AS text) COLLATE "C"` : expression;
}

/**
 * NULLs first ascending, last descending — SQLite's default, spelled out for PostgreSQL.
 * (A date-time comes here as its instant: see the compiler's ordering keys.)
 */
export function ordered(expression: SQL, type: ColumnType, direction: "asc" | "desc", dialect: Dialect): SQL {
  const key = type === "STRING" ? textOrder(expression, dialect) : expression;
  return direction === "desc" ? sql`${key} DESC NULLS LAST` : sql`${key} ASC NULLS FIRST`;
}

/** The one-row subquery a zoned statement joins: the zone's offsets (D1) or its name (PostgreSQL). */
export const ZONE = "__zone";

/**
 * The FROM item that carries the view's zone once per statement, so that the SELECT, GROUP BY
 * and ORDER BY spell the same bucket expression (PostgreSQL requires the grouped expression
 * verbatim; a parameter bound three times would be three different expressions). On D1 it
 * is the zone's offset transitions over the data's range as one JSON parameter
 * (`[["", 3600], ["2026-03-29T01:00:00.000Z", 7200], …]`, see lib/zone-offsets.ts),
 * whatever their number: D1 allows 100 bound parameters per statement.
 */
export function zoneSource(dialect: Dialect, timezone: string, offsets: readonly [string, number][]): SQL {
  return dialect === "sqlite"
    ? sql`(SELECT ${JSON.stringify(offsets)} AS ${sql.identifier("offsets")}) AS ${sql.identifier(ZONE)}`
    : sql`(SELECT CAST(${timezone} AS text) AS ${sql.identifier("name")}) AS ${sql.identifier(ZONE)}`;
}

/**
 * An instant's local wall-clock time in the view's zone. D1: the instant shifted by the
 * offset of the last transition at or before it (text order is time order in the instant's
 * spelling). PostgreSQL: `AT TIME ZONE` with the zone's name, from its own zone database.
 */
function localTime(column: SQL, dialect: Dialect): SQL {
  if (dialect === "postgres") return sql`(${column} AT TIME ZONE ${sql.identifier(ZONE)}.${sql.identifier("name")})`;
  const offsets = sql`${sql.identifier(ZONE)}.${sql.identifier("offsets")}`;
  const offset = sql`(SELECT json_extract(z.value, '$[1]') FROM json_each(${offsets}) AS z WHERE json_extract(z.value, '$[0]') <= ${column} ORDER BY z.key DESC LIMIT 1)`;
  return sql`strftime('%Y-%m-%dT%H:%M:%f', ${column}, ${offset} || ' seconds')`;
}

/**
 * Buckets as text, the same on both databases, of the instant a value names (see `instant`):
 * DATETIME and TIMESTAMP values are UTC; on D1 ISO 8601 text in any spelling, on PostgreSQL
 * any of date, timestamp, timestamptz or ISO text (the run sets the transaction's time zone
 * to UTC). `zoned`: the buckets are the view's local days, weeks, months… (the statement
 * joins `zoneSource`); otherwise UTC's. A DATE is its midnight and has no zone. Weeks start
 * on Monday (ISO).
 */
export function bucketed(value: SQL, bucket: Bucket, dialect: Dialect, zoned = false): SQL {
  const moment = instant(value, dialect);
  if (dialect === "sqlite") {
    const column = zoned ? localTime(moment, dialect) : moment;
    switch (bucket) {
      case "day":
        return sql`date(${column})`;
      case "week":
        return sql`date(${column}, 'weekday 0', '-6 days')`;
      case "month":
        return sql`strftime('%Y-%m', ${column})`;
      case "quarter":
        return sql`(strftime('%Y', ${column}) || '-Q' || ((CAST(strftime('%m', ${column}) AS INTEGER) + 2) / 3))`;
      case "year":
        return sql`strftime('%Y', ${column})`;
    }
  }
  const utc = zoned ? localTime(moment, dialect) : sql`CAST(${moment} AS timestamp)`;
  switch (bucket) {
    case "day":
      return sql`to_char(${utc}, 'YYYY-MM-DD')`;
    case "week":
      return sql`to_char(date_trunc('week', ${utc}), 'YYYY-MM-DD')`;
    case "month":
      return sql`to_char(${utc}, 'YYYY-MM')`;
    case "quarter":
      return sql`to_char(${utc}, 'YYYY-"Q"Q')`;
    case "year":
      return sql`to_char(${utc}, 'YYYY')`;
  }
}

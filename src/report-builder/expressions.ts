import { sql, type SQL } from "drizzle-orm";
import type { ReportDialect, ViewZone } from "./dialect";
import type { Aggregate, Bucket, ColumnType } from "./query";

/**
 * The SQL expressions a report query's statement is built of — a column of the dataset, a
 * date bucket, an aggregate and its result type, an ordering — each from the parts of the
 * engine's description (dialect.ts), so that every engine answers the same. compiler.ts
 * assembles them into the statement.
 */

const NUMERIC: readonly ColumnType[] = ["INTEGER", "FLOAT"];
const INSTANTS: readonly ColumnType[] = ["DATETIME", "TIMESTAMP"];

/** DATETIME and TIMESTAMP: values that name an instant, compared, grouped and sorted as one. */
export function isInstant(type: ColumnType): boolean {
  return INSTANTS.includes(type);
}

/** A column of the dataset's subquery (`"dataset"."name"`, quoted for the dialect when rendered). */
export function ref(name: string): SQL {
  return sql`${sql.identifier("dataset")}.${sql.identifier(name)}`;
}

/**
 * A column as compared, grouped, counted and picked by min/max: a date-time as the instant it
 * names (compared as text, two spellings of one instant would land on different sides of a
 * filter), text case-sensitively in code point order, anything else as it is.
 */
export function columnValue(name: string, type: ColumnType, d: ReportDialect): SQL {
  if (isInstant(type)) return d.instant(ref(name));
  return type === "STRING" ? d.text(ref(name)) : ref(name);
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

export function aggregated(aggregate: Exclude<Aggregate, "count">, name: string, type: ColumnType, d: ReportDialect): SQL {
  switch (aggregate) {
    case "count_distinct":
      return sql`count(DISTINCT ${columnValue(name, type, d)})`;
    case "sum":
      return sql`sum(${ref(name)})`;
    case "avg":
      return d.avg(ref(name));
    case "min":
    case "max": {
      // The earliest and latest instant, not the first and last spelling; text in code point order.
      const value = columnValue(name, type, d);
      return sql`${sql.raw(aggregate)}(${type === "STRING" ? d.textOrder(value) : value})`;
    }
  }
}

/**
 * NULLs first ascending, last descending (SQLite's default) on every engine.
 * (A date-time comes here as its instant: see the compiler's ordering keys.)
 */
export function ordered(expression: SQL, type: ColumnType, direction: "asc" | "desc", d: ReportDialect): SQL {
  return d.ordered(type === "STRING" ? d.textOrder(expression) : expression, direction);
}

/** The FROM item a zoned statement joins, when its dialect needs one (dialect.ts `zoneSource`). */
export const ZONE = "__zone";

/**
 * Buckets as text, the same on every engine, of the instant a value names (see `columnValue`):
 * DATETIME and TIMESTAMP values are UTC. `zone`: the buckets are the view's local days,
 * weeks, months… (the statement joins the dialect's `zoneSource`); otherwise UTC's. A DATE is
 * its midnight and has no zone. Weeks start on Monday (ISO).
 */
export function bucketed(value: SQL, bucket: Bucket, d: ReportDialect, zone?: ViewZone): SQL {
  const moment = d.instant(value);
  return d.bucket(zone ? d.localTime(moment, zone) : d.utcTime(moment), bucket);
}

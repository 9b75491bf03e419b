import type { SQL } from "drizzle-orm";
import type { Dialect, Param } from "../data/placeholders";
import { clickhouseReport } from "./dialects/clickhouse";
import { mysqlReport } from "./dialects/mysql";
import { postgresReport } from "./dialects/postgres";
import { sqliteReport } from "./dialects/sqlite";
import type { Bucket } from "./query";

/**
 * What the one report compiler (compiler.ts) needs to know of an engine, in one description
 * per engine (dialects/<engine>.ts). The compiler, expressions.ts and filter-conditions.ts
 * build every statement of the same shape from these parts and never ask which engine it is:
 * adding an engine is adding one description here, and its tests (the same rows answer the
 * same on every engine, test/report-builder/compiler.test.ts).
 *
 * Every part takes and returns drizzle `SQL` fragments: names go through `sql.identifier`,
 * values through `${value}`, and `render` alone decides how the engine spells them.
 */
export interface ReportDialect {
  /** The statement as sent: identifiers quoted for the engine, every value a bound parameter in its placeholder syntax. */
  render(statement: SQL): { sql: string; params: Param[] };
  /** `LIMIT n` (`n` is our own integer: bound where the engine allows it). */
  limit(rows: number): SQL;

  // ---- values as bound -------------------------------------------------------------------
  /** A boolean filter value. */
  booleanValue(value: boolean): Param;
  /** A date-time filter value, given in UTC as `toISOString()` spells it (fraction digits may be more than three). */
  instantValue(utc: string): Param;

  // ---- expressions -----------------------------------------------------------------------
  /**
   * A DATETIME or TIMESTAMP value (a column, or a bound `instantValue`) as the instant it
   * names, whatever ISO 8601 spelling or engine type it is stored in: what comparisons,
   * grouping, sorting, min/max and buckets read.
   */
  instant(value: SQL): SQL;
  /** A STRING column as compared, grouped and counted: case-sensitive, every code point distinct. */
  text(value: SQL): SQL;
  /** A STRING expression (already `text`) as sorted and as min/max pick: code point order. */
  textOrder(value: SQL): SQL;
  /** Lower-cased text for `contains` / `starts_with`. */
  lower(value: SQL): SQL;
  /** The `ESCAPE` clause that makes `\` the LIKE escape (spelled for the engine's string literals). */
  likeEscape: SQL;
  /** `avg` answered as a double. */
  avg(value: SQL): SQL;
  /** An ORDER BY term: NULLs first ascending, last descending (SQLite's default) on every engine. */
  ordered(key: SQL, direction: "asc" | "desc"): SQL;
  /** `in` / `not_in` (1–100 values, already typed); NULL semantics of `IN` / `NOT IN`. */
  inList(value: SQL, negated: boolean, values: Param[], instants: boolean): SQL;

  // ---- buckets and the view's time zone --------------------------------------------------
  /**
   * How the view's zone reaches the statement. `named`: the engine has a zone database, the
   * zone's name is bound once. `offsets`: it has none (D1) or may have none loaded (MySQL):
   * the compiler first gives a range statement (earliest and latest instant under the same
   * filters), and the Worker's offset transitions over that range (lib/zone-offsets.ts) are
   * then bound into the statement.
   */
  zone: "named" | "offsets";
  /**
   * The FROM item that carries the zone once per statement (`ZONE` of expressions.ts), so that
   * SELECT, GROUP BY and ORDER BY spell the same bucket expression verbatim (PostgreSQL
   * requires the grouped expression verbatim; a parameter bound three times would be three
   * different expressions); none when `localTime` needs no such item.
   */
  zoneSource(zone: ViewZone): SQL | undefined;
  /** An instant as the local wall-clock time of the view's zone. */
  localTime(moment: SQL, zone: ViewZone): SQL;
  /** An instant as UTC wall-clock time, what buckets read outside a zone. */
  utcTime(moment: SQL): SQL;
  /** A wall-clock time's bucket as text: `2026-03-29`, its week's Monday, `2026-03`, `2026-Q1`, `2026`. */
  bucket(wallClock: SQL, bucket: Bucket): SQL;
}

/**
 * The view's zone as a statement gets it: its IANA name, and (for `offsets` dialects, once the
 * range statement has told the data's range) its offsets over that range:
 * `[["", offset at the range's start], [first instant of the next offset as toISOString()
 * spells it, offset], …]`, offsets in seconds, east positive. Until then `[["", 0]]`.
 */
export interface ViewZone {
  name: string;
  offsets: readonly [string, number][];
}

const dialects: Record<Dialect, ReportDialect> = {
  sqlite: sqliteReport,
  postgres: postgresReport,
  mysql: mysqlReport,
  clickhouse: clickhouseReport,
};

/** The description of an engine's SQL the compiler builds with. */
export function reportDialect(dialect: Dialect): ReportDialect {
  return dialects[dialect];
}

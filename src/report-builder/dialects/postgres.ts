import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Param } from "../../data/placeholders";
import type { ReportDialect } from "../dialect";
import { ZONE } from "../expressions";

const drizzle = new PgDialect();

/** A timestamptz, from ISO text, a date, a timestamp (read in the run's time zone, UTC) or a timestamptz alike. */
function instant(expression: SQL): SQL {
  return sql`CAST(${expression} AS timestamptz)`;
}

/** A PostgreSQL array literal (`{"a","b\\"c"}` for a and b"c): every element quoted, `"` and a backslash escaped. */
function postgresArray(values: Param[]): string {
  const element = (value: Param) => `"${String(value).replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;
  return `{${values.map(element).join(",")}}`;
}

/**
 * PostgreSQL (through Hyperdrive): `$n` parameters, `"` names, its own zone database; the
 * run's transaction is in UTC (`SET LOCAL TIME ZONE 'UTC'`).
 */
export const postgresReport: ReportDialect = {
  render: (statement) => {
    const { sql: text, params } = drizzle.sqlToQuery(statement);
    return { sql: text, params: params as Param[] };
  },
  limit: (rows) => sql`LIMIT ${rows}`,
  booleanValue: (value) => value,
  instantValue: (utc) => utc,
  instant,
  text: (value) => value,
  // Byte order like SQLite's BINARY: the database's collation (e.g. en_US) would sort and pick min/max differently.
  textOrder: (value) => sql`CAST(${value} AS text) COLLATE "C"`,
  lower: (value) => sql`lower(CAST(${value} AS text))`,
  likeEscape: sql`ESCAPE '\\'`,
  // PostgreSQL's avg of integers is numeric (arbitrary precision): a double, as on the others.
  avg: (value) => sql`CAST(avg(${value}) AS double precision)`,
  ordered: (key, direction) => (direction === "desc" ? sql`${key} DESC NULLS LAST` : sql`${key} ASC NULLS FIRST`),
  /**
   * One array literal compared with `= ANY` / `<> ALL`, so PostgreSQL types the array by the
   * column as it types a single value (date-times cast to timestamptz[]).
   */
  inList: (value, negated, values, instants) => {
    const literal = postgresArray(values);
    const array = instants ? sql`CAST(${literal} AS timestamptz[])` : sql`${literal}`;
    return negated ? sql`${value} <> ALL(${array})` : sql`${value} = ANY(${array})`;
  },
  zone: "named",
  zoneSource: ({ name }) => sql`(SELECT CAST(${name} AS text) AS ${sql.identifier("name")}) AS ${sql.identifier(ZONE)}`,
  localTime: (moment) => sql`(${moment} AT TIME ZONE ${sql.identifier(ZONE)}.${sql.identifier("name")})`,
  utcTime: (moment) => sql`CAST(${moment} AS timestamp)`,
  bucket: (time, bucket): SQL => {
    switch (bucket) {
      case "day":
        return sql`to_char(${time}, 'YYYY-MM-DD')`;
      case "week":
        return sql`to_char(date_trunc('week', ${time}), 'YYYY-MM-DD')`;
      case "month":
        return sql`to_char(${time}, 'YYYY-MM')`;
      case "quarter":
        return sql`to_char(${time}, 'YYYY-"Q"Q')`;
      case "year":
        return sql`to_char(${time}, 'YYYY')`;
    }
  },
};

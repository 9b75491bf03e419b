import { sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Param } from "../../data/placeholders";
import { jsonList } from "../../db/json-list";
import type { ReportDialect } from "../dialect";
import { ZONE } from "../expressions";

const drizzle = new SQLiteAsyncDialect();

/**
 * SQLite reads any ISO 8601 spelling (an offset is applied, no offset is UTC) and writes
 * one: `YYYY-MM-DDTHH:MM:SS.SSSZ`, fixed width, so text order is time order — and it is
 * exactly JavaScript's `toISOString()`, the spelling filter values are bound in. A value it
 * cannot read is NULL.
 */
function instant(expression: SQL): SQL {
  return sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${expression})`;
}

/** SQLite (D1): `?` parameters, `"` names, no zone database, text compared byte by byte (BINARY). */
export const sqliteReport: ReportDialect = {
  render: (statement) => {
    const { sql: text, params } = drizzle.sqlToQuery(statement);
    return { sql: text, params: params as Param[] };
  },
  limit: (rows) => sql`LIMIT ${rows}`,
  // SQLite has no booleans: 0/1, as they are stored.
  booleanValue: (value) => (value ? 1 : 0),
  instantValue: (utc) => utc,
  instant,
  text: (value) => value,
  textOrder: (value) => value,
  lower: (value) => sql`lower(${value})`,
  likeEscape: sql`ESCAPE '\\'`,
  avg: (value) => sql`avg(${value})`,
  ordered: (key, direction) => (direction === "desc" ? sql`${key} DESC NULLS LAST` : sql`${key} ASC NULLS FIRST`),
  /**
   * The whole list is ONE bound parameter, whatever its length — D1 allows 100 bound
   * parameters per statement, and the dataset's own query binds some of them: a JSON array
   * read by `json_each` (the values are already in the column's terms: 0/1 for booleans;
   * date-times through `instant` as on the column's side).
   */
  inList: (value, negated, values, instants) => {
    const items = values.filter((v): v is string | number => typeof v === "string" || typeof v === "number");
    const list = instants
      ? sql`(SELECT ${instant(sql`${sql.identifier("value")}`)} FROM json_each(${JSON.stringify(items)}))`
      : jsonList(items);
    return negated ? sql`${value} NOT IN ${list}` : sql`${value} IN ${list}`;
  },
  zone: "offsets",
  /**
   * The zone's offset transitions over the data's range as one JSON parameter
   * (`[["", 3600], ["2026-03-29T01:00:00.000Z", 7200], …]`, see lib/zone-offsets.ts),
   * whatever their number: D1 allows 100 bound parameters per statement.
   */
  zoneSource: ({ offsets }) => sql`(SELECT ${JSON.stringify(offsets)} AS ${sql.identifier("offsets")}) AS ${sql.identifier(ZONE)}`,
  /** The instant shifted by the offset of the last transition at or before it (text order is time order in the instant's spelling). */
  localTime: (moment) => {
    const offsets = sql`${sql.identifier(ZONE)}.${sql.identifier("offsets")}`;
    const offset = sql`(SELECT json_extract(z.value, '$[1]') FROM json_each(${offsets}) AS z WHERE json_extract(z.value, '$[0]') <= ${moment} ORDER BY z.key DESC LIMIT 1)`;
    return sql`strftime('%Y-%m-%dT%H:%M:%f', ${moment}, ${offset} || ' seconds')`;
  },
  utcTime: (moment) => moment,
  bucket: (time, bucket): SQL => {
    switch (bucket) {
      case "day":
        return sql`date(${time})`;
      case "week":
        return sql`date(${time}, 'weekday 0', '-6 days')`;
      case "month":
        return sql`strftime('%Y-%m', ${time})`;
      case "quarter":
        return sql`(strftime('%Y', ${time}) || '-Q' || ((CAST(strftime('%m', ${time}) AS INTEGER) + 2) / 3))`;
      case "year":
        return sql`strftime('%Y', ${time})`;
    }
  },
};

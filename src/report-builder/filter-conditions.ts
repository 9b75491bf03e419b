import { sql, type SQL } from "drizzle-orm";
import type { StoredTable } from "../blueprints/schemas";
import type { ReportFilter } from "../data/filters";
import type { Param } from "../data/placeholders";
import { ApiError } from "../http/errors";
import { startOfLocalDay } from "../lib/zone-offsets";
import type { ReportDialect } from "./dialect";
import { isInstant, columnValue } from "./expressions";

/**
 * A report query's filters (and a token's locked filters): each value typed as its column's
 * type binds it (a value of the wrong type is 400, with the value's field), then the filter
 * as a WHERE condition (an op the column's type does not have is 422 filter_not_allowed).
 * Values are only ever bound.
 */

type Column = StoredTable["columns"][number];

const ORDERING_OPS = new Set(["gt", "gte", "lt", "lte", "between"]);
const TEXT_OPS = new Set(["contains", "starts_with"]);

/** Whether the column's type has this op: text ops only on text, no ordering of booleans. */
export function opFitsColumn(op: ReportFilter["op"], column: Column): boolean {
  return !((TEXT_OPS.has(op) && column.type !== "STRING") || (ORDERING_OPS.has(op) && column.type === "BOOLEAN"));
}

/**
 * A filter's values as the column's type binds them; a value of the wrong type is 400.
 * `timezone` (the view's, when not UTC): a date-only value on a date-time column is that
 * local day's first instant.
 */
export function typedFilter(filter: ReportFilter, column: Column, d: ReportDialect, field: string, timezone?: string): Param[] {
  if (filter.op === "is_null" || filter.op === "is_not_null") return [];
  // An op the column's type does not have is 422 filter_not_allowed, whatever its value.
  if (!opFitsColumn(filter.op, column)) return [];
  if (filter.values !== undefined && filter.value === undefined) {
    return filter.values.map((value, i) => typedValue(value, column, d, `${field}.values.${i}`, timezone));
  }
  if (TEXT_OPS.has(filter.op)) {
    if (typeof filter.value !== "string") throw new ApiError("validation_error", `${field}.value: must be text.`, `${field}.value`);
    return [filter.value];
  }
  return [typedValue(filter.value, column, d, `${field}.value`, timezone)];
}

const ISO_DATE = /^(\d{4})-(\d\d)-(\d\d)$/;

function typedValue(value: unknown, column: Column, d: ReportDialect, field: string, timezone?: string): Param {
  const refuse = (what: string): never => {
    throw new ApiError("validation_error", `${field}: must be ${what} (column '${column.name}' is ${column.type}).`, field);
  };
  switch (column.type) {
    case "INTEGER":
      return typeof value === "number" && Number.isSafeInteger(value) ? value : refuse("an integer");
    case "FLOAT":
      return typeof value === "number" && Number.isFinite(value) ? value : refuse("a number");
    case "BOOLEAN":
      return typeof value === "boolean" ? d.booleanValue(value) : refuse("true or false");
    case "STRING":
      return typeof value === "string" ? value : refuse("text");
    case "DATE": {
      const match = typeof value === "string" ? ISO_DATE.exec(value) : null;
      if (!match) return refuse("an ISO date (YYYY-MM-DD)");
      const date = new Date(Date.UTC(+match[1], +match[2] - 1, +match[3]));
      return date.toISOString().slice(0, 10) === value ? (value as string) : refuse("a real date (YYYY-MM-DD)");
    }
    case "DATETIME":
    case "TIMESTAMP": {
      if (typeof value !== "string") return refuse("an ISO 8601 date-time (e.g. 2026-03-29T01:30:00Z)");
      const utc = utcSpelling(value, timezone);
      return utc === null ? refuse("a real ISO 8601 date-time (e.g. 2026-03-29T01:30:00Z)") : d.instantValue(utc);
    }
  }
}

const ISO_DATETIME = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?(Z|([+-])(\d\d):?(\d\d))?)?$/;

/**
 * A date-time value in UTC, spelled as `toISOString()` spells it (`2026-03-29T01:30:00.000Z`,
 * the spelling SQLite's instants are written in), or null when it is not a real ISO 8601 date-time.
 * No offset means UTC. Digits past the millisecond are kept, so both databases read the value
 * as precisely as the rows it is compared with. A date alone in a zone other than UTC is that
 * local day's first instant.
 */
function utcSpelling(text: string, timezone?: string): string | null {
  const m = ISO_DATETIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((part) =>
    part === undefined ? undefined : Number(part),
  ) as number[];
  const offsetMinutes = m[9] === undefined ? 0 : (m[9] === "-" ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  if (hour > 23 || minute > 59 || second > 59 || Number(m[10] ?? 0) > 23 || Number(m[11] ?? 0) > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  date.setUTCHours(hour, minute - offsetMinutes, second, 0);
  // Date.UTC reads years 0–99 as 1900–1999; those, like years past 9999, are refused below anyway.
  const local = timezone !== undefined && m[4] === undefined && year >= 100;
  const whole = local ? new Date(startOfLocalDay(timezone, year, month, day)).toISOString() : date.toISOString();
  if (!/^\d{4}-/.test(whole)) return null;
  return `${whole.slice(0, 19)}.${(m[7] ?? "").padEnd(3, "0")}Z`;
}

export function condition(filter: ReportFilter, column: Column, values: Param[], d: ReportDialect, field: string): SQL {
  if (TEXT_OPS.has(filter.op) && column.type !== "STRING") {
    throw new ApiError("filter_not_allowed", `'${filter.op}' works on text; column '${column.name}' is ${column.type}.`, `${field}.op`);
  }
  if (ORDERING_OPS.has(filter.op) && column.type === "BOOLEAN") {
    throw new ApiError("filter_not_allowed", `'${filter.op}' cannot compare column '${column.name}' (BOOLEAN).`, `${field}.op`);
  }
  // Date-times compare as the instants they name, on both sides, not as the text they are
  // spelled in (a row's `…00Z` equals a value's `….000Z`); text case-sensitively.
  const instants = isInstant(column.type);
  const e = columnValue(column.name, column.type, d);
  const bound = (value: Param): SQL => (instants ? d.instant(sql`${value}`) : sql`${value}`);
  const [first, second] = values.map(bound);
  switch (filter.op) {
    case "eq":
      return sql`${e} = ${first}`;
    case "neq":
      return sql`${e} <> ${first}`;
    case "gt":
      return sql`${e} > ${first}`;
    case "gte":
      return sql`${e} >= ${first}`;
    case "lt":
      return sql`${e} < ${first}`;
    case "lte":
      return sql`${e} <= ${first}`;
    case "between":
      return sql`${e} BETWEEN ${first} AND ${second}`;
    case "in":
    case "not_in":
      return d.inList(e, filter.op === "not_in", values, instants);
    case "is_null":
      return sql`${e} IS NULL`;
    case "is_not_null":
      return sql`${e} IS NOT NULL`;
    case "contains":
    case "starts_with": {
      // Case-insensitive on every engine; % _ and \ in the value are literal.
      const escaped = String(values[0])
        .toLowerCase()
        .replace(/[\\%_]/g, (ch) => `\\${ch}`);
      const pattern = filter.op === "contains" ? `%${escaped}%` : `${escaped}%`;
      return sql`${d.lower(e)} LIKE ${pattern} ${d.likeEscape}`;
    }
  }
}

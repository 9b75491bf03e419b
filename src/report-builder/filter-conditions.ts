import { sql, type SQL } from "drizzle-orm";
import type { StoredTable } from "../blueprints/schemas";
import type { ReportFilter } from "../data/filters";
import type { Dialect, Param } from "../data/placeholders";
import { ApiError } from "../http/errors";
import { ref } from "./expressions";

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

/** A filter's values as the column's type binds them; a value of the wrong type is 400. */
export function typedFilter(filter: ReportFilter, column: Column, dialect: Dialect, field: string): Param[] {
  if (filter.op === "is_null" || filter.op === "is_not_null") return [];
  // An op the column's type does not have is 422 filter_not_allowed, whatever its value.
  if (!opFitsColumn(filter.op, column)) return [];
  if (filter.values !== undefined && filter.value === undefined) {
    return filter.values.map((value, i) => typedValue(value, column, dialect, `${field}.values.${i}`));
  }
  if (TEXT_OPS.has(filter.op)) {
    if (typeof filter.value !== "string") throw new ApiError("validation_error", `${field}.value: must be text.`, `${field}.value`);
    return [filter.value];
  }
  return [typedValue(filter.value, column, dialect, `${field}.value`)];
}

const ISO_DATE = /^(\d{4})-(\d\d)-(\d\d)$/;
const ISO_DATETIME = /^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?(?:Z|[+-]\d\d:?\d\d)?)?$/;

function typedValue(value: unknown, column: Column, dialect: Dialect, field: string): Param {
  const refuse = (what: string): never => {
    throw new ApiError("validation_error", `${field}: must be ${what} (column '${column.name}' is ${column.type}).`, field);
  };
  switch (column.type) {
    case "INTEGER":
      return typeof value === "number" && Number.isSafeInteger(value) ? value : refuse("an integer");
    case "FLOAT":
      return typeof value === "number" && Number.isFinite(value) ? value : refuse("a number");
    case "BOOLEAN":
      if (typeof value !== "boolean") return refuse("true or false");
      return dialect === "sqlite" ? (value ? 1 : 0) : value;
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
      if (typeof value !== "string" || !ISO_DATETIME.test(value)) return refuse("an ISO 8601 date-time (e.g. 2026-03-29T01:30:00Z)");
      // No offset means UTC. D1 keeps these as ISO text, so the value is compared in the
      // same spelling (`…T01:30:00.000Z`).
      const text = value as string;
      const utc = /Z|[+-]\d\d:?\d\d$/.test(text.slice(10))
        ? text.replace(" ", "T")
        : `${text.replace(" ", "T")}${text.length === 10 ? "T00:00:00" : ""}Z`;
      const date = new Date(utc);
      return Number.isNaN(date.getTime()) ? refuse("a real date-time") : date.toISOString();
    }
  }
}

export function condition(filter: ReportFilter, column: Column, values: Param[], dialect: Dialect, field: string): SQL {
  const e = ref(column.name);
  if (TEXT_OPS.has(filter.op) && column.type !== "STRING") {
    throw new ApiError("filter_not_allowed", `'${filter.op}' works on text; column '${column.name}' is ${column.type}.`, `${field}.op`);
  }
  if (ORDERING_OPS.has(filter.op) && column.type === "BOOLEAN") {
    throw new ApiError("filter_not_allowed", `'${filter.op}' cannot compare column '${column.name}' (BOOLEAN).`, `${field}.op`);
  }
  const [first, second] = values;
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
      return sql`${e} IN (${sql.join(
        values.map((v) => sql`${v}`),
        sql`, `,
      )})`;
    case "not_in":
      return sql`${e} NOT IN (${sql.join(
        values.map((v) => sql`${v}`),
        sql`, `,
      )})`;
    case "is_null":
      return sql`${e} IS NULL`;
    case "is_not_null":
      return sql`${e} IS NOT NULL`;
    case "contains":
    case "starts_with": {
      // Case-insensitive on both databases; % _ and \ in the value are literal.
      const escaped = String(first)
        .toLowerCase()
        .replace(/[\\%_]/g, (ch) => `\\${ch}`);
      const pattern = filter.op === "contains" ? `%${escaped}%` : `${escaped}%`;
      const text = dialect === "postgres" ? sql`lower(CAST(${e} AS text))` : sql`lower(${e})`;
      return sql`${text} LIKE ${pattern} ESCAPE '\\'`;
    }
  }
}

import { t } from "./words";

/** What the builder's controls name things by: column types, aggregates, date buckets, charts and filter conditions. */

export interface Column {
  name: string;
  display_name: string;
  type: string;
  can_be_grouped: boolean;
}

export interface Dataset {
  /** What queries name. */
  name: string;
  /** What the page shows: the name in the view's locale. */
  display_name?: string;
  description: string | null;
  columns: Column[];
}

/** A select's options: `[value, label]`. */
export type Options = [string, string][];

/** A column type's name on the page. */
export function typeName(type: string): string {
  const key = TYPE_KEYS[type];
  return key ? t(key) : type;
}
const TYPE_KEYS: Record<string, string> = {
  INTEGER: "type_integer",
  FLOAT: "type_number",
  STRING: "type_text",
  BOOLEAN: "type_boolean",
  DATE: "type_date",
  DATETIME: "type_datetime",
  TIMESTAMP: "type_datetime",
};

/** Options whose label is the word `<prefix><value>` (read when drawn: the words arrive with the page's boot data). */
const worded = (prefix: string, values: string[]): Options => values.map((v) => [v, t(prefix + v)]);
export const aggregates = (): Options => worded("agg_", ["count", "count_distinct", "sum", "avg", "min", "max"]);
export const buckets = (): Options => worded("bucket_", ["day", "week", "month", "quarter", "year"]);
export const charts = (): Options => worded("chart_", ["auto", "table", "bar", "line", "area", "pie", "kpi"]);
const DATE_OPS = new Set(["eq", "gt", "gte", "lt", "lte"]);

export function isNumber(type: string | undefined): boolean {
  return type === "INTEGER" || type === "FLOAT";
}

export function isDate(type: string | undefined): boolean {
  return type === "DATE" || type === "DATETIME" || type === "TIMESTAMP";
}

export function aggregateAllowed(aggregate: string, type: string | undefined): boolean {
  if (aggregate === "count" || aggregate === "count_distinct") return true;
  if (aggregate === "sum" || aggregate === "avg") return isNumber(type);
  return type !== "BOOLEAN";
}

/** The conditions a filter on a column of `type` offers, the usual one first. */
export function opsFor(type: string): string[] {
  if (isNumber(type)) return ["eq", "neq", "gt", "gte", "lt", "lte", "between", "is_null", "is_not_null"];
  if (isDate(type)) return ["between", "gte", "lte", "eq", "gt", "lt", "is_null", "is_not_null"];
  if (type === "BOOLEAN") return ["eq", "is_null", "is_not_null"];
  return ["in", "not_in", "eq", "neq", "contains", "starts_with", "is_null", "is_not_null"];
}

export function opLabel(op: string, type: string): string {
  return t(isDate(type) && DATE_OPS.has(op) ? `date_${op}` : `op_${op}`);
}

export function chartLabel(type: string): string {
  for (const [value, label] of charts()) if (value === type) return label;
  return type;
}

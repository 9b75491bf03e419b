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

export const TYPE_NAMES: Record<string, string> = {
  INTEGER: "Whole number",
  FLOAT: "Number",
  STRING: "Text",
  BOOLEAN: "Yes / no",
  DATE: "Date",
  DATETIME: "Date and time",
  TIMESTAMP: "Date and time",
};
export const AGGREGATES: Options = [
  ["count", "Count of rows"],
  ["count_distinct", "Distinct count"],
  ["sum", "Sum"],
  ["avg", "Average"],
  ["min", "Minimum"],
  ["max", "Maximum"],
];
export const BUCKETS: Options = [
  ["day", "Day"],
  ["week", "Week"],
  ["month", "Month"],
  ["quarter", "Quarter"],
  ["year", "Year"],
];
export const CHARTS: Options = [
  ["auto", "Automatic"],
  ["table", "Table"],
  ["bar", "Bar"],
  ["line", "Line"],
  ["area", "Area"],
  ["pie", "Pie"],
  ["kpi", "Single number (KPI)"],
];
const OP_LABELS: Record<string, string> = {
  eq: "is",
  neq: "is not",
  gt: "greater than",
  gte: "at least",
  lt: "less than",
  lte: "at most",
  between: "between",
  in: "is one of",
  not_in: "is none of",
  contains: "contains",
  starts_with: "starts with",
  is_null: "is empty",
  is_not_null: "is not empty",
};
const DATE_OP_LABELS: Record<string, string> = {
  eq: "on",
  gt: "after",
  gte: "on or after",
  lt: "before",
  lte: "on or before",
  between: "between",
};

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
  return (isDate(type) && DATE_OP_LABELS[op]) || OP_LABELS[op];
}

export function chartLabel(type: string): string {
  for (const [value, label] of CHARTS) if (value === type) return label;
  return type;
}

/** The controls' choices (`State`) and the report query and chart they make (docs/report-builder.md). */
import { t } from "./words";
import { type Column, type Dataset, chartLabel, isNumber } from "./vocabulary";

export interface GroupChoice {
  column: string;
  bucket?: string;
}
export interface ValueChoice {
  aggregate: string;
  column: string;
}
/** A filter as its controls hold it: text, whatever the column's type (`values` for "between" and lists). */
export interface FilterChoice {
  column: string;
  op: string;
  value: string;
  values: string[];
}
export interface SortKey {
  column: string;
  direction: "asc" | "desc";
}

export interface State {
  dataset: string;
  mode: "summary" | "records";
  groups: GroupChoice[];
  values: ValueChoice[];
  columns: string[];
  filters: FilterChoice[];
  sort: SortKey[];
  chart: string;
  /** What the name field holds. */
  name?: string;
}

export interface QueryFilter {
  column: string;
  op: string;
  value?: unknown;
  values?: unknown[];
}
export type QueryValue = { aggregate: "count" } | { column: string; aggregate: string };
interface QueryBase {
  dataset: string;
  filters?: QueryFilter[];
  sort?: SortKey[];
}
export interface RecordsQuery extends QueryBase {
  columns: string[];
}
export interface SummaryQuery extends QueryBase {
  group_by: GroupChoice[];
  values: QueryValue[];
}
export type Query = RecordsQuery | SummaryQuery;

export interface Chart {
  type: string;
  x?: string;
  y?: string[];
}

export function blankState(dataset: string): State {
  return {
    dataset,
    mode: "summary",
    groups: [],
    values: [{ aggregate: "count", column: "" }],
    columns: [],
    filters: [],
    sort: [],
    chart: "auto",
  };
}

export function columnOf(dataset: Dataset | null, name: string): Column | null {
  if (!dataset) return null;
  for (const column of dataset.columns) if (column.name === name) return column;
  return null;
}

function filterIsComplete(f: FilterChoice): boolean {
  if (!f.column || !f.op) return false;
  if (f.op === "is_null" || f.op === "is_not_null") return true;
  if (f.op === "in" || f.op === "not_in") return f.values.length > 0;
  if (f.op === "between") return f.values.length === 2 && f.values[0] !== "" && f.values[1] !== "";
  return f.value !== "";
}

function typed(value: string, type: string | undefined): unknown {
  if (isNumber(type)) return Number(value);
  if (type === "BOOLEAN") return value === "true";
  return value;
}

function queryFilter(f: FilterChoice, dataset: Dataset | null): QueryFilter {
  const type = columnOf(dataset, f.column)?.type;
  const out: QueryFilter = { column: f.column, op: f.op };
  if (f.op === "in" || f.op === "not_in" || f.op === "between") out.values = f.values.map((v) => typed(v, type));
  else if (f.op !== "is_null" && f.op !== "is_not_null") out.value = typed(f.value, type);
  return out;
}

export function groupResultName(g: GroupChoice): string {
  return g.bucket ? `${g.column}_${g.bucket}` : g.column;
}

export function valueResultName(v: QueryValue): string {
  return "column" in v ? `${v.aggregate}_${v.column}` : "count";
}

/** The query the controls make: only complete filters, only sorts on a column of the result. */
export function buildQuery(state: State, dataset: Dataset | null): Query {
  let query: Query;
  let names: string[];
  if (state.mode === "records") {
    const columns = state.columns.length ? state.columns.slice() : (dataset?.columns ?? []).map((c) => c.name);
    query = { dataset: state.dataset, columns };
    names = columns;
  } else {
    const groups = state.groups
      .filter((g) => g.column)
      .map((g) => (g.bucket ? { column: g.column, bucket: g.bucket } : { column: g.column }));
    let values = state.values
      .filter((v) => v.aggregate === "count" || v.column)
      .map((v): QueryValue => (v.aggregate === "count" ? { aggregate: "count" } : { column: v.column, aggregate: v.aggregate }));
    if (groups.length === 0 && values.length === 0) values = [{ aggregate: "count" }];
    query = { dataset: state.dataset, group_by: groups, values };
    names = groups.map(groupResultName).concat(values.map(valueResultName));
  }
  const filters = state.filters.filter(filterIsComplete).map((f) => queryFilter(f, dataset));
  if (filters.length) query.filters = filters;
  const sort = state.sort.filter((s) => names.indexOf(s.column) >= 0);
  if (sort.length) query.sort = sort;
  return query;
}

function autoChart(query: Query): string {
  if ("columns" in query) return "table";
  const { group_by: groups, values } = query;
  if (groups.length === 0) return values.length === 1 ? "kpi" : "table";
  if (values.length === 0 || groups.length > 1) return "table";
  return groups[0].bucket ? "line" : "bar";
}

/** What can be drawn of `chosen` (a chart type or "auto"): a chart the query cannot feed falls back to a table, with a note. */
export function chartFor(query: Query, chosen: string): { chart: Chart; note: string } {
  let type = chosen === "auto" ? autoChart(query) : chosen;
  let note = "";
  if (!("columns" in query)) {
    const x = query.group_by[0] ? groupResultName(query.group_by[0]) : undefined;
    let y = query.values.map(valueResultName);
    const needsGroup = type === "bar" || type === "line" || type === "area" || type === "pie";
    if ((needsGroup && (!x || y.length === 0)) || (type === "kpi" && y.length === 0)) {
      note = t("chart_needs", { chart: chartLabel(type) });
      type = "table";
    }
    if (type === "pie") y = y.slice(0, 1);
    if (type === "kpi") return { chart: { type: "kpi", y: y.slice(0, 1) }, note };
    if (type !== "table") return { chart: { type, x, y }, note };
  } else if (type !== "table") {
    note = t("records_table");
  }
  return { chart: { type: "table" }, note };
}

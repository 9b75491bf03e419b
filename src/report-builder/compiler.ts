import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { StoredTable } from "../blueprints/schemas";
import type { ReportFilter } from "../data/filters";
import { splitPlaceholders, type Dialect, type Param, type PlaceholderContext } from "../data/placeholders";
import { ApiError } from "../http/errors";
import { DEFAULT_REPORT_LIMIT, type Aggregate, type Bucket, type ColumnType, type ReportQuery, type ResultColumn } from "./query";

/**
 * The one compiler from a report query to SQL, for SQLite (D1) and PostgreSQL.
 *
 * It is written with drizzle-orm's `sql` template — the library the service already uses
 * for D1 — and rendered by drizzle's own SQLite and PostgreSQL dialects: `sql.identifier`
 * quotes a name for the dialect (`"` doubled), every `${value}` becomes a bound parameter
 * (`?` or `$n`, numbered by the dialect). Kysely would do the same but adds a second query
 * library next to drizzle for one statement shape; the statement here is one fixed shape
 * whose dialect differences (buckets, collation, `avg`'s type) are a handful of
 * expressions either way.
 *
 * Identifiers only ever come from the blueprint's declarations (a name the query gives
 * that the blueprint does not declare is `unknown_column`); values are only ever bound.
 */

const dialects = { sqlite: new SQLiteAsyncDialect(), postgres: new PgDialect() };

export interface CompileInput {
  table: StoredTable;
  query: ReportQuery;
  /** The token's locked filters on this dataset: ANDed in, not part of what is saved. */
  locked: ReportFilter[];
  dialect: Dialect;
  context: PlaceholderContext;
  /** QUERY_ROW_LIMIT: the most a query may ask for. */
  rowLimit: number;
}

export interface CompiledQuery {
  sql: string;
  params: Param[];
  columns: ResultColumn[];
  /** Rows wanted; the statement asks for one more to tell `truncated`. */
  limit: number;
}

type Column = StoredTable["columns"][number];

const BUCKETABLE: readonly ColumnType[] = ["DATE", "DATETIME", "TIMESTAMP"];
const NUMERIC: readonly ColumnType[] = ["INTEGER", "FLOAT"];
const ORDERING_OPS = new Set(["gt", "gte", "lt", "lte", "between"]);
const TEXT_OPS = new Set(["contains", "starts_with"]);

const bucketLabel: Record<Bucket, string> = { day: "day", week: "week", month: "month", quarter: "quarter", year: "year" };
const aggregateLabel: Record<Aggregate, (x: string) => string> = {
  count: () => "Count",
  count_distinct: (x) => `Distinct ${x}`,
  sum: (x) => `Sum of ${x}`,
  avg: (x) => `Average of ${x}`,
  min: (x) => `Min of ${x}`,
  max: (x) => `Max of ${x}`,
};

/** The names a query's result has, in order (what `sort` and `chart` may name). */
export function resultNames(query: ReportQuery): string[] {
  if (query.columns) return [...query.columns];
  return [
    ...(query.group_by ?? []).map((g) => (g.bucket ? `${g.column}_${g.bucket}` : g.column)),
    ...(query.values ?? []).map((v) => (v.aggregate === "count" ? "count" : `${v.aggregate}_${v.column}`)),
  ];
}

/** The dataset a query names, or 422 unknown_dataset. */
export function datasetOf(tables: StoredTable[], name: string, field = "dataset"): StoredTable {
  const table = tables.find((t) => t.dataset_name === name);
  if (!table) throw new ApiError("unknown_dataset", `There is no dataset '${name}'.`, field);
  return table;
}

/**
 * Checks the query against the blueprint (every error before anything runs, in the order
 * of the contract: 400 value types, then 422 names and rules) and compiles it.
 */
export function compileReportQuery(input: CompileInput): CompiledQuery {
  const { table, query, dialect } = input;
  const columnsByName = new Map(table.columns.map((c) => [c.name, c]));
  const columnOf = (name: string) => columnsByName.get(name);

  // ---- 400: shapes that need the blueprint's types -----------------------------------------
  const names = resultNames(query);
  const duplicate = names.findIndex((name, i) => names.indexOf(name) !== i);
  if (duplicate >= 0) {
    const field = query.columns
      ? `columns.${duplicate}`
      : duplicate < (query.group_by?.length ?? 0)
        ? `group_by.${duplicate}.column`
        : `values.${duplicate - (query.group_by?.length ?? 0)}.column`;
    throw new ApiError("validation_error", `${field}: the result already has a column '${names[duplicate]}'.`, field);
  }
  if (query.limit !== undefined && query.limit > input.rowLimit) {
    throw new ApiError("validation_error", `limit: must be at most ${input.rowLimit} (QUERY_ROW_LIMIT).`, "limit");
  }
  const typed = (query.filters ?? []).map((filter, i) => {
    const column = columnOf(filter.column);
    return column ? typedFilter(filter, column, dialect, `filters.${i}`) : null;
  });

  // ---- 422: names and rules, in the order the query is written ------------------------------
  const known = (name: string, field: string): Column => {
    const column = columnOf(name);
    if (!column) throw new ApiError("unknown_column", `Dataset '${table.dataset_name}' has no column '${name}'.`, field);
    return column;
  };
  const result: { column: ResultColumn; expression: SQL }[] = [];
  const groups: SQL[] = [];
  if (query.columns) {
    query.columns.forEach((name, i) => {
      const column = known(name, `columns.${i}`);
      result.push({ column: { name, display_name: column.display_name, type: column.type }, expression: ref(name) });
    });
  } else {
    (query.group_by ?? []).forEach((group, i) => {
      const column = known(group.column, `group_by.${i}.column`);
      if (!column.can_be_grouped)
        throw new ApiError("column_not_groupable", `Column '${group.column}' cannot be grouped.`, `group_by.${i}.column`);
      if (group.bucket && !BUCKETABLE.includes(column.type)) {
        throw new ApiError(
          "bucket_not_allowed",
          `Column '${group.column}' is ${column.type}; only DATE, DATETIME and TIMESTAMP columns have buckets.`,
          `group_by.${i}.bucket`,
        );
      }
      const expression = group.bucket ? bucketed(ref(group.column), group.bucket, dialect) : ref(group.column);
      groups.push(expression);
      result.push({
        column: group.bucket
          ? {
              name: `${group.column}_${group.bucket}`,
              display_name: `${column.display_name} (${bucketLabel[group.bucket]})`,
              type: "STRING",
            }
          : { name: group.column, display_name: column.display_name, type: column.type },
        expression,
      });
    });
    (query.values ?? []).forEach((value, i) => {
      if (value.aggregate === "count") {
        result.push({ column: { name: "count", display_name: "Count", type: "INTEGER" }, expression: sql`count(*)` });
        return;
      }
      const column = known(value.column as string, `values.${i}.column`);
      if (!aggregateAllowed(value.aggregate, column.type)) {
        throw new ApiError(
          "aggregate_not_allowed",
          `${value.aggregate} cannot be used on column '${column.name}' (${column.type}).`,
          `values.${i}.aggregate`,
        );
      }
      result.push({
        column: {
          name: `${value.aggregate}_${column.name}`,
          display_name: aggregateLabel[value.aggregate](column.display_name),
          type: aggregateType(value.aggregate, column.type),
        },
        expression: aggregated(value.aggregate, ref(column.name), column.type, dialect),
      });
    });
  }
  const conditions: SQL[] = [];
  (query.filters ?? []).forEach((filter, i) => {
    const column = known(filter.column, `filters.${i}.column`);
    conditions.push(condition(filter, column, typed[i] ?? typedFilter(filter, column, dialect, `filters.${i}`), dialect, `filters.${i}`));
  });
  // The token's locked filters were checked when it was minted; a blueprint changed since
  // must not drop one silently (that would widen what the link shows).
  input.locked.forEach((filter) => {
    const column = columnOf(filter.column);
    if (!column || (TEXT_OPS.has(filter.op) && column.type !== "STRING") || (ORDERING_OPS.has(filter.op) && column.type === "BOOLEAN")) {
      throw new ApiError(
        "dataset_data_unavailable",
        `A filter this link locks no longer fits dataset '${table.dataset_name}'; ask for a new link.`,
        "dataset",
      );
    }
    conditions.push(condition(filter, column, typedFilter(filter, column, dialect, "filters"), dialect, "filters"));
  });
  const byName = new Map(result.map((r) => [r.column.name, r]));
  const order: SQL[] = [];
  (query.sort ?? []).forEach((entry, i) => {
    const found = byName.get(entry.column);
    if (!found) throw new ApiError("unknown_column", `The result has no column '${entry.column}' to sort by.`, `sort.${i}.column`);
    order.push(ordered(found.expression, found.column.type, entry.direction ?? "asc", dialect));
  });
  if (query.sort === undefined) order.push(...groups.map((expression, i) => ordered(expression, result[i].column.type, "asc", dialect)));

  const limit = query.limit ?? Math.min(DEFAULT_REPORT_LIMIT, input.rowLimit);
  const statement = sql.join(
    [
      sql`SELECT ${sql.join(
        result.map((r) => sql`${r.expression} AS ${sql.identifier(r.column.name)}`),
        sql`, `,
      )}`,
      // Newlines: a `--` comment ending the dataset's query cannot swallow what follows.
      sql`FROM (\n${datasetSql(table.query, input.context, dialect)}\n) AS ${sql.identifier("dataset")}`,
      conditions.length ? sql`WHERE ${sql.join(conditions, sql` AND `)}` : undefined,
      groups.length ? sql`GROUP BY ${sql.join(groups, sql`, `)}` : undefined,
      order.length ? sql`ORDER BY ${sql.join(order, sql`, `)}` : undefined,
      sql`LIMIT ${limit + 1}`,
    ].filter((part): part is SQL => part !== undefined),
    sql`\n`,
  );
  const compiled = dialects[dialect].sqlToQuery(statement);
  return { sql: compiled.sql, params: compiled.params as Param[], columns: result.map((r) => r.column), limit };
}

/** The dataset's query with its `{{customer.…}}` placeholders as bound parameters. */
function datasetSql(query: string, context: PlaceholderContext, dialect: Dialect): SQL {
  const { text, values } = splitPlaceholders(query, context, dialect);
  const parts: SQL[] = [sql.raw(text[0])];
  for (const [i, value] of values.entries()) parts.push(sql`${value}`, sql.raw(text[i + 1]));
  return sql.join(parts);
}

function ref(name: string): SQL {
  return sql`${sql.identifier("dataset")}.${sql.identifier(name)}`;
}

function aggregateAllowed(aggregate: Aggregate, type: ColumnType): boolean {
  if (aggregate === "sum" || aggregate === "avg") return NUMERIC.includes(type);
  if (aggregate === "min" || aggregate === "max") return type !== "BOOLEAN";
  return true;
}

function aggregateType(aggregate: Aggregate, type: ColumnType): ColumnType {
  if (aggregate === "count" || aggregate === "count_distinct") return "INTEGER";
  if (aggregate === "avg") return "FLOAT";
  return type;
}

function aggregated(aggregate: Exclude<Aggregate, "count">, column: SQL, type: ColumnType, dialect: Dialect): SQL {
  switch (aggregate) {
    case "count_distinct":
      return sql`count(DISTINCT ${column})`;
    case "sum":
      return sql`sum(${column})`;
    // PostgreSQL's avg of integers is numeric (arbitrary precision); both answer a double.
    case "avg":
      return dialect === "postgres" ? sql`CAST(avg(${column}) AS double precision)` : sql`avg(${column})`;
    case "min":
    case "max": {
      const fn = sql.raw(aggregate);
      return type === "STRING" ? sql`${fn}(${textOrder(column, dialect)})` : sql`${fn}(${column})`;
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

/** NULLs first ascending, last descending — SQLite's default, spelled out for PostgreSQL. */
function ordered(expression: SQL, type: ColumnType, direction: "asc" | "desc", dialect: Dialect): SQL {
  const key = type === "STRING" ? textOrder(expression, dialect) : expression;
  return direction === "desc" ? sql`${key} DESC NULLS LAST` : sql`${key} ASC NULLS FIRST`;
}

/**
 * Buckets as text, the same on both databases. DATETIME and TIMESTAMP values are UTC: on D1
 * ISO 8601 text (SQLite's date functions read it, offsets included); on PostgreSQL any of
 * date, timestamp, timestamptz or ISO text, read as UTC (the run sets the transaction's
 * time zone to UTC). Weeks start on Monday (ISO).
 */
function bucketed(column: SQL, bucket: Bucket, dialect: Dialect): SQL {
  if (dialect === "sqlite") {
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
  const utc = sql`CAST(CAST(${column} AS timestamptz) AS timestamp)`;
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

// ---- filters --------------------------------------------------------------------------------

/** A filter's values as the column's type binds them; a value of the wrong type is 400. */
function typedFilter(filter: ReportFilter, column: Column, dialect: Dialect, field: string): Param[] {
  if (filter.op === "is_null" || filter.op === "is_not_null") return [];
  // An op the column's type does not have is 422 filter_not_allowed, whatever its value.
  if ((TEXT_OPS.has(filter.op) && column.type !== "STRING") || (ORDERING_OPS.has(filter.op) && column.type === "BOOLEAN")) return [];
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

function condition(filter: ReportFilter, column: Column, values: Param[], dialect: Dialect, field: string): SQL {
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

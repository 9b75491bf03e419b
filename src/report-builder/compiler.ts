import { sql, type SQL } from "drizzle-orm";
import type { StoredTable } from "../blueprints/schemas";
import type { ReportFilter } from "../data/filters";
import { splitPlaceholders, type Dialect, type Param, type PlaceholderContext } from "../data/placeholders";
import { ApiError } from "../http/errors";
import { isUtc } from "../lib/zone-offsets";
import { reportDialect, type ReportDialect, type ViewZone } from "./dialect";
import { aggregateAllowed, aggregated, aggregateType, bucketed, isInstant, ordered, ref, columnValue } from "./expressions";
import { condition, opFitsColumn, typedFilter } from "./filter-conditions";
import { DEFAULT_REPORT_LIMIT, type Aggregate, type Bucket, type ColumnType, type ReportQuery, type ResultColumn } from "./query";

/**
 * The one compiler from a report query to SQL, for every engine: SQLite (D1), PostgreSQL and
 * MySQL, each described once in dialects/ (the seam: dialect.ts).
 *
 * It is written with drizzle-orm's `sql` template — the library the service already uses
 * for D1 — and rendered by the engine's description (drizzle's own SQLite, PostgreSQL and
 * MySQL dialects): `sql.identifier` quotes a name for the engine (`"` or `` ` `` doubled), every
 * `${value}` becomes a bound parameter (`?` or `$n`). Kysely would do the same but adds a
 * second query library next to drizzle for one statement shape; the statement here is one
 * fixed shape whose engine differences (buckets, instants, collation, `avg`'s type, lists)
 * are a handful of expressions either way.
 *
 * Identifiers only ever come from the blueprint's declarations (a name the query gives
 * that the blueprint does not declare is `unknown_column`); values are only ever bound.
 * Here: the checks against the blueprint and the statement's assembly; the expressions in
 * expressions.ts, the filters' value typing and conditions in filter-conditions.ts.
 */

export interface CompileInput {
  table: StoredTable;
  query: ReportQuery;
  /** The token's locked filters on this dataset: ANDed in, not part of what is saved. */
  locked: ReportFilter[];
  dialect: Dialect;
  context: PlaceholderContext;
  /** QUERY_ROW_LIMIT: the most a query may ask for. */
  rowLimit: number;
  /** The view's IANA time zone: buckets of date-times and date-only filter values are local to it. Default UTC. */
  timezone?: string;
  /**
   * Dialects of `zone: "offsets"` (D1, MySQL): the zone's offset transitions over the data's
   * range (lib/zone-offsets.ts), once `zoneRange` has told the range. Without them the
   * statement has the same shape.
   */
  offsets?: readonly [string, number][];
}

export interface CompiledQuery {
  sql: string;
  params: Param[];
  columns: ResultColumn[];
  /** Rows wanted; the statement asks for one more to tell `truncated`. */
  limit: number;
  /**
   * Dialects of `zone: "offsets"`, a zone other than UTC and buckets of date-times: the statement that answers the
   * earliest and latest instant of each bucketed column under the same filters (`lo0`,
   * `hi0`, …), whose offsets the query then binds.
   */
  zoneRange?: { sql: string; params: Param[] };
}

type Column = StoredTable["columns"][number];

const BUCKETABLE: readonly ColumnType[] = ["DATE", "DATETIME", "TIMESTAMP"];

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
  const { table, query } = input;
  const d = reportDialect(input.dialect);
  const timezone = input.timezone && !isUtc(input.timezone) ? input.timezone : undefined;
  // The date-time columns bucketed in the view's zone (DATE columns have none).
  const zonedColumns: string[] = [];
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
    return column ? typedFilter(filter, column, d, `filters.${i}`, timezone) : null;
  });

  // ---- 422: names and rules, in the order the query is written ------------------------------
  const known = (name: string, field: string): Column => {
    const column = columnOf(name);
    if (!column) throw new ApiError("unknown_column", `Dataset '${table.dataset_name}' has no column '${name}'.`, field);
    return column;
  };
  // `key`: what the column sorts by when it is not its expression — a listed date-time is
  // shown as stored (the run writes it in UTC) and sorted by its instant.
  const result: { column: ResultColumn; expression: SQL; key?: SQL }[] = [];
  const zone: ViewZone | undefined = timezone ? { name: timezone, offsets: input.offsets ?? [["", 0]] } : undefined;
  const groups: SQL[] = [];
  if (query.columns) {
    query.columns.forEach((name, i) => {
      const column = known(name, `columns.${i}`);
      result.push({
        column: { name, display_name: column.display_name, type: column.type },
        expression: ref(name),
        key: isInstant(column.type) || column.type === "STRING" ? columnValue(name, column.type, d) : undefined,
      });
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
      // Date-times group by the instant: two spellings of one instant are one group.
      const zoned = group.bucket !== undefined && timezone !== undefined && isInstant(column.type);
      if (zoned && !zonedColumns.includes(group.column)) zonedColumns.push(group.column);
      const expression = group.bucket
        ? bucketed(ref(group.column), group.bucket, d, zoned ? zone : undefined)
        : columnValue(group.column, column.type, d);
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
        expression: aggregated(value.aggregate, column.name, column.type, d),
      });
    });
  }
  const conditions: SQL[] = [];
  (query.filters ?? []).forEach((filter, i) => {
    const column = known(filter.column, `filters.${i}.column`);
    conditions.push(condition(filter, column, typed[i] ?? typedFilter(filter, column, d, `filters.${i}`, timezone), d, `filters.${i}`));
  });
  // The token's locked filters were checked when it was minted; a blueprint changed since
  // must not drop one silently (that would widen what the link shows).
  input.locked.forEach((filter) => {
    const column = columnOf(filter.column);
    if (!column || !opFitsColumn(filter.op, column)) {
      throw new ApiError(
        "dataset_data_unavailable",
        `A filter this link locks no longer fits dataset '${table.dataset_name}'; ask for a new link.`,
        "dataset",
      );
    }
    conditions.push(condition(filter, column, typedFilter(filter, column, d, "filters", timezone), d, "filters"));
  });
  const byName = new Map(result.map((r) => [r.column.name, r]));
  const order: SQL[] = [];
  (query.sort ?? []).forEach((entry, i) => {
    const found = byName.get(entry.column);
    if (!found) throw new ApiError("unknown_column", `The result has no column '${entry.column}' to sort by.`, `sort.${i}.column`);
    order.push(ordered(found.key ?? found.expression, found.column.type, entry.direction ?? "asc", d));
  });
  if (query.sort === undefined) order.push(...groups.map((expression, i) => ordered(expression, result[i].column.type, "asc", d)));

  const limit = query.limit ?? Math.min(DEFAULT_REPORT_LIMIT, input.rowLimit);
  // Newlines: a `--` comment ending the dataset's query cannot swallow what follows.
  const from = sql`FROM (\n${datasetSql(table.query, input.context, input.dialect)}\n) AS ${sql.identifier("dataset")}`;
  const where = conditions.length ? sql`WHERE ${sql.join(conditions, sql` AND `)}` : undefined;
  const zoneSource = zone && zonedColumns.length > 0 ? d.zoneSource(zone) : undefined;
  const statement = sql.join(
    [
      sql`SELECT ${sql.join(
        result.map((r) => sql`${r.expression} AS ${sql.identifier(r.column.name)}`),
        sql`, `,
      )}`,
      zoneSource ? sql`${from}, ${zoneSource}` : from,
      where,
      groups.length ? sql`GROUP BY ${sql.join(groups, sql`, `)}` : undefined,
      order.length ? sql`ORDER BY ${sql.join(order, sql`, `)}` : undefined,
      d.limit(limit + 1),
    ].filter((part): part is SQL => part !== undefined),
    sql`\n`,
  );
  const answer: CompiledQuery = { ...d.render(statement), columns: result.map((r) => r.column), limit };
  if (zone && zonedColumns.length > 0 && d.zone === "offsets") answer.zoneRange = zoneRange(zonedColumns, from, where, d);
  return answer;
}

/** The earliest and latest instant of each bucketed date-time column under the query's filters. */
function zoneRange(columns: string[], from: SQL, where: SQL | undefined, d: ReportDialect): { sql: string; params: Param[] } {
  const bounds = columns.flatMap((name, i) => [
    sql`min(${d.instant(ref(name))}) AS ${sql.identifier(`lo${i}`)}`,
    sql`max(${d.instant(ref(name))}) AS ${sql.identifier(`hi${i}`)}`,
  ]);
  return d.render(
    sql.join(
      [sql`SELECT ${sql.join(bounds, sql`, `)}`, from, where].filter((p) => p !== undefined),
      sql`\n`,
    ),
  );
}

/** The dataset's query with its `{{customer.…}}` placeholders as bound parameters. */
function datasetSql(query: string, context: PlaceholderContext, dialect: Dialect): SQL {
  const { text, values } = splitPlaceholders(query, context, dialect);
  const parts: SQL[] = [sql.raw(text[0])];
  for (const [i, value] of values.entries()) parts.push(sql`${value}`, sql.raw(text[i + 1]));
  return sql.join(parts);
}

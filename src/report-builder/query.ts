import { z } from "@hono/zod-openapi";
import type { StoredTable } from "../blueprints/schemas";
import { type BoundLockedFilter, Filter } from "../data/filters";

/**
 * The report query of the builder (docs/report-builder.md): what a customer's user asks of
 * one dataset. These schemas validate requests and are the OpenAPI document; whatever needs
 * the blueprint (names, types, what may be grouped) is checked by the compiler.
 */

export const AGGREGATES = ["count", "count_distinct", "sum", "avg", "min", "max"] as const;
export const BUCKETS = ["day", "week", "month", "quarter", "year"] as const;
export const CHART_TYPES = ["table", "bar", "line", "area", "pie", "kpi"] as const;

export type Aggregate = (typeof AGGREGATES)[number];
export type Bucket = (typeof BUCKETS)[number];
export type ColumnType = StoredTable["columns"][number]["type"];

/** At most this many rows per query (QUERY_ROW_LIMIT may lower it); the default is 1000. */
export const DEFAULT_REPORT_LIMIT = 1000;

const Name = z.string().min(1).max(256);

export const ReportQuery = z
  .object({
    dataset: Name.openapi({ description: "A dataset_name of the blueprint." }),
    group_by: z
      .array(z.object({ column: Name, bucket: z.enum(BUCKETS).optional() }))
      .max(10)
      .optional(),
    values: z
      .array(z.object({ column: Name.optional(), aggregate: z.enum(AGGREGATES) }))
      .max(20)
      .optional(),
    columns: z
      .array(Name)
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: "Records mode: these columns of each row (instead of group_by/values)." }),
    filters: z.array(Filter).max(50).optional(),
    sort: z
      .array(z.object({ column: Name.openapi({ description: "A result column." }), direction: z.enum(["asc", "desc"]).optional() }))
      .max(10)
      .optional(),
    limit: z.number().int().min(1).max(1_000_000).optional().openapi({ description: "1–QUERY_ROW_LIMIT, default 1000." }),
  })
  .superRefine((query, ctx) => {
    const aggregated = (query.group_by?.length ?? 0) + (query.values?.length ?? 0) > 0;
    if (query.columns !== undefined && (query.group_by !== undefined || query.values !== undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["columns"],
        message: "give either columns (records) or group_by/values (aggregated), not both",
      });
    } else if (query.columns === undefined && !aggregated) {
      ctx.addIssue({ code: "custom", path: ["group_by"], message: "give group_by and/or values (at least one non-empty), or columns" });
    }
    query.values?.forEach((value, i) => {
      if (value.aggregate === "count" && value.column !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["values", i, "column"],
          message: "count takes no column (use count_distinct to count values)",
        });
      }
      if (value.aggregate !== "count" && value.column === undefined) {
        ctx.addIssue({ code: "custom", path: ["values", i, "column"], message: `${value.aggregate} needs a column` });
      }
    });
  })
  .openapi("ReportQuery");

export type ReportQuery = z.infer<typeof ReportQuery>;

export const Chart = z
  .object({
    type: z.enum(CHART_TYPES),
    x: Name.optional().openapi({ description: "A result column (the categories)." }),
    y: z.array(Name).max(12).optional().openapi({ description: "Result columns (the values)." }),
  })
  .openapi("ReportChart");
export type Chart = z.infer<typeof Chart>;

declare module "../db/schema/columns" {
  interface JsonColumns {
    "saved_reports.query": ReportQuery;
    "saved_reports.chart": Chart;
    "saved_reports.locked_filters": BoundLockedFilter[];
  }
}

export const ResultColumn = z
  .object({
    name: z.string(),
    display_name: z.string(),
    type: z.enum(["INTEGER", "FLOAT", "BOOLEAN", "STRING", "DATETIME", "TIMESTAMP", "DATE"]),
  })
  .openapi("ReportResultColumn");
export type ResultColumn = z.infer<typeof ResultColumn>;

/** What a report query answers (and what charts and exports are drawn from). */
export interface ReportResult {
  columns: ResultColumn[];
  rows: Record<string, unknown>[];
  row_count: number;
  truncated: boolean;
}

import { z } from "@hono/zod-openapi";

/**
 * Filters on a dataset's rows, as the report builder's queries and its tokens' locked filters
 * state them (docs/report-builder.md): the operators, the values each takes, and the shapes
 * that validate requests and token claims alike. The compiler types the values by the column.
 */

export const FILTER_OPS = [
  "eq",
  "neq",
  "gt",
  "gte",
  "lt",
  "lte",
  "in",
  "not_in",
  "between",
  "contains",
  "starts_with",
  "is_null",
  "is_not_null",
] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export const Name = z.string().min(1).max(256);
// PostgreSQL text cannot hold U+0000: refused up front on both databases alike.
const Scalar = z.union([
  z
    .string()
    .max(10_000)
    .refine((v) => !v.includes("\u0000"), "must not contain U+0000"),
  z.number(),
  z.boolean(),
]);

const SINGLE_VALUE: readonly FilterOp[] = ["eq", "neq", "gt", "gte", "lt", "lte", "contains", "starts_with"];

const FilterShape = z.object({
  column: Name,
  op: z.enum(FILTER_OPS),
  value: Scalar.optional().openapi({
    description: "For eq, neq, gt, gte, lt, lte, contains, starts_with: typed by the column (number, boolean, ISO date).",
  }),
  values: z.array(Scalar).optional().openapi({ description: "For in, not_in (1–100 values) and between (2)." }),
});

/** A filter's values fit its op (their types are checked against the column by the compiler). */
function filterValuesFit(filter: z.infer<typeof FilterShape>, ctx: z.RefinementCtx): void {
  if (SINGLE_VALUE.includes(filter.op) && filter.value === undefined) {
    ctx.addIssue({ code: "custom", path: ["value"], message: `'${filter.op}' needs a value` });
  }
  if (filter.op === "in" || filter.op === "not_in") {
    if (filter.values === undefined || filter.values.length < 1 || filter.values.length > 100) {
      ctx.addIssue({ code: "custom", path: ["values"], message: `'${filter.op}' needs 1–100 values` });
    }
  }
  if (filter.op === "between" && filter.values?.length !== 2) {
    ctx.addIssue({ code: "custom", path: ["values"], message: "'between' needs exactly 2 values" });
  }
}

export const Filter = FilterShape.superRefine(filterValuesFit).openapi("ReportFilter");
export type ReportFilter = z.infer<typeof Filter>;

/** A locked filter of a builder token: a filter with the dataset it applies to. */
export const LockedFilter = FilterShape.extend({ dataset: Name.openapi({ description: "The dataset whose queries get this filter." }) })
  .superRefine(filterValuesFit)
  .openapi("LockedReportFilter");
export type LockedFilter = z.infer<typeof LockedFilter>;

/**
 * A locked filter as a builder token carries it and a saved report stores it: with `table`,
 * the fingerprint of the blueprint table and column it was minted on (report-builder/locks.ts),
 * so that a lock follows its table, not a name another table or column may take later. Absent
 * only on saved reports stored before locks were bound.
 */
export const BoundLockedFilter = FilterShape.extend({ dataset: Name, table: z.string().min(1).max(64).optional() }).superRefine(
  filterValuesFit,
);
export type BoundLockedFilter = z.infer<typeof BoundLockedFilter>;

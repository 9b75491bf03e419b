import { z } from "@hono/zod-openapi";

/**
 * What a delivery (screenshot, report e-mail, schedule) shows: a dashboard or one saved
 * report of the customer — exactly one of them. Shared by the request schemas of delivery
 * and schedules, so both refuse the same bodies on the same fields:
 * - neither → 400 `validation_error` on `dashboard_embed_id`, both → on `report_id`
 *   (the convention of generate_embed_token's `dashboard_embed_id` / `blueprint_id`);
 * - `csv` (the rows of one result) only for a saved report → else 400 on the format field.
 */

export const ReportId = z.string().min(1).max(64).openapi({
  description:
    "A saved report (report builder) of the customer `provided_id`, drawn as one page: its chart and its table. Exactly one of `dashboard_embed_id` and `report_id`.",
  example: "r7Kq2mX9pL4wZ8nB3vC1",
});

/** The formats that only a saved report has. */
const REPORT_ONLY_FORMATS = new Set(["csv"]);

export function checkDeliveryTarget(
  body: { dashboard_embed_id?: string | null; report_id?: string | null },
  ctx: z.RefinementCtx,
  options: { required: boolean; formatField: string; format?: string },
): void {
  const dashboard = body.dashboard_embed_id !== undefined && body.dashboard_embed_id !== null;
  const report = body.report_id !== undefined && body.report_id !== null;
  if (dashboard && report) {
    ctx.addIssue({ code: "custom", path: ["report_id"], message: "give either dashboard_embed_id or report_id, not both" });
  } else if (!dashboard && !report && options.required) {
    ctx.addIssue({
      code: "custom",
      path: ["dashboard_embed_id"],
      message: "give dashboard_embed_id (a dashboard) or report_id (a saved report of the customer)",
    });
  } else if (dashboard && options.format !== undefined && REPORT_ONLY_FORMATS.has(options.format)) {
    ctx.addIssue({
      code: "custom",
      path: [options.formatField],
      message: `'${options.format}' is the rows of one result: only for a saved report (report_id)`,
    });
  }
}

/** For a stored target checked after a partial update: the same rule and message, as an error to throw. */
export function reportOnlyFormat(format: string): boolean {
  return REPORT_ONLY_FORMATS.has(format);
}

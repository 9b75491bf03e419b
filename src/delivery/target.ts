import { z } from "@hono/zod-openapi";

/**
 * What a delivery (screenshot, report e-mail, schedule) shows: a dashboard or one saved
 * report of the customer — exactly one of them.
 *
 * In requests it is two fields, `dashboard_embed_id` and `report_id`. The request schemas of
 * delivery and schedules share checkDeliveryTarget, so both refuse the same bodies on the
 * same fields:
 * - neither → 400 `validation_error` on `dashboard_embed_id`, both → on `report_id`
 *   (the convention of generate_embed_token's `dashboard_embed_id` / `blueprint_id`);
 * - `csv` (the rows of one result) only for a saved report → else 400 on the format field.
 * After parsing it is a DeliveryTarget, through job creation, running, share links and
 * schedules. Stored rows (jobs, report_schedules) keep two columns — `dashboard_embed_id`
 * NOT NULL, '' for a saved report, and `report_id` — converted here (targetColumns,
 * storedTarget) where rows are written and read.
 */

export type DeliveryTarget = DashboardTarget | SavedReportTarget;
export interface DashboardTarget {
  kind: "dashboard";
  embedId: string;
}
export interface SavedReportTarget {
  kind: "saved_report";
  reportId: string;
}

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

/** The two fields a request names its target with. */
export interface TargetFields {
  dashboard_embed_id?: string;
  report_id?: string;
}

/** The target a request body names, if any (checkDeliveryTarget has refused a body that names both). */
export function requestedTarget(body: TargetFields): DeliveryTarget | undefined {
  if (body.report_id !== undefined) return { kind: "saved_report", reportId: body.report_id };
  if (body.dashboard_embed_id !== undefined) return { kind: "dashboard", embedId: body.dashboard_embed_id };
  return undefined;
}

/** A request's fields with its target parsed. */
export type Targeted<Body extends TargetFields> = Omit<Body, keyof TargetFields> & { target: DeliveryTarget };

/** A body that must name its target (checked by checkDeliveryTarget with `required`), with the target parsed. */
export function withTarget<T extends TargetFields>(body: T): Targeted<T> {
  const { dashboard_embed_id: _dashboard, report_id: _report, ...rest } = body;
  const target = requestedTarget(body);
  if (!target) throw new Error("a delivery request without a target passed its checks");
  return { ...rest, target };
}

/** The columns a target is stored in (jobs, report_schedules; a share link and a queue message spell it the same way). */
export interface TargetColumns {
  dashboardEmbedId: string;
  reportId: string | null;
}

export function targetColumns(target: DeliveryTarget): TargetColumns {
  // dashboard_embed_id is NOT NULL: a saved report's row has '' there.
  return target.kind === "dashboard"
    ? { dashboardEmbedId: target.embedId, reportId: null }
    : { dashboardEmbedId: "", reportId: target.reportId };
}

export function storedTarget(row: TargetColumns): DeliveryTarget {
  return row.reportId !== null ? { kind: "saved_report", reportId: row.reportId } : { kind: "dashboard", embedId: row.dashboardEmbedId };
}

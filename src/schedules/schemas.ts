import { z } from "@hono/zod-openapi";
import { ProvidedId } from "../customers/schemas";
import { Email, EmbedId, plainText } from "../http/fields";
import { cronProblem } from "./cron";
import { checkDeliveryTarget, ReportId } from "../delivery/target";
import { Locale, ThemeReference, TimeZone } from "../view/presentation";
import { type PdfPage, PdfPageFields } from "../view/paper";

const ScheduleId = z.string().min(1).max(64).openapi({ description: "The schedule's id.", example: "sch_4f9k2m1x8q7w3e5r6t0y" });
export const GroupTag = z
  .string()
  .min(1)
  .max(64)
  .openapi({ description: "Every customer of the token's access group with this tag, each with its own data.", example: "monthly" });
export const Cron = z
  .string()
  .max(200)
  .superRefine((value, ctx) => {
    const problem = cronProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .openapi({
    description: "5 fields: minute hour day-of-month month day-of-week (`*`, lists, ranges, steps), wall-clock time in `timezone`.",
    example: "0 8 1 * *",
  });
export const Recipients = z
  .array(Email)
  .max(100)
  .openapi({ description: "Absent or empty: each customer's own `emails` at run time.", example: ["ceo@acme.example"] });
const Format = z.enum(["report", "pdf", "image", "xlsx", "csv"]).openapi({
  description:
    "`report`: the report e-mail; `pdf`/`image`/`xlsx`/`csv`: the screenshot e-mail with the file attached (`xlsx`: a sheet per data panel, a saved report: one sheet; `csv`: a saved report's rows, only with `report_id`).",
});
export const Subject = plainText(1, 300);
export const Variables = z.record(z.string(), z.unknown()).openapi({ description: "Dashboard variables, as for reports." });

/**
 * What a report schedule and an alert (src/alerts/schemas.ts) both are: a dashboard sent to
 * one customer or every customer with a tag, on a cron in a time zone. On update each given
 * field replaces the stored one.
 */
export const RuleFields = z.object({
  dashboard_embed_id: EmbedId,
  provided_id: ProvidedId.optional().openapi({ description: "One customer. Exactly one of `provided_id` and `group_tag`." }),
  group_tag: GroupTag.optional(),
  cron: Cron,
  timezone: TimeZone.optional(),
  subject: Subject.nullable().optional(),
  variables: Variables.nullable().optional(),
  paused: z.boolean().optional(),
  theme: ThemeReference.nullable()
    .optional()
    .openapi({ description: "The theme its e-mails are drawn in (a theme of the access group); null or absent: each customer's own." }),
  locale: Locale.nullable()
    .optional()
    .openapi({ type: ["string", "null"], description: "The language of its e-mails (BCP 47); null or absent: each customer's own." }),
});

/** A rule targets one customer or one tag: exactly one of the two on create (`required`), at most one on update. */
export function oneTarget(required: boolean) {
  return (body: { provided_id?: string; group_tag?: string }, ctx: z.RefinementCtx) => {
    const given = Number(body.provided_id !== undefined) + Number(body.group_tag !== undefined);
    if (given > 1 || (required && given === 0)) {
      ctx.addIssue({
        code: "custom",
        path: ["provided_id"],
        message: "give exactly one of provided_id (one customer) and group_tag (every tagged customer)",
      });
    }
  };
}

/**
 * Fields that create and update share. A schedule delivers a dashboard or a saved report of
 * its customer (exactly one: src/delivery/target.ts); an alert always watches a dashboard.
 */
const fields = {
  ...RuleFields.shape,
  dashboard_embed_id: EmbedId.optional().openapi({
    description: "The dashboard to deliver. Exactly one of `dashboard_embed_id` and `report_id`.",
  }),
  report_id: ReportId.optional(),
  recipients: Recipients.optional(),
  format: Format.optional(),
  pdf: PdfPageFields.nullable().optional().openapi({
    description: "The pages of its PDFs (format `pdf`); null or absent: the dashboard definition's `pdf`, else one page from the width.",
  }),
};

/** A saved report is one customer's: it goes with `provided_id`, never with a group tag. */
const reportOfOneCustomer = (body: { report_id?: string; group_tag?: string }, ctx: z.RefinementCtx) => {
  if (body.report_id !== undefined && body.group_tag !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["group_tag"],
      message: "a saved report (report_id) belongs to one customer: give provided_id, not group_tag",
    });
  }
};

export const CreateScheduleBody = z
  .object(fields)
  .superRefine((body, ctx) => {
    checkDeliveryTarget(body, ctx, { required: true, formatField: "format", format: body.format });
    oneTarget(true)(body, ctx);
    reportOfOneCustomer(body, ctx);
  })
  .openapi("CreateReportScheduleRequest");

export const UpdateScheduleBody = z
  .object({ id: ScheduleId, ...fields, cron: Cron.optional() })
  .superRefine((body, ctx) => {
    checkDeliveryTarget(body, ctx, { required: false, formatField: "format", format: body.format });
    oneTarget(false)(body, ctx);
    reportOfOneCustomer(body, ctx);
  })
  .openapi("UpdateReportScheduleRequest");

export const ScheduleIdBody = z.object({ id: ScheduleId }).openapi("ReportScheduleIdRequest");

export const ScheduleSchema = z
  .object({
    id: z.string(),
    dashboard_embed_id: z.string().nullable().openapi({ description: "null for a saved report's schedule." }),
    report_id: z.string().optional().openapi({ description: "The saved report delivered; only on a saved report's schedule." }),
    provided_id: z.string().nullable(),
    group_tag: z.string().nullable(),
    cron: z.string(),
    timezone: z.string(),
    recipients: z.array(z.string()),
    format: Format,
    pdf: PdfPageFields.nullable().openapi({ description: "The pages of its PDFs; null when unset." }),
    subject: z.string().nullable(),
    variables: z.record(z.string(), z.unknown()).nullable(),
    paused: z.boolean(),
    next_run_at: z.string().nullable().openapi({ description: "ISO 8601 UTC; null while paused." }),
    source: z
      .enum(["api", "embed"])
      .openapi({ description: "`api`: made through this API; `embed`: a viewer's own subscription from the embed page." }),
    theme: z.string().nullable().openapi({ description: "The theme its e-mails are drawn in; null: each customer's computed theme." }),
    locale: z.string().nullable().openapi({ description: "The locale of its e-mails; null: each customer's computed locale." }),
    environment: z.string().nullable().openapi({
      description:
        "A viewer's subscription: the version tag its embed token was pinned to, which its e-mails show (no version with that tag: the run fails). `null` when none (always for `api`).",
    }),
    created_at: z.string(),
  })
  .openapi("ReportSchedule");

export const RunSchema = z
  .object({
    slot: z.string().openapi({ description: "ISO 8601 UTC minute.", example: "2026-12-01T07:00:00Z" }),
    trigger: z.enum(["schedule", "manual"]),
    status: z.enum(["running", "done", "partial", "failed"]),
    job_ids: z.array(z.string()).openapi({ description: "One delivery job per e-mail; see job_status." }),
    skipped: z.number().int().openapi({ description: "Customers without recipients, plus each address that unsubscribed." }),
  })
  .openapi("ReportScheduleRun");

declare module "../db/schema/columns" {
  interface JsonColumns {
    /** The pages a schedule's PDFs are printed on. */
    "report_schedules.pdf": PdfPage;
  }
}

export type CreateScheduleInput = z.infer<typeof CreateScheduleBody>;
export type UpdateScheduleInput = z.infer<typeof UpdateScheduleBody>;
export type Schedule = z.infer<typeof ScheduleSchema>;
export type Run = z.infer<typeof RunSchema>;
/** What creating a schedule or an alert shares (RuleFields, and its recipients). */
export type RuleInput = z.infer<typeof RuleFields> & { recipients?: string[] };

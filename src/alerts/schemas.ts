import { z } from "@hono/zod-openapi";
import { EmbedId, plainText } from "../http/fields";
import { Cron, oneTarget, Recipients, RuleFields, RunSchema, Subject } from "../schedules/schemas";
import { PdfPageFields } from "../view/paper";

const AlertId = z.string().min(1).max(64).openapi({ description: "The alert's id.", example: "alr_4f9k2m1x8q7w3e5r6t0y" });
const PanelId = plainText(1, 64).openapi({ description: "A data panel (not `text`) of the dashboard.", example: "revenue" });
const Column = plainText(1, 128).openapi({
  description: "The result column compared; default: the panel's first numeric column.",
  example: "value",
});
export const Condition = z
  .object({
    op: z.enum(["gt", "gte", "lt", "lte", "eq", "neq"]),
    value: z.number().refine(Number.isFinite, "must be a finite number"),
  })
  .openapi("AlertCondition", { example: { op: "lt", value: 500 } });
const CallbackUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .openapi({
    description:
      "Webhook: POSTed (signed like a job's webhook) for each customer the alert fires for. https only (http on localhost in development).",
  });
const Notify = z.enum(["on_change", "always"]).openapi({
  description:
    "`on_change` (default): only when the condition becomes true after being false or unknown; `always`: at every slot where it holds.",
});

/** Fields that create and update share: a schedule's (RuleFields), the panel and condition it watches, and whom it notifies. */
const fields = {
  ...RuleFields.shape,
  panel_id: PanelId,
  column: Column.nullable().optional(),
  condition: Condition,
  recipients: Recipients.optional().openapi({
    description: "Absent or empty: each customer's own `emails` — unless `callback_url` is given, then the webhook alone notifies.",
  }),
  callback_url: CallbackUrl.nullable().optional(),
  notify: Notify.optional(),
  subject: Subject.nullable()
    .optional()
    .openapi({ description: "The e-mail's subject; default: the sentence that says why (`Revenue is 312, below 500`)." }),
  pdf: PdfPageFields.nullable().optional().openapi({
    description:
      "The pages of its PDFs, as a schedule's `pdf`; null or absent: unset. Stored and answered; an alert sends the report e-mail, not a PDF.",
  }),
};

export const CreateAlertBody = z.object(fields).superRefine(oneTarget(true)).openapi("CreateAlertRequest");

export const UpdateAlertBody = z
  .object({
    id: AlertId,
    ...fields,
    dashboard_embed_id: EmbedId.optional(),
    panel_id: PanelId.optional(),
    condition: Condition.optional(),
    cron: Cron.optional(),
  })
  .superRefine(oneTarget(false))
  .openapi("UpdateAlertRequest");

export const AlertIdBody = z.object({ id: AlertId }).openapi("AlertIdRequest");

export const AlertSchema = z
  .object({
    id: z.string(),
    dashboard_embed_id: z.string(),
    panel_id: z.string(),
    column: z.string().nullable(),
    condition: Condition,
    provided_id: z.string().nullable(),
    group_tag: z.string().nullable(),
    cron: z.string(),
    timezone: z.string(),
    recipients: z.array(z.string()),
    callback_url: z.string().nullable(),
    notify: Notify,
    subject: z.string().nullable(),
    pdf: PdfPageFields.nullable().openapi({ description: "The pages of its PDFs; null when unset." }),
    variables: z.record(z.string(), z.unknown()).nullable(),
    paused: z.boolean(),
    next_run_at: z.string().nullable().openapi({ description: "ISO 8601 UTC; null while paused." }),
    theme: z.string().nullable().openapi({ description: "The theme its e-mails are drawn in; null: each customer's computed theme." }),
    locale: z.string().nullable().openapi({ description: "The locale of its e-mails; null: each customer's computed locale." }),
    created_at: z.string(),
  })
  .openapi("Alert");

export const EvaluationSchema = z
  .object({
    provided_id: z.string(),
    slot: z.string().openapi({ description: "ISO 8601 UTC minute of the run." }),
    trigger: z.enum(["schedule", "manual"]),
    value: z
      .number()
      .nullable()
      .openapi({ description: "The first row's value; null when there was none (no rows, not a number, no data)." }),
    fired: z.boolean().openapi({ description: "True only when a notification (e-mail or webhook) was sent." }),
  })
  .openapi("AlertEvaluation");

export { RunSchema };

export type CreateAlertInput = z.infer<typeof CreateAlertBody>;
export type UpdateAlertInput = z.infer<typeof UpdateAlertBody>;
export type Alert = z.infer<typeof AlertSchema>;
export type Evaluation = z.infer<typeof EvaluationSchema>;

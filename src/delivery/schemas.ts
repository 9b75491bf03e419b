import { z } from "@hono/zod-openapi";
import { ProvidedId } from "../customers/schemas";
import { Email, EmbedId, plainText } from "../http/fields";
import { exactlyOneOf } from "../http/openapi";
import { JOB_KINDS, JOB_STATUSES } from "../db/job-vocabulary";
import { checkDeliveryTarget, ReportId, type Targeted } from "./target";
import { presentationFields } from "../view/presentation";
import { PdfPageFields } from "../view/paper";

const DashboardEmbedId = EmbedId.optional().openapi({
  description: "The dashboard to deliver. Exactly one of `dashboard_embed_id` and `report_id`.",
});

const CallbackUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .optional()
  .openapi({
    description:
      "Webhook: when the job ends the service POSTs `{job_id, status, error, url?}` here, signed with the access group's webhook secret (`X-Signature: sha256=<hex>` over `<X-Signature-Timestamp>.<body>`). https only (http on localhost in development).",
  });
const Variables = z.record(z.string(), z.unknown()).openapi({ description: "Like embed variables; values may be nested objects." });

export const ScreenshotBody = z
  .object({
    provided_id: ProvidedId,
    dashboard_embed_id: DashboardEmbedId,
    report_id: ReportId.optional(),
    email: Email.optional().openapi({ description: "Recipient; without it a short-lived download link is returned." }),
    download_file_name: plainText(1, 200).optional().openapi({ description: "Default dashboard_screenshot_download.png|.pdf|.xlsx|.csv" }),
    export_type: z.enum(["image", "pdf", "xlsx", "csv"]).default("image").openapi({
      description:
        "`xlsx`: the data as a spreadsheet with typed cells (a dashboard: one sheet per data panel named by its title; a saved report: one sheet named by the report). `csv`: a saved report's rows (only with `report_id`).",
    }),
    subject: plainText(1, 300).optional(),
    variables: Variables.optional(),
    width: z.number().int().min(1).max(4096).default(1280).openapi({ description: "Pixels, 1–4096." }),
    pdf: PdfPageFields.optional(),
    callback_url: CallbackUrl,
    ...presentationFields,
  })
  .superRefine((body, ctx) => checkDeliveryTarget(body, ctx, { required: true, formatField: "export_type", format: body.export_type }))
  .openapi("ScreenshotRequest", exactlyOneOf("dashboard_embed_id", "report_id"));

export const ReportBody = z
  .object({
    provided_id: ProvidedId,
    dashboard_embed_id: DashboardEmbedId,
    report_id: ReportId.optional(),
    email: Email,
    subject: plainText(1, 300).optional(),
    variables: Variables.optional(),
    custom_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional()
      .openapi({ description: "Link target of the screenshot; default: the service's share link." }),
    callback_url: CallbackUrl,
    ...presentationFields,
  })
  .superRefine((body, ctx) => checkDeliveryTarget(body, ctx, { required: true, formatField: "export_type" }))
  .openapi("ReportRequest", exactlyOneOf("dashboard_embed_id", "report_id"));

/** The longest a download request waits for its job (it looks at the job meanwhile: see downloadPollPause). */
export const MAX_DOWNLOAD_WAIT_SECONDS = 30;

export const DownloadQuery = z.object({
  wait: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_DOWNLOAD_WAIT_SECONDS)
    .default(0)
    .openapi({
      description: `Seconds (0–${MAX_DOWNLOAD_WAIT_SECONDS}) to wait for the job to end before answering 202; default 0 (answer at once).`,
    }),
});

export const JobStatusBody = z.object({ job_id: z.string().min(1).max(64) }).openapi("JobStatusRequest");

export const JobSchema = z
  .object({
    id: z.string(),
    kind: z.enum(JOB_KINDS),
    status: z.enum(JOB_STATUSES),
    attempts: z.number().int(),
    error: z
      .string()
      .nullable()
      .openapi({ description: "A short, stable reason when the job failed (details are logged with the job id)." }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Job");

/** What creating a job takes: the request's fields, its target parsed (target.ts). */
export type ScreenshotInput = Targeted<z.infer<typeof ScreenshotBody>>;
export type ReportInput = Targeted<z.infer<typeof ReportBody>>;

/**
 * What a job stores about its request (the `request` column, and the page a queue message
 * carries: src/delivery/run/message.ts parses it with this schema).
 */
export const JobRequestSchema = z.object({
  email: z.string().nullable(),
  fileName: z.string(),
  exportType: z.enum(["image", "pdf", "xlsx", "csv"]),
  subject: z.string(),
  variables: z.record(z.string(), z.unknown()),
  width: z.number(),
  /** Device pixels per CSS pixel of the capture (reports: 2, so the image is sharp at its width in the e-mail); absent means 1. */
  scale: z.number().optional(),
  linkUrl: z.string().nullable(),
  versionTags: z.array(z.string()),
  /** false: only `versionTags` (a delivery pinned to an environment); absent means true (else the newest version). */
  fallBackToNewest: z.boolean().optional(),
  /** Webhook target, and the download link it reports (kept only when a webhook asks for it). */
  callbackUrl: z.string().nullable().optional(),
  downloadUrl: z.string().nullable().optional(),
  /** An e-mail of a schedule or alert: its unsubscribe link is derived from these when the e-mail is built. */
  unsubscribe: z.object({ scheduleId: z.string(), base: z.string(), locale: z.string().optional() }).optional(),
  /** An alert's e-mail: the first line, saying why it was sent ("Revenue is 312, below 500"). */
  headline: z.string().optional(),
  /**
   * The delivery's own theme (its name as stored), locale and time zone; what is absent comes
   * from the customer (src/view/presentation.ts resolves it when the job renders).
   */
  presentation: z.object({ theme: z.string().optional(), locale: z.string().optional(), timezone: z.string().optional() }).optional(),
  /** A PDF's pages as asked (over the definition's `pdf`): with a page size, printed on paper. */
  pdf: PdfPageFields.optional(),
});
export type JobRequest = z.infer<typeof JobRequestSchema>;

declare module "../db/schema/columns" {
  interface JsonColumns {
    /** What was asked: recipient, file name, export type, subject, variables, width, link target. */
    "jobs.request": JobRequest;
  }
}

/** What a schedule or alert adds to a delivery it starts (nothing a caller of the API can set). */
export type JobExtras = Pick<JobRequest, "unsubscribe" | "headline"> & {
  /** The version tag the delivery is pinned to (a viewer's subscription): that version only. */
  environment?: string;
};

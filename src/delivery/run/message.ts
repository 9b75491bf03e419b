import { z } from "zod";
import type { AlertWebhookMessage as AlertWebhookMessageType, WebhookMessage as WebhookMessageType } from "../../webhooks/service";
import { JobRequestSchema } from "../schemas";

/**
 * The delivery queue's messages. Whoever sends one builds it against these types; the
 * consumer parses every message body (`parseDeliveryMessage`) before acting on it, so a body
 * of another shape is refused in one place (logged and acknowledged) instead of being
 * half-read.
 */

/** What a job renders: who sees which dashboard, how. */
export const JobPage = z.object({
  customerId: z.number().int(),
  embedId: z.string(),
  /** A saved report's job: the report is drawn or written instead of a dashboard (embedId is then ''). */
  reportId: z.string().optional(),
  request: JobRequestSchema,
});
export type JobPage = z.infer<typeof JobPage>;

/**
 * A job to run. `after`: attempts already used before this message; `page`: what the job
 * renders, so the render can start alongside the claim; `backstop`: held back while the API
 * call that created the job runs its first attempt — it runs the job only if that attempt
 * died (run/job.ts, `backstopClaimable`).
 */
export const JobMessage = z.object({
  jobId: z.string().min(1),
  after: z.number().int().min(0).optional(),
  page: JobPage.optional(),
  backstop: z.boolean().optional(),
});
export type JobMessage = z.infer<typeof JobMessage>;

/** One attempt of a job's completion webhook (the job id, attempt 1 to 5). */
export const WebhookMessage = z.object({
  webhook: z.string().min(1),
  attempt: z.number().int().min(1).default(1),
}) satisfies z.ZodType<WebhookMessageType>;

/** One attempt of an alert's webhook: the whole request rides the queue (there is no job to read it from). */
export const AlertWebhookMessage = z.object({
  alertWebhook: z.object({
    url: z.string(),
    accessGroupId: z.number().int(),
    body: z.object({
      alert_id: z.string(),
      provided_id: z.string(),
      slot: z.string(),
      dashboard_embed_id: z.string(),
      panel_id: z.string(),
      column: z.string().nullable(),
      value: z.number().nullable(),
      condition: z.object({ op: z.string(), value: z.number() }),
      message: z.string(),
    }),
  }),
  attempt: z.number().int().min(1).default(1),
}) satisfies z.ZodType<AlertWebhookMessageType>;

export const DeliveryMessage = z.union([AlertWebhookMessage, WebhookMessage, JobMessage]);
export type DeliveryMessage = z.input<typeof DeliveryMessage>;

/**
 * Parses a message body against the shape its key names (`alertWebhook`, `webhook`, else a
 * job), so a refusal says which field is wrong rather than that no shape matched.
 */
export function parseDeliveryMessage(body: unknown): z.ZodSafeParseResult<z.output<typeof DeliveryMessage>> {
  const has = (key: string) => typeof body === "object" && body !== null && key in body;
  if (has("alertWebhook")) return AlertWebhookMessage.safeParse(body);
  if (has("webhook")) return WebhookMessage.safeParse(body);
  return JobMessage.safeParse(body);
}

import { z } from "zod";
import type { AlertWebhookMessage as AlertWebhookMessageType, WebhookMessage as WebhookMessageType } from "../../webhooks/service";
import { JobRequestSchema, type JobRequest } from "../schemas";
import { storedTarget, targetColumns, type DeliveryTarget } from "../target";

/**
 * The delivery queue's messages. Whoever sends one builds it against these types; the
 * consumer parses every message body (`parseDeliveryMessage`) before acting on it, so a body
 * of another shape is refused in one place (logged and acknowledged) instead of being
 * half-read.
 */

/** What a job renders: who sees which dashboard or saved report, how. */
export interface JobPage {
  customerId: number;
  target: DeliveryTarget;
  request: JobRequest;
}

/**
 * A job's page as its queue message spells it: the target in the job row's two fields
 * (`embedId`, '' for a saved report, and `reportId`), parsed into a JobPage — messages
 * queued by an earlier deploy read the same.
 */
const JobPageMessage = z
  .object({
    customerId: z.number().int(),
    embedId: z.string(),
    reportId: z.string().optional(),
    request: JobRequestSchema,
  })
  .transform(
    ({ customerId, embedId, reportId, request }): JobPage => ({
      customerId,
      target: storedTarget({ dashboardEmbedId: embedId, reportId: reportId ?? null }),
      request,
    }),
  );

/** A JobPage as a queue message carries it (JobPageMessage parses it back). */
export function pageMessage({ customerId, target, request }: JobPage): z.input<typeof JobPageMessage> {
  const { dashboardEmbedId, reportId } = targetColumns(target);
  return { customerId, embedId: dashboardEmbedId, ...(reportId !== null ? { reportId } : {}), request };
}

/**
 * A job to run. `after`: attempts already used before this message; `page`: what the job
 * renders, so the render can start alongside the claim; `backstop`: held back while the API
 * call that created the job runs its first attempt — it runs the job only if that attempt
 * died (run/job.ts, `backstopClaimable`).
 */
export const JobMessage = z.object({
  jobId: z.string().min(1),
  after: z.number().int().min(0).optional(),
  page: JobPageMessage.optional(),
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

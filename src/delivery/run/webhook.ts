import type { Database } from "../../db/client";
import type { Env } from "../../env";
import { deliverWebhook, retryDelaySeconds, type AlertWebhookMessage, type WebhookBody, type WebhookMessage } from "../../webhooks/service";
import * as repo from "../repository";
import type { DeliveryMessage } from "./message";

/** One attempt of a job's webhook: `{job_id, status, error, url?}` to its callback URL. */
export async function sendJobWebhook(db: Database, env: Env, message: WebhookMessage): Promise<"delivered" | "retry" | "gave_up"> {
  const [job] = await repo.jobById(db, message.webhook);
  if (!job || (job.status !== "done" && job.status !== "failed")) return "gave_up";
  const request = job.request;
  if (!request.callbackUrl) return "gave_up";
  const body: WebhookBody = {
    job_id: job.id,
    status: job.status,
    error: job.error,
    ...(job.status === "done" && request.downloadUrl ? { url: request.downloadUrl } : {}),
  };
  return deliverWebhook(db, env, { url: request.callbackUrl, accessGroupId: job.accessGroupId, body }, message.attempt);
}

/** A job's webhook attempt; a refused one is sent again later with backoff, never blocking a job. */
export async function jobWebhookAttempt(db: Database, env: Env, message: WebhookMessage): Promise<void> {
  const outcome = await sendJobWebhook(db, env, message);
  if (outcome !== "retry") return;
  await env.DELIVERY_QUEUE.send({ webhook: message.webhook, attempt: message.attempt + 1 } satisfies DeliveryMessage, {
    delaySeconds: retryDelaySeconds(message.attempt),
  });
}

/** An alert's webhook attempt; a refused one is queued again with the same backoff as a job's. */
export async function alertWebhookAttempt(db: Database, env: Env, message: AlertWebhookMessage): Promise<void> {
  const outcome = await deliverWebhook(db, env, message.alertWebhook, message.attempt);
  if (outcome !== "retry") return;
  await env.DELIVERY_QUEUE.send({ ...message, attempt: message.attempt + 1 } satisfies DeliveryMessage, {
    delaySeconds: retryDelaySeconds(message.attempt),
  });
}

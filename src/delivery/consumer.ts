import { createDatabase } from "../db/client";
import type { Env } from "../env";
import { errorDetail, log } from "../lib/log";
import { deliverWebhook, retryDelaySeconds, type AlertWebhookMessage } from "../webhooks/service";
import { attemptJob, nextAttemptDelaySeconds, queueNextAttempt, type AttemptOutcome } from "./attempt";
import { deliveryEffects, type DeliveryEffects } from "./effects";
import { announceEnd, MAX_ATTEMPTS, sendJobWebhook, sweepStuckJobs, type DeliveryMessage, type JobPage } from "./service";

export type { DeliveryMessage } from "./service";

/** The sweep runs at most this often per isolate, so it stays off the hot path. */
const SWEEP_EVERY_MS = 60_000;
let lastSweep = 0;

/**
 * The delivery queue's consumer. wrangler.toml sets `max_batch_timeout = 0` (a job never
 * waits for a batch to fill) and `max_batch_size = 10`: when jobs arrive faster than they
 * end, the next batch takes what has piled up, and its jobs run side by side — one job's
 * queries and storage overlap another's capture (captures themselves take turns in a
 * capture station, delivery/browser.ts). Each message is acked or retried on its own: a
 * failed attempt is retried with backoff (5 s after attempt 1, 10 s after attempt 2); after
 * the third attempt the job is `failed`. A message that carried all three attempts then
 * moves to the dead-letter queue (`max_retries = 2`); one that took over a job part-way
 * (`after`: the API call's first attempt, the sweep) is acked — the job row and its webhook
 * say how it ended.
 * A failure that no retry can fix (customer deleted, not a dashboard) fails the job at
 * once. Webhook messages ride the same queue.
 */
export async function consumeDeliveries(batch: MessageBatch<DeliveryMessage>, env: Env, ctx?: ExecutionContext): Promise<void> {
  const db = createDatabase(env.DB);
  const effects = deliveryEffects(env);
  if (Date.now() - lastSweep > SWEEP_EVERY_MS) {
    lastSweep = Date.now();
    const sweep = sweepStuck(db, env);
    if (ctx) ctx.waitUntil(sweep);
    else await sweep;
  }
  await Promise.all(batch.messages.map((message) => consumeOne(db, env, effects, message)));
}

async function consumeOne(db: ReturnType<typeof createDatabase>, env: Env, effects: DeliveryEffects, message: Message<DeliveryMessage>): Promise<void> {
  const body = message.body as Partial<{ jobId: unknown; after: unknown; page: JobPage; backstop: unknown; webhook: unknown; attempt: unknown; alertWebhook: AlertWebhookMessage["alertWebhook"] }> | null;
  if (body?.alertWebhook && typeof body.alertWebhook === "object") {
    await alertWebhook(db, env, { alertWebhook: body.alertWebhook, attempt: typeof body.attempt === "number" ? body.attempt : 1 });
    message.ack();
    return;
  }
  if (typeof body?.webhook === "string") {
    try {
      await webhook(db, env, { webhook: body.webhook, attempt: typeof body.attempt === "number" ? body.attempt : 1 });
      message.ack();
    } catch (error) {
      // Our side failed (database, queue): let the queue deliver this attempt again.
      log("error", "webhook attempt could not run", { job_id: body.webhook, detail: errorDetail(error) });
      message.retry({ delaySeconds: 5 });
    }
    return;
  }
  if (typeof body?.jobId !== "string") {
    log("warn", "delivery message without a job id", { message_id: message.id });
    message.ack();
    return;
  }
  const attempt = (typeof body.after === "number" ? body.after : 0) + message.attempts;
  const backstop = body.backstop === true;
  let outcome: AttemptOutcome;
  try {
    outcome = await attemptJob(db, env, effects, { jobId: body.jobId, page: body.page, backstop }, attempt);
  } catch (error) {
    // Its failure could not be recorded: the job is still `rendering`, and a plain message on
    // the backoff takes it over (a backstop's redelivery would not claim it again). The other
    // messages of the batch are not held back by this one.
    log("error", "attempt failed and could not be recorded; the next attempt takes the job over", { job_id: body.jobId, attempt, detail: errorDetail(error) });
    if (backstop) {
      await queueNextAttempt(env, body.jobId, body.page, attempt);
      message.ack();
    } else {
      message.retry({ delaySeconds: nextAttemptDelaySeconds(attempt) });
    }
    return;
  }
  if (outcome === "retry" && backstop) {
    // A backstop claims only a dead first attempt: its own retry goes out as a plain message.
    await queueNextAttempt(env, body.jobId, body.page, attempt);
    message.ack();
  } else if (outcome === "retry") {
    message.retry({ delaySeconds: nextAttemptDelaySeconds(attempt) });
  } else if (outcome === "failed" && message.attempts >= MAX_ATTEMPTS) {
    // Failed after every attempt: the message goes on to the dead-letter queue.
    message.retry({ delaySeconds: 0 });
  } else {
    message.ack();
  }
}

/** The stuck-job sweep on its own (the every-minute Cron Trigger), so it runs with no traffic too. */
export function sweepStuckDeliveries(env: Env): Promise<void> {
  lastSweep = Date.now();
  return sweepStuck(createDatabase(env.DB), env);
}

async function sweepStuck(db: ReturnType<typeof createDatabase>, env: Env): Promise<void> {
  try {
    const { ended } = await sweepStuckJobs(db, env);
    for (const job of ended) await announceEnd(env, job);
  } catch (error) {
    log("error", "stuck-job sweep failed", { detail: errorDetail(error) });
  }
}

/** A webhook attempt; a refused one is sent again later with backoff, never blocking a job. */
async function webhook(db: ReturnType<typeof createDatabase>, env: Env, message: { webhook: string; attempt: number }): Promise<void> {
  const outcome = await sendJobWebhook(db, message);
  if (outcome !== "retry") return;
  await env.DELIVERY_QUEUE.send({ webhook: message.webhook, attempt: message.attempt + 1 } satisfies DeliveryMessage, {
    delaySeconds: retryDelaySeconds(message.attempt),
  });
}

/** An alert's webhook attempt; a refused one is queued again with the same backoff as a job's. */
async function alertWebhook(db: ReturnType<typeof createDatabase>, env: Env, message: AlertWebhookMessage): Promise<void> {
  const outcome = await deliverWebhook(db, message.alertWebhook, message.attempt);
  if (outcome !== "retry") return;
  await env.DELIVERY_QUEUE.send({ ...message, attempt: message.attempt + 1 } satisfies AlertWebhookMessage, { delaySeconds: retryDelaySeconds(message.attempt) });
}

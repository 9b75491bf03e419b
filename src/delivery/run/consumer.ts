import { createDatabase, type Database } from "../../db/client";
import type { Env } from "../../env";
import { errorDetail, log } from "../../lib/log";
import { sweepWhenDue } from "../sweep";
import { attemptJob, nextAttemptDelaySeconds, queueNextAttempt, type AttemptOutcome } from "./attempt";
import { deliveryEffects, type DeliveryEffects } from "./effects";
import { parseDeliveryMessage, type DeliveryMessage, type JobMessage } from "./message";
import { MAX_ATTEMPTS } from "./outcome";
import { alertWebhookAttempt, jobWebhookAttempt } from "./webhook";

/**
 * The delivery queue's consumer. wrangler.toml sets `max_batch_timeout = 0` (a job never
 * waits for a batch to fill) and `max_batch_size = 10`: when jobs arrive faster than they
 * end, the next batch takes what has piled up, and its jobs run side by side — one job's
 * queries and storage overlap another's capture (captures themselves take turns in a
 * capture station, run/capture-station.ts). Each message is acked or retried on its own: a
 * failed attempt is retried with backoff (5 s after attempt 1, 10 s after attempt 2); after
 * the third attempt the job is `failed`. A message that carried all three attempts then
 * moves to the dead-letter queue (`max_retries = 2`); one that took over a job part-way
 * (`after`: the API call's first attempt, the sweep) is acked — the job row and its webhook
 * say how it ended.
 * A failure that no retry can fix (customer deleted, not a dashboard) fails the job at
 * once. Webhook messages ride the same queue. A message that is none of these
 * (run/message.ts) is logged and acked: no delivery of it could ever succeed.
 */
export async function consumeDeliveries(batch: MessageBatch<DeliveryMessage>, env: Env, ctx?: ExecutionContext): Promise<void> {
  const db = createDatabase(env.DB);
  const effects = deliveryEffects(env);
  await sweepWhenDue(db, env, ctx);
  await Promise.all(batch.messages.map((message) => consumeOne(db, env, effects, message)));
}

async function consumeOne(db: Database, env: Env, effects: DeliveryEffects, message: Message<unknown>): Promise<void> {
  const parsed = parseDeliveryMessage(message.body);
  if (!parsed.success) {
    // The body itself is not logged: a job's page carries e-mail addresses and variables.
    log("warn", "malformed delivery message acknowledged", {
      message_id: message.id,
      detail: parsed.error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; "),
    });
    message.ack();
    return;
  }
  const body = parsed.data;
  if ("alertWebhook" in body) {
    await alertWebhookAttempt(db, env, body);
    message.ack();
    return;
  }
  if ("webhook" in body) {
    try {
      await jobWebhookAttempt(db, env, body);
      message.ack();
    } catch (error) {
      // Our side failed (database, queue): let the queue deliver this attempt again.
      log("error", "webhook attempt could not run", { job_id: body.webhook, detail: errorDetail(error) });
      message.retry({ delaySeconds: 5 });
    }
    return;
  }
  await jobAttempt(db, env, effects, message, body);
}

async function jobAttempt(db: Database, env: Env, effects: DeliveryEffects, message: Message<unknown>, body: JobMessage): Promise<void> {
  const attempt = (body.after ?? 0) + message.attempts;
  const backstop = body.backstop === true;
  let outcome: AttemptOutcome;
  try {
    outcome = await attemptJob(db, env, effects, { jobId: body.jobId, page: body.page, backstop }, attempt);
  } catch (error) {
    // Its failure could not be recorded: the job is still `rendering`, and a plain message on
    // the backoff takes it over (a backstop's redelivery would not claim it again). The other
    // messages of the batch are not held back by this one.
    log("error", "attempt failed and could not be recorded; the next attempt takes the job over", {
      job_id: body.jobId,
      attempt,
      detail: errorDetail(error),
    });
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

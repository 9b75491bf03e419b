import { createDatabase } from "../db/client";
import type { Env } from "../env";
import { log } from "../lib/log";
import { recordFailure, runJob } from "./service";

export interface DeliveryMessage {
  jobId: string;
}

/**
 * The delivery queue's consumer. Messages of a batch run one after the other so they share
 * one browser session. A failed attempt is retried with backoff (5 s, 10 s); after the
 * third attempt the job is `failed` and the queue moves the message to the dead-letter
 * queue (`max_retries = 2` in wrangler.toml).
 */
export async function consumeDeliveries(batch: MessageBatch<DeliveryMessage>, env: Env): Promise<void> {
  const db = createDatabase(env.DB);
  for (const message of batch.messages) {
    const jobId = message.body?.jobId;
    if (typeof jobId !== "string") {
      log("warn", "delivery message without a job id", { message_id: message.id });
      message.ack();
      continue;
    }
    try {
      await runJob(db, env, jobId, message.attempts);
      message.ack();
    } catch (error) {
      const outcome = await recordFailure(db, jobId, message.attempts, error);
      message.retry({ delaySeconds: outcome === "retry" ? 5 * 2 ** (message.attempts - 1) : 0 });
    }
  }
}

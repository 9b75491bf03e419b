import { createApp } from "./app";
import type { Env } from "./env";
import { log } from "./lib/log";

export { ApiTokenGuard } from "./http/api-token-guard";

const app = createApp();

export default {
  fetch: app.fetch,
  // Delivery jobs (screenshots and reports) are consumed here once they exist; until then
  // nothing produces messages, and an unexpected one is logged and retried, never dropped.
  async queue(batch: MessageBatch<unknown>): Promise<void> {
    for (const message of batch.messages) {
      log("warn", "delivery message without a consumer", { queue: batch.queue, message_id: message.id });
      message.retry();
    }
  },
} satisfies ExportedHandler<Env>;

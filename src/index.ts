import { createApp } from "./app";
import { consumeDeliveries, type DeliveryMessage } from "./delivery/consumer";
import type { Env } from "./env";

export { ApiTokenGuard } from "./http/api-token-guard";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<DeliveryMessage>, env: Env) => consumeDeliveries(batch, env),
} satisfies ExportedHandler<Env, DeliveryMessage>;

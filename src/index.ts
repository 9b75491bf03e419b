import { createApp } from "./app";
import { consumeDeliveries, type DeliveryMessage } from "./delivery/consumer";
import type { Env } from "./env";
import { runDueSchedules } from "./schedules/service";
import { serveRequest } from "./http/request-state";

export { ApiTokenGuard } from "./http/api-token-guard";

const app = createApp();

export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) => serveRequest(request, env, (r) => app.fetch(r, env, ctx)),
  queue: (batch: MessageBatch<DeliveryMessage>, env: Env) => consumeDeliveries(batch, env),
  // Cron Trigger, every minute: runs the report schedules that are due.
  scheduled: async (controller: ScheduledController, env: Env) => {
    await runDueSchedules(env, controller.scheduledTime);
  },
} satisfies ExportedHandler<Env, DeliveryMessage>;

import { createApp } from "./assemble-app";
import { consumeDeliveries } from "./delivery/run/consumer";
import type { DeliveryMessage } from "./delivery/run/message";
import { sweepStuckDeliveries } from "./delivery/sweep";
import type { Env } from "./env";
import { runDueSchedules } from "./schedules/runner/tick";
import { serveRequest } from "./http/request-state";
import { config } from "./config";
import { setLogLevel } from "./lib/log";

export { ApiTokenGuard } from "./rate-limits/guard";
export { CaptureStation } from "./delivery/run/capture-station";

const app = createApp();

export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) => serveRequest(request, env, (r, e) => app.fetch(r, e, ctx)),
  queue: (batch: MessageBatch<DeliveryMessage>, env: Env, ctx: ExecutionContext) => consumeDeliveries(batch, configured(env), ctx),
  // Cron Trigger, every minute: runs the report schedules that are due, and finds delivery
  // jobs stuck beyond their bound (neither waits for the other).
  scheduled: async (controller: ScheduledController, env: Env) => {
    configured(env);
    await Promise.all([runDueSchedules(env, controller.scheduledTime), sweepStuckDeliveries(env)]);
  },
} satisfies ExportedHandler<Env, DeliveryMessage>;

/**
 * The queue and cron handlers parse the vars before any work (a bad one fails the invocation
 * with its name, as a request answers 500 naming it) and log at LOG_LEVEL.
 */
function configured(env: Env): Env {
  setLogLevel(config(env).LOG_LEVEL);
  return env;
}

import type { Env } from "../../env";
import { errorDetail, log } from "../../lib/log";
import type { AlertWebhookMessage } from "../../webhooks/service";
import type { Verdict } from "./alert-rule";

/** The row fields an alert's webhook reports. */
interface AlertFields {
  id: string;
  accessGroupId: number;
  dashboardEmbedId: string;
  panelId: string | null;
  alertColumn: string | null;
  conditionOp: string | null;
  conditionValue: number | null;
  callbackUrl: string | null;
}

/**
 * The webhook of an alert that fired for one customer: what fired, for whom, at which slot,
 * with the value and the sentence of its e-mail. It rides the delivery queue and is signed
 * and retried as a job's webhook is.
 */
export function alertWebhook(
  alert: AlertFields,
  run: { slot: string },
  target: { providedId: string },
  verdict: Verdict,
): AlertWebhookMessage {
  return {
    alertWebhook: {
      url: alert.callbackUrl ?? "",
      accessGroupId: alert.accessGroupId,
      body: {
        alert_id: alert.id,
        provided_id: target.providedId,
        slot: run.slot,
        dashboard_embed_id: alert.dashboardEmbedId,
        panel_id: alert.panelId ?? "",
        column: alert.alertColumn,
        value: verdict.value,
        condition: { op: alert.conditionOp ?? "", value: alert.conditionValue ?? 0 },
        message: verdict.headline,
      },
    },
    attempt: 1,
  };
}

/** Queues the webhook; false (logged) when the queue refused it, so the evaluation is not counted as fired. */
export async function queueAlertWebhook(env: Env, message: AlertWebhookMessage): Promise<boolean> {
  try {
    await env.DELIVERY_QUEUE.send(message);
    return true;
  } catch (error) {
    log("error", "alert webhook could not be queued", { alert_id: message.alertWebhook.body.alert_id, detail: errorDetail(error) });
    return false;
  }
}

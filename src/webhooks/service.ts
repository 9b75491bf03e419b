import type { Database } from "../db/client";
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import { hmacSha256Hex, importHmacKey, randomHex } from "../lib/crypto";
import { resolvedDestinationProblem } from "../lib/destination-policy";
import { log } from "../lib/log";
import * as repo from "./repository";
import { config } from "../config";

/** Attempts per webhook, and the first retry delay (doubled each time: 5, 10, 20, 40 s). */
const WEBHOOK_MAX_ATTEMPTS = 5;
const FIRST_RETRY_SECONDS = 5;
const TIMEOUT_MS = 10_000;

export interface WebhookMessage {
  webhook: string; // the job id
  attempt: number;
}

export interface WebhookBody {
  job_id: string;
  status: "done" | "failed";
  error: string | null;
  url?: string;
}

/** What an alert's webhook reports (src/alerts/webhook.ts). */
export interface AlertWebhookBody {
  alert_id: string;
  provided_id: string;
  slot: string;
  dashboard_embed_id: string;
  panel_id: string;
  column: string | null;
  value: number | null;
  condition: { op: string; value: number };
  message: string;
}

/** An alert's webhook: the whole request rides the queue (there is no job to read it from). */
export interface AlertWebhookMessage {
  alertWebhook: { url: string; accessGroupId: number; body: AlertWebhookBody };
  attempt: number;
}

/** Creates (or replaces) an access group's webhook secret; the secret is shown only here. */
export async function createWebhookSecret(
  db: Database,
  accessGroup: string,
): Promise<{ access_group: string; created_at: string; secret: string }> {
  const secret = `whsec_${randomHex(32)}`;
  const [row] = await repo.putWebhookSecret(db, accessGroup, secret);
  if (!row) throw new ApiError("access_group_not_found", `Access group '${accessGroup}' does not exist.`, "access_group");
  return { access_group: accessGroup, created_at: row.createdAt, secret };
}

/**
 * `sha256=<hex>`: HMAC-SHA256, keyed with the access group's secret (the string as issued,
 * UTF-8), of `<timestamp>.<body>` — the Unix seconds sent as `X-Signature-Timestamp`, a dot,
 * the exact body. With the time signed, a receiver refuses an old delivery replayed later.
 */
export async function signature(secret: string, timestamp: number, body: string): Promise<string> {
  return `sha256=${await hmacSha256Hex(await importHmacKey(secret), `${timestamp}.${body}`)}`;
}

/** The one destination policy (lib/destination-policy.ts) under this deployment's ENVIRONMENT and resolver. */
const destinationRules = (env: Env) => {
  const vars = config(env);
  return { development: vars.ENVIRONMENT === "development", resolverUrl: vars.DNS_RESOLVER_URL };
};

/**
 * https to a public host (lib/destination-policy.ts), also by its addresses when
 * DNS_RESOLVER_URL names a resolver; in development also localhost and 127.0.0.1 (a receiver
 * on the developer's laptop). Anything else is refused before a job or an alert exists: 400
 * validation_error on callback_url.
 */
export async function checkCallbackUrl(env: Env, callbackUrl: string): Promise<void> {
  const problem = await resolvedDestinationProblem(callbackUrl, destinationRules(env));
  if (problem) throw new ApiError("validation_error", `callback_url is refused: ${problem}.`, "callback_url");
}

/** A callback_url needs a secret to sign with: the error when the access group has none. */
export function webhookSecretMissing(): ApiError {
  return new ApiError(
    "webhook_secret_missing",
    "callback_url needs a webhook secret for this access group (POST /admin/webhook_secrets/).",
    "callback_url",
  );
}

/**
 * One delivery attempt. Answers "retry" when the receiver did not take it (network error,
 * timeout, non-2xx) and attempts remain; never throws, so it never holds up a job.
 */
export async function deliverWebhook(
  db: Database,
  env: Env,
  target: { url: string; accessGroupId: number; body: WebhookBody | AlertWebhookBody },
  attempt: number,
): Promise<"delivered" | "retry" | "gave_up"> {
  // Checked again at sending: a URL stored before the policy (or under another ENVIRONMENT), or a
  // name that has come to resolve inward since it was saved, is never called.
  const refused = await resolvedDestinationProblem(target.url, destinationRules(env));
  if (refused) {
    log("warn", "webhook not sent: its destination is refused", { ...webhookSubject(target.body), reason: refused });
    return "gave_up";
  }
  const [row] = await repo.webhookSecret(db, target.accessGroupId);
  if (!row) {
    log("warn", "webhook not sent: the access group has no secret any more", webhookSubject(target.body));
    return "gave_up";
  }
  const body = JSON.stringify(target.body);
  // Each attempt is signed at its own time: a retry is never an old signature replayed.
  const timestamp = Math.floor(Date.now() / 1000);
  let outcome: string;
  try {
    const response = await fetch(target.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Signature-Timestamp": String(timestamp),
        "X-Signature": await signature(row.secret, timestamp, body),
        "X-Webhook-Attempt": String(attempt),
      },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (response.ok) return "delivered";
    outcome = `HTTP ${response.status}`;
  } catch (error) {
    outcome = error instanceof Error ? error.name : "error";
  }
  const final = attempt >= WEBHOOK_MAX_ATTEMPTS;
  log("warn", "webhook attempt failed", { ...webhookSubject(target.body), attempt, outcome, final });
  return final ? "gave_up" : "retry";
}

/** What a webhook is about, for its log lines. */
const webhookSubject = (body: WebhookBody | AlertWebhookBody) =>
  "job_id" in body ? { job_id: body.job_id } : { alert_id: body.alert_id, provided_id: body.provided_id };

export function retryDelaySeconds(attempt: number): number {
  return FIRST_RETRY_SECONDS * 2 ** (attempt - 1);
}

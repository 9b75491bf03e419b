import { EmailMessage } from "cloudflare:email";
import type { Env } from "../../env";
import { buildMime, type Mail } from "./mime";
import { config } from "../../config";

/**
 * Sends through the `send_email` binding. With DEV_ROUTES on (local development) every
 * message is also kept in R2 under `outbox/` so a person can open exactly what the recipient
 * gets (/_dev/outbox, newest first).
 */
export async function sendMail(env: Env, mail: Mail, jobId: string): Promise<void> {
  const { MAIL_FROM: from, DEV_ROUTES } = config(env);
  const raw = buildMime(from, mail);
  await env.EMAIL.send(new EmailMessage(from, mail.to, raw));
  if (DEV_ROUTES) {
    await env.FILES.put(`outbox/${outboxKeyTime(Date.now())}-${jobId}.eml`, raw, {
      httpMetadata: { contentType: "message/rfc822" },
      customMetadata: { to: mail.to, subject: mail.subject, job_id: jobId },
    });
  }
}

/** Outbox keys sort newest first (R2 lists keys in ascending order): a countdown in ms. */
export function outboxKeyTime(ms: number): string {
  return String(9_999_999_999_999 - ms).padStart(13, "0");
}

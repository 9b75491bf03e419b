import { EmailMessage } from "cloudflare:email";
import { createMimeMessage } from "mimetext/browser";
import type { Env } from "../env";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra header fields, e.g. List-Unsubscribe (RFC 8058). */
  headers?: Record<string, string>;
  attachments: { filename: string; contentType: string; bytes: Uint8Array; contentId?: string }[];
}

export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The raw MIME message (built with mimetext). */
export function buildMime(from: string, mail: Mail): string {
  const message = createMimeMessage();
  message.setSender(from);
  message.setRecipient(mail.to);
  message.setSubject(mail.subject);
  for (const [name, value] of Object.entries(mail.headers ?? {})) message.setHeader(name, value);
  message.addMessage({ contentType: "text/plain", data: mail.text });
  if (mail.html) message.addMessage({ contentType: "text/html", data: mail.html });
  for (const attachment of mail.attachments) {
    message.addAttachment({
      filename: attachment.filename,
      contentType: attachment.contentType,
      data: base64(attachment.bytes),
      ...(attachment.contentId ? { inline: true, headers: { "Content-ID": `<${attachment.contentId}>` } } : {}),
    });
  }
  return message.asRaw();
}

/**
 * Sends through the `send_email` binding. In local development every message is also kept
 * in R2 under `outbox/` so a person can open exactly what the recipient gets (/_dev/outbox,
 * newest first).
 */
export async function sendMail(env: Env, mail: Mail, jobId: string): Promise<void> {
  const from = env.MAIL_FROM ?? "reports@example.com";
  const raw = buildMime(from, mail);
  await env.EMAIL.send(new EmailMessage(from, mail.to, raw));
  if (env.ENVIRONMENT === "development") {
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

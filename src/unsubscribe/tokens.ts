import { customerTokenHmacKey } from "../customers/tokens";
import type { Env } from "../env";
import { hmacSha256Hex, sha256Hex } from "../lib/crypto";

/**
 * An unsubscribe token is HMAC-SHA256(CUSTOMER_TOKEN_SECRET, "unsubscribe:<rule>:<address>"):
 * 256 bits no one can guess without the secret, and the same for every e-mail of one rule to
 * one address, so it is derived again when each e-mail is built instead of being stored.
 * D1 keeps only its SHA-256 (the lookup key), so a copy of the database yields no working
 * link. The prefix keeps these apart from customer tokens made with the same secret.
 */
export async function unsubscribeToken(env: Env, scheduleId: string, email: string): Promise<string> {
  return hmacSha256Hex(await customerTokenHmacKey(env), `unsubscribe:${scheduleId}:${email.toLowerCase()}`);
}

export const hashUnsubscribeToken = sha256Hex;

/** The link in the e-mail's List-Unsubscribe header and footer. */
export function unsubscribeUrl(base: string, token: string): string {
  return `${base}/unsubscribe/${token}`;
}

/** A token as we make them: 64 lowercase hex characters (anything else is unknown without a lookup). */
export const UNSUBSCRIBE_TOKEN = /^[0-9a-f]{64}$/;

import type { Env } from "../env";
import { hmacSha256Hex, importHmacKey, randomHex, sha256Hex } from "../lib/crypto";
import { log } from "../lib/log";
import { config } from "../config";

/**
 * Customer tokens are HMAC-SHA256(CUSTOMER_TOKEN_SECRET, nonce): 64 lowercase hex
 * characters. D1 keeps only the random nonce and the token's SHA-256 (for lookups), so a
 * copy of the database alone does not yield working tokens, yet get_customer can still
 * return the token the vendor is expected to hand to the embed.
 */
const DEVELOPMENT_SECRET = "local-development-only-customer-token-secret";
/** The imported key, kept as a value (not a promise: a request awaits only what it made). */
let cached: { secret: string; key: CryptoKey } | undefined;
let warned = false;

/** The HMAC key customer tokens are derived with (from CUSTOMER_TOKEN_SECRET), imported once per secret. */
export async function customerTokenHmacKey(env: Env): Promise<CryptoKey> {
  let secret = env.CUSTOMER_TOKEN_SECRET;
  if (!secret) {
    if (config(env).ENVIRONMENT !== "development") throw new Error("CUSTOMER_TOKEN_SECRET is not configured");
    if (!warned) log("warn", "CUSTOMER_TOKEN_SECRET is not set; using the local development secret");
    warned = true;
    secret = DEVELOPMENT_SECRET;
  }
  if (cached?.secret !== secret) cached = { secret, key: await importHmacKey(secret) };
  return cached.key;
}

export function customerToken(key: CryptoKey, nonce: string): Promise<string> {
  return hmacSha256Hex(key, `customer-token:${nonce}`);
}

export async function newCustomerToken(key: CryptoKey): Promise<{ token: string; nonce: string; hash: string }> {
  const nonce = randomHex(16);
  const token = await customerToken(key, nonce);
  return { token, nonce, hash: await sha256Hex(token) };
}

export const hashCustomerToken = sha256Hex;

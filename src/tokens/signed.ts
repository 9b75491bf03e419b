/**
 * The signed-token scheme every token of the service uses (embed, report builder, preview,
 * and the viewer's subscriptions through the embed token): a compact JWS, HS256 with
 * EMBED_TOKEN_SECRET, signed and verified by hono/jwt on the platform's Web Crypto, with
 * `ctv`, the customer token's fingerprint, that revokes them all when the customer token
 * changes. Each kind's claims are in a file of its own beside this one.
 */
import type { z } from "@hono/zod-openapi";
import { sign, verify } from "hono/jwt";
import { constantTimeEqual, sha256Hex } from "../lib/crypto";
import { MISSING_EMBED_SECRET, type Env } from "../env";
import { ApiError } from "../http/errors";
import { log } from "../lib/log";
import { config } from "../config";

const DEVELOPMENT_SECRET = "local-development-only-embed-token-secret";
let warned = false;

/**
 * EMBED_TOKEN_SECRET. Outside development a missing secret is never replaced by a known one:
 * minting and opening signed tokens answer 500 naming the secret (src/env.ts also logs it
 * on the isolate's first request).
 */
function embedSecret(env: Env): string {
  const secret = env.EMBED_TOKEN_SECRET;
  if (secret) return secret;
  if (config(env).ENVIRONMENT !== "development") throw new ApiError("internal_error", MISSING_EMBED_SECRET);
  if (!warned) log("warn", "EMBED_TOKEN_SECRET is not set; using the local development secret");
  warned = true;
  return DEVELOPMENT_SECRET;
}

/** The customer-token fingerprint an embed token carries (never the token or its stored hash). */
export async function customerTokenFingerprint(tokenHash: string): Promise<string> {
  return (await sha256Hex(`embed-token:${tokenHash}`)).slice(0, 32);
}

/** Whether a customer's current token hash is the one the embed token was minted for. */
export async function fingerprintMatches(claims: { ctv: string }, tokenHash: string): Promise<boolean> {
  return constantTimeEqual(claims.ctv, await customerTokenFingerprint(tokenHash));
}

/** Signs claims with EMBED_TOKEN_SECRET; every kind of token shares it (their claims tell them apart: ./embed.ts, ./builder.ts, ./preview.ts). */
export function signWithEmbedSecret(env: Env, claims: Record<string, unknown>): Promise<string> {
  return sign(claims, embedSecret(env), "HS256");
}

/** The verified, unexpired claims of a token signed with EMBED_TOKEN_SECRET in `schema`'s shape, else null. */
export async function verifyWithEmbedSecret<T extends { exp: number }>(env: Env, token: string, schema: z.ZodType<T>): Promise<T | null> {
  const secret = embedSecret(env); // a missing secret is a configuration error (500), not a bad token
  try {
    const payload = await verify(token, secret, { alg: "HS256" });
    const claims = schema.safeParse(payload);
    // hono/jwt checks `exp` only when present; ours must always carry one.
    if (!claims.success || claims.data.exp <= Math.floor(Date.now() / 1000)) return null;
    return claims.data;
  } catch (error) {
    log("info", "signed token refused", { reason: error instanceof Error ? error.name : "unknown" });
    return null;
  }
}

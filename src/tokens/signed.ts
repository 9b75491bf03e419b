import { z } from "@hono/zod-openapi";
import { sign, verify } from "hono/jwt";
import { constantTimeEqual, sha256Hex } from "../lib/crypto";
import { MISSING_EMBED_SECRET, type Env } from "../env";
import { ApiError } from "../http/errors";
import { log } from "../lib/log";
import { config } from "../config";

/**
 * Signed embed tokens (docs/embedding.md): a compact JWS, HS256 with EMBED_TOKEN_SECRET,
 * signed and verified by hono/jwt on the platform's Web Crypto. The browser only ever sees
 * this short-lived token, never the customer token.
 *
 * Claims: `cid` (the customer's internal id), `ctv` (a fingerprint of the customer token
 * at minting time: refreshing the customer token or deleting the customer changes it, which
 * revokes every embed token of that customer without a revocation list), `dsh` (the
 * dashboard), `env?`, `vars?` (locked variables), `origins?`, `eml?` (the viewer's address),
 * `iat`, `exp`.
 */
export const EmbedClaims = z.object({
  cid: z.number().int().positive(),
  ctv: z.string().min(16),
  dsh: z.string().min(1),
  env: z.string().optional(),
  vars: z.record(z.string(), z.unknown()).optional(),
  origins: z.array(z.string()).optional(),
  /** The viewer's own address (`user_email`): may subscribe to this dashboard's e-mails. */
  eml: z.string().optional(),
  iat: z.number().int(),
  exp: z.number().int(),
});
export type EmbedClaims = z.infer<typeof EmbedClaims>;

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
export async function fingerprintMatches(claims: Pick<EmbedClaims, "ctv">, tokenHash: string): Promise<boolean> {
  return constantTimeEqual(claims.ctv, await customerTokenFingerprint(tokenHash));
}

export function signEmbedToken(env: Env, claims: EmbedClaims): Promise<string> {
  return signWithEmbedSecret(env, claims);
}

/** Signs claims with EMBED_TOKEN_SECRET; report-builder tokens share it (their claims tell them apart). */
export function signWithEmbedSecret(env: Env, claims: Record<string, unknown>): Promise<string> {
  return sign(claims, embedSecret(env), "HS256");
}

/**
 * The token's claims, or null when it is not one of ours: malformed, another algorithm
 * (`none` included), a bad signature, altered claims, or expired. Why is logged, the
 * token never.
 */
export async function verifyEmbedToken(env: Env, token: string): Promise<EmbedClaims | null> {
  return verifyWithEmbedSecret(env, token, EmbedClaims);
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

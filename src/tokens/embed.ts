import { z } from "@hono/zod-openapi";
import type { Env } from "../env";
import { signWithEmbedSecret, verifyWithEmbedSecret } from "./signed";

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
  /** The view's presentation (src/view/presentation.ts), when the minting call named it: theme name, locale, time zone. */
  thm: z.string().optional(),
  loc: z.string().optional(),
  tz: z.string().optional(),
  iat: z.number().int(),
  exp: z.number().int(),
});
export type EmbedClaims = z.infer<typeof EmbedClaims>;

export function signEmbedToken(env: Env, claims: EmbedClaims): Promise<string> {
  return signWithEmbedSecret(env, claims);
}

/**
 * The token's claims, or null when it is not one of ours: malformed, another algorithm
 * (`none` included), a bad signature, altered claims, or expired. Why is logged, the
 * token never.
 */
export async function verifyEmbedToken(env: Env, token: string): Promise<EmbedClaims | null> {
  return verifyWithEmbedSecret(env, token, EmbedClaims);
}

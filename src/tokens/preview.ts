import { z } from "@hono/zod-openapi";
import { signWithEmbedSecret, verifyWithEmbedSecret } from "./signed";
import type { Env } from "../env";

/**
 * A preview link's token: a compact JWS (HS256, EMBED_TOKEN_SECRET) naming the stored
 * preview (`pvw`, a random id whose hash keys the KV entry), the customer it is drawn for
 * (`cid`, with `ctv` the customer-token fingerprint, so refreshing the customer token ends
 * it as it ends embed tokens) and its expiry. It carries no `dsh`, so it never opens a saved
 * dashboard as an embed token, and an embed token (no `pvw`) never opens a preview.
 */
export const PreviewClaims = z.object({
  pvw: z.string().regex(/^[0-9a-f]{32}$/),
  cid: z.number().int().positive(),
  ctv: z.string().min(16),
  iat: z.number().int(),
  exp: z.number().int(),
});
export type PreviewClaims = z.infer<typeof PreviewClaims>;

export function signPreviewToken(env: Env, claims: PreviewClaims): Promise<string> {
  return signWithEmbedSecret(env, claims);
}

export function verifyPreviewToken(env: Env, token: string): Promise<PreviewClaims | null> {
  return verifyWithEmbedSecret(env, token, PreviewClaims);
}

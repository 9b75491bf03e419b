import { z } from "@hono/zod-openapi";
import { signWithEmbedSecret, verifyWithEmbedSecret } from "./signed";
import type { Env } from "../env";
import { BoundLockedFilter } from "../data/filters";

/**
 * Report-builder tokens: compact JWS (HS256) with EMBED_TOKEN_SECRET like the dashboards'
 * embed tokens, minted by the same operation, revoked the same way (`ctv`, the customer
 * token's fingerprint). `typ: "builder"` and the blueprint claims keep the two apart: a
 * dashboard token lacks them (so it opens no builder) and a builder token lacks `dsh` (so
 * it opens no dashboard).
 *
 * Claims: `typ`, `cid` (customer id), `ctv`, `bid` (blueprint id), `bpe` (its embed id),
 * `flt?` (locked filters, each bound to its table by a fingerprint), `uid?` (the end user), `save` (may save reports), `origins?`,
 * `iat`, `exp`.
 */
export const BuilderClaims = z.object({
  typ: z.literal("builder"),
  cid: z.number().int().positive(),
  ctv: z.string().min(16),
  bid: z.number().int().positive(),
  bpe: z.string().min(1),
  flt: z.array(BoundLockedFilter).optional(),
  uid: z.string().optional(),
  save: z.boolean(),
  origins: z.array(z.string()).optional(),
  /** The view's presentation (src/view/presentation.ts), when the minting call named it: theme name, locale, time zone. */
  thm: z.string().optional(),
  loc: z.string().optional(),
  tz: z.string().optional(),
  iat: z.number().int(),
  exp: z.number().int(),
});
export type BuilderClaims = z.infer<typeof BuilderClaims>;

export function signBuilderToken(env: Env, claims: BuilderClaims): Promise<string> {
  return signWithEmbedSecret(env, claims);
}

/** The claims of a valid, unexpired builder token, else null (a dashboard token included). */
export function verifyBuilderToken(env: Env, token: string): Promise<BuilderClaims | null> {
  return verifyWithEmbedSecret(env, token, BuilderClaims);
}

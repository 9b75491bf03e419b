import { visibleCustomerTokenHash } from "../customers/repository";
import { customerNotFound } from "../customers/not-found";
import * as dashboardsRepo from "../dashboards/repository";
import { dashboardNotFound } from "../dashboards/not-found";
import type { Database } from "../db/client";
import type { Env } from "../env";
import type { Principal } from "../rate-limits/principal";
import { signEmbedToken } from "../tokens/embed";
import { customerTokenFingerprint } from "../tokens/signed";
import { requireMintingPermission } from "./minting-permission";
import { themeByName } from "../themes/repository";
import { presentationClaims } from "./presentation-claims";

export interface EmbedTokenRequest {
  provided_id: string;
  dashboard_embed_id: string;
  environment?: string;
  variables?: Record<string, unknown>;
  expires_in?: number;
  allowed_origins?: string[];
  user_email?: string;
  theme?: string;
  locale?: string;
  timezone?: string;
}

export const DEFAULT_EMBED_TOKEN_SECONDS = 900;

/**
 * What a dashboard token could write: with the viewer's `user_email` its page offers the
 * Subscribe control, and subscribing creates a schedule.
 */
function dashboardTokenWrites(input: EmbedTokenRequest): string | undefined {
  return input.user_email !== undefined ? "lets its viewer subscribe (user_email)" : undefined;
}

/**
 * Mints a short-lived signed token for one customer and one dashboard (one D1 round trip:
 * the customer and the dashboard are looked up in one batch).
 */
export async function mintEmbedToken(
  db: Database,
  env: Env,
  scope: { accessGroupId: number; baseUrl: string; permission: Principal["permission"] },
  input: EmbedTokenRequest,
): Promise<{ token: string; expires_at: string; embed_url: string }> {
  requireMintingPermission(scope.permission, dashboardTokenWrites(input));
  const [customer, dashboard, theme] = await db.batch([
    visibleCustomerTokenHash(db, input.provided_id, scope.accessGroupId),
    dashboardsRepo.dashboardByEmbedId(db, input.dashboard_embed_id),
    themeByName(db, scope.accessGroupId, input.theme ?? ""),
  ]);
  if (customer.length === 0) throw customerNotFound(input.provided_id);
  if (dashboard.length === 0) throw dashboardNotFound(input.dashboard_embed_id, "dashboard_embed_id");
  const presentation = presentationClaims(input, theme);
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + (input.expires_in ?? DEFAULT_EMBED_TOKEN_SECONDS);
  const token = await signEmbedToken(env, {
    cid: customer[0].id,
    ctv: await customerTokenFingerprint(customer[0].tokenHash),
    dsh: input.dashboard_embed_id,
    ...(input.environment !== undefined ? { env: input.environment } : {}),
    ...(input.variables !== undefined ? { vars: input.variables } : {}),
    ...(input.allowed_origins !== undefined ? { origins: input.allowed_origins } : {}),
    ...(input.user_email !== undefined ? { eml: input.user_email.toLowerCase() } : {}),
    ...presentation,
    iat,
    exp,
  });
  return {
    token,
    expires_at: new Date(exp * 1000).toISOString(),
    embed_url: `${scope.baseUrl}/embed/${encodeURIComponent(input.dashboard_embed_id)}?token=${token}`,
  };
}

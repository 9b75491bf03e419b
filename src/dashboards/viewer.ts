import type { SQL } from "drizzle-orm";
import { byId, byTokenHash, type CustomerViewRow } from "../customers/repository";
import { hashCustomerToken } from "../customers/tokens";
import type { Env } from "../env";
import { HEX_TOKEN } from "../http/fields";
import { verifyEmbedToken } from "../tokens/embed";
import { fingerprintMatches } from "../tokens/signed";
import { newest, type VersionPolicy } from "./customer-dashboard";
import { config } from "../config";
import type { PresentationChoice } from "../view/presentation";
import type { ViewerCacheKey } from "./viewer-cache";

// Who views an embed page (or its CSV): a signed embed token or (legacy) a customer token.

/** Who views an embed page (or its CSV) and under which constraints. */
export interface Viewer {
  customer: SQL;
  accept?: (customer: CustomerViewRow) => Promise<boolean>;
  versions: VersionPolicy;
  /** Variables from `var_` parameters with the locked ones laid over them. */
  variables: Record<string, unknown>;
  /** Names of variables the signed token locks (no control is shown for them). */
  locked: string[];
  /** `frame-ancestors` for this page; undefined = FRAME_ANCESTORS. */
  frameAncestors?: string;
  /** A signed token's `user_email`: this viewer may subscribe (the page shows the control). */
  userEmail?: string;
  /** A signed token's own theme, locale and time zone (else the customer's). */
  presentation?: PresentationChoice;
  /** The customer's reads kept at the location for VIEWER_CACHE_SECONDS (src/dashboards/viewer-cache.ts). */
  viewerCache: ViewerCacheKey;
}

export interface Refusal {
  refused: string;
}

/** `var_<name>=<value>` query parameters; JSON objects and arrays are decoded. */
export function variablesFromQuery(query: Record<string, string>): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith("var_") || key.length === 4) continue;
    let parsed: unknown = value;
    if (/^\s*[[{]/.test(value)) {
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = value;
      }
    }
    variables[key.slice(4)] = parsed;
  }
  return variables;
}

function environmentPolicy(environment: string | undefined): VersionPolicy {
  return environment ? { tags: [environment], fallBackToNewest: false } : newest;
}

/**
 * The one authorisation rule of embed pages: a signed token (for this dashboard, unexpired,
 * its customer's token unchanged since minting), or — unless EMBED_REQUIRE_SIGNED — a
 * customer token. Anything else is refused with a reason for the 401 page.
 */
export async function resolveViewer(env: Env, embedId: string, query: Record<string, string>): Promise<Viewer | Refusal> {
  const fromQuery = variablesFromQuery(query);
  if (query.token !== undefined) {
    const claims = await verifyEmbedToken(env, query.token);
    if (!claims) return { refused: "This embed token is not valid or has expired." };
    if (claims.dsh !== embedId) return { refused: "This embed token was issued for another dashboard." };
    const locked = claims.vars ?? {};
    return {
      customer: byId(claims.cid),
      viewerCache: { viewer: `cid:${claims.cid}`, seconds: config(env).VIEWER_CACHE_SECONDS },
      accept: (customer) => fingerprintMatches(claims, customer.tokenHash),
      versions: environmentPolicy(claims.env ?? query.environment?.trim()),
      variables: { ...fromQuery, ...locked },
      locked: Object.keys(locked),
      frameAncestors: claims.origins?.join(" "),
      userEmail: claims.eml,
      presentation: { theme: claims.thm, locale: claims.loc, timezone: claims.tz },
    };
  }
  if (config(env).EMBED_REQUIRE_SIGNED) {
    return {
      refused: "Customer tokens are not accepted here: open dashboards with a signed embed token (POST /api/generate_embed_token/).",
    };
  }
  const customerToken = query.customer_token ?? "";
  if (!HEX_TOKEN.test(customerToken)) return { refused: "This dashboard link is missing a valid embed or customer token." };
  const tokenHash = await hashCustomerToken(customerToken);
  return {
    customer: byTokenHash(tokenHash),
    viewerCache: { viewer: `tok:${tokenHash}`, seconds: config(env).VIEWER_CACHE_SECONDS },
    versions: environmentPolicy(query.environment?.trim()),
    variables: fromQuery,
    locked: [],
  };
}

export function isRefusal(viewer: Viewer | Refusal): viewer is Refusal {
  return "refused" in viewer;
}

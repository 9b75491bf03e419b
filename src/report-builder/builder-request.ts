import type { StoredTable } from "../blueprints/schemas";
import { customerDataView } from "../data/customer-view";
import type { QueryCacheReport } from "../data/query-cache";
import { customerTokenFingerprint } from "../tokens/signed";
import type { Database, RoundTripCounter } from "../db/client";
import type { Env } from "../env";
import { currentRequest, markNotFound } from "../http/request-state";
import { ApiError } from "../http/errors";
import { constantTimeEqual } from "../lib/crypto";
import { countCustomerRequest } from "../rate-limits/customer-budget";
import { customerGuardName } from "../rate-limits/guard";
import type { BuilderClaims } from "../tokens/builder";
import type { CustomerViewRow } from "../customers/repository";
import * as customersRepo from "../customers/repository";
import * as dashboardsRepo from "../dashboards/repository";
import { computedPresentation, DEFAULT_LOCALE, DEFAULT_TIMEZONE } from "../view/presentation";
import { viewerReads } from "../dashboards/viewer-cache";
import { config } from "../config";
import { lockedFiltersFit, staleLockError } from "./locks";
import * as repo from "./repository";

/**
 * One builder request: who (the token's customer, still holding the token it was minted
 * for), which blueprint, within the customer's requests per minute. Every operation of the
 * builder opens its request here, in one D1 batch that the operation may extend with its own
 * reads (saved-reports.ts, page-data.ts); the count is not in it (see `opened`).
 */

export interface BuilderRequest {
  db: Database;
  env: Env;
  claims: BuilderClaims;
  dataRoundTrips?: RoundTripCounter;
  /** Notes whether query results came from the query cache (`X-Query-Cache`). */
  cacheReport?: QueryCacheReport;
  /** Work allowed to outlive the response: storing results, refreshing stale ones. */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** A builder request that passed its checks: the blueprint's tables and the customer's data view. */
export interface OpenedBuilder {
  claims: BuilderClaims;
  tables: StoredTable[];
  context: { customer: { provided_id: string; name: string; properties: Record<string, unknown> }; variables: Record<string, unknown> };
  mapping: Record<string, string>;
  sources: Awaited<ReturnType<typeof dashboardsRepo.dataSources>>;
  /** The customer chain's invalidation versions, in every cache key. */
  cacheVersions: string[];
  /** The view's locale and time zone: the token's, else the customer's computed ones (src/view/presentation.ts). */
  locale: string;
  timezone: string;
}

/** What every builder request reads — statements for one batch that the operation extends with its own. */
export function builderReads(request: BuilderRequest) {
  const { db, claims } = request;
  return [
    customersRepo.customerChain(db, customersRepo.byId(claims.cid)),
    repo.blueprintOfCustomer(db, claims.bid, claims.cid),
    dashboardsRepo.dataSources(db),
  ] as const;
}

/**
 * The checks of every builder request, in the contract's order: the token's customer still
 * there with the token it was minted for (401), the blueprint still there (404), the token's
 * locked filters still naming the blueprint's datasets and columns (401, locks.ts), the
 * customer's requests this minute (429). The count comes last and is not a D1 write: a call
 * refused for its token costs the customer nothing, and a warm request reaches neither the
 * D1 primary nor a Durable Object (rate-limits/customer-budget.ts).
 */
export async function opened(
  request: BuilderRequest,
  [chain, blueprint, sources]: readonly [CustomerViewRow[], { tables: StoredTable[] }[], OpenedBuilder["sources"], ...unknown[]],
): Promise<OpenedBuilder> {
  if (chain.length === 0 || !constantTimeEqual(request.claims.ctv, await customerTokenFingerprint(chain[0].tokenHash))) {
    // A replica may not have the customer, or its refreshed token, yet: read on the primary once more (declared routes).
    markNotFound();
    throw new ApiError("invalid_embed_token", "This report builder link is no longer valid.");
  }
  if (blueprint.length === 0) throw new ApiError("blueprint_not_found", "This blueprint does not exist any more.");
  // A lock renamed away, or whose names now point at another table or column, refuses the token rather than running without it.
  if (!(await lockedFiltersFit(blueprint[0].tables, request.claims.flt ?? []))) throw staleLockError();
  await countBuilderRequest(request);
  const { context, mapping, sources: usable, cacheVersions } = customerDataView(chain, sources);
  const computed = computedPresentation(chain);
  return {
    claims: request.claims,
    tables: blueprint[0].tables,
    context,
    mapping,
    sources: usable,
    cacheVersions,
    locale: request.claims.loc ?? computed.locale ?? DEFAULT_LOCALE,
    timezone: request.claims.tz ?? computed.timezone ?? DEFAULT_TIMEZONE,
  };
}

/** The customer's requests this minute: over BUILDER_REQUESTS_PER_MINUTE, 429 `rate_limited` with `Retry-After`. */
async function countBuilderRequest(request: BuilderRequest): Promise<void> {
  const customerId = request.claims.cid;
  // The retry on the primary of a replica's not-found was counted by its first attempt (if that got this far).
  const state = currentRequest();
  if (state && !state.countOnce(customerGuardName(customerId))) return;
  const verdict = await countCustomerRequest(request.env, customerId, request.waitUntil, () => currentRequest()?.countDurableObjectCall());
  if (verdict.outcome === "rate_limited") {
    throw new ApiError("rate_limited", `Too many report builder requests for this customer; retry in ${verdict.retryAfter} s.`, undefined, {
      "Retry-After": String(verdict.retryAfter),
    });
  }
}

/**
 * Opens a builder request that reads nothing more than every request does. Those reads are
 * kept at the location for VIEWER_CACHE_SECONDS (dashboards/viewer-cache.ts), keyed by the
 * token's customer and blueprint: a query whose result hits the query cache then makes no D1
 * trip. A customer or blueprint not found is never kept, and kept rows that do not know the
 * token's customer token (minted after a refresh elsewhere) are read again from D1.
 */
export async function openBuilder(request: BuilderRequest): Promise<OpenedBuilder> {
  const { claims } = request;
  const cacheKey = { viewer: `cid:${claims.cid}`, seconds: config(request.env).VIEWER_CACHE_SECONDS };
  const rows = await viewerReads(cacheKey, ["blueprint", String(claims.bid)], () => request.db.batch(builderReads(request)), {
    waitUntil: request.waitUntil,
    found: ([chain, blueprint]) => chain.length > 0 && blueprint.length > 0,
    usable: async ([chain]) => constantTimeEqual(claims.ctv, await customerTokenFingerprint(chain[0].tokenHash)),
  });
  return opened(request, rows);
}

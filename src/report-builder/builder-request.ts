import type { StoredTable } from "../blueprints/schemas";
import { customerDataView } from "../data/customer-view";
import type { QueryCacheReport } from "../data/query-cache";
import { customerTokenFingerprint } from "../tokens/signed";
import type { Database, RoundTripCounter } from "../db/client";
import { config } from "../config";
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import { currentRequest } from "../http/request-state";
import { constantTimeEqual } from "../lib/crypto";
import type { BuilderClaims } from "../tokens/builder";
import type { CustomerViewRow } from "../customers/repository";
import * as customersRepo from "../customers/repository";
import * as dashboardsRepo from "../dashboards/repository";
import { lockedFiltersFit, staleLockError } from "./locks";
import * as repo from "./repository";

/**
 * One builder request: who (the token's customer, still holding the token it was minted
 * for), which blueprint, within the customer's requests per minute. Every operation of the
 * builder opens its request here, in one D1 batch that the operation may extend with its own
 * reads (saved-reports.ts, page-data.ts).
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
}

const WINDOW_MS = 60_000;

function builderLimit(env: Env): number {
  return config(env).BUILDER_REQUESTS_PER_MINUTE;
}

/**
 * What every builder request reads, plus its count against BUILDER_REQUESTS_PER_MINUTE —
 * statements for one batch that the operation extends with its own.
 */
export function builderReads(request: BuilderRequest) {
  const { db, claims } = request;
  const windowStart = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS;
  return [
    customersRepo.customerChain(db, customersRepo.byId(claims.cid)),
    repo.blueprintOfCustomer(db, claims.bid, claims.cid),
    dashboardsRepo.dataSources(db),
    // A "not found" answered from a replica is served again from the primary (http/request-state):
    // that second attempt was counted by the first.
    currentRequest()?.isRetryOnPrimary
      ? repo.requestCount(db, claims.cid, windowStart)
      : repo.countRequest(db, claims.cid, windowStart, builderLimit(request.env)),
    repo.forgetOldWindows(db, claims.cid, windowStart),
  ] as const;
}

/**
 * The checks of every builder request, in the contract's order: the token's customer still
 * there with the token it was minted for (401), the blueprint still there (404), the token's
 * locked filters still naming the blueprint's datasets and columns (401, locks.ts), the
 * customer's requests this minute (429).
 */
export async function opened(
  request: BuilderRequest,
  [chain, blueprint, sources, counted]: readonly [
    CustomerViewRow[],
    { tables: StoredTable[] }[],
    OpenedBuilder["sources"],
    { count: number }[],
    unknown,
  ],
): Promise<OpenedBuilder> {
  if (chain.length === 0 || !constantTimeEqual(request.claims.ctv, await customerTokenFingerprint(chain[0].tokenHash))) {
    throw new ApiError("invalid_embed_token", "This report builder link is no longer valid.");
  }
  if (blueprint.length === 0) throw new ApiError("blueprint_not_found", "This blueprint does not exist any more.");
  // A lock renamed away by update_blueprint refuses the token rather than running without it.
  if (!lockedFiltersFit(blueprint[0].tables, request.claims.flt ?? [])) throw staleLockError();
  if (counted.length === 0) {
    const retryAfter = Math.max(1, Math.ceil((WINDOW_MS - (Date.now() % WINDOW_MS)) / 1000));
    throw new ApiError("rate_limited", `Too many report builder requests for this customer; retry in ${retryAfter} s.`, undefined, {
      "Retry-After": String(retryAfter),
    });
  }
  const { context, mapping, sources: usable, cacheVersions } = customerDataView(chain, sources);
  return { claims: request.claims, tables: blueprint[0].tables, context, mapping, sources: usable, cacheVersions };
}

/** Opens a builder request that reads nothing more than every request does. */
export async function openBuilder(request: BuilderRequest): Promise<OpenedBuilder> {
  return opened(request, await request.db.batch(builderReads(request)));
}

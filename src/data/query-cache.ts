import type { PanelQuery, PanelResult, Row } from "./sources/types";
import { sha256Hex } from "../lib/crypto";
import { errorDetail, log } from "../lib/log";

/**
 * Query results kept near the viewer: the Workers Cache API of the location that served
 * the request (`caches.default`, one per Cloudflare location; nothing is replicated).
 *
 * A layer around a data-source runner: it takes one data source's queries, answers those
 * it has, runs the rest in one call of the runner (so the one-batch-per-data-source shape
 * stays), and keeps what succeeded. A failed query is never kept.
 *
 * Key: SHA-256 of (data source id and binding, row limit, final SQL text, bound values,
 * invalidation versions). The bound values are the viewing customer's own (provided_id,
 * properties, variables, locked ones included) and the versions name the customer and its
 * ancestors, so an entry is never shared between customers; the versions also name the
 * dashboard, so `POST /api/invalidate_cache/` on either makes every later key new.
 *
 * Freshness: an entry younger than the TTL is a `hit`; one between TTL and twice the TTL is
 * served once more (`stale`) while the query runs again in the background
 * (`waitUntil`); after that, or once served stale, it is a `miss`.
 */

export type QueryCacheStatus = "hit" | "miss" | "stale" | "off";

/** Worse is higher: a page reports its worst panel. */
const RANK: Record<QueryCacheStatus, number> = { off: 0, hit: 1, stale: 2, miss: 3 };

/** The worst status of one request's queries (`miss` > `stale` > `hit` > `off`): its `X-Query-Cache`. */
export class QueryCacheReport {
  status: QueryCacheStatus = "off";

  note(status: QueryCacheStatus): void {
    if (RANK[status] > RANK[this.status]) this.status = status;
  }
}

/**
 * Invalidation versions of a customer chain (the viewer and its ancestors, whose properties
 * and mapping it inherits), by numeric id (never reused) and version. With the customer's id
 * in every key, two customers never share an entry, even for a query that binds nothing of
 * theirs, and one customer's invalidation never revives another's old entry.
 */
export function customerVersions(chain: { id: number; cacheVersion?: number | null }[]): string[] {
  return chain.map((c) => `c${c.id}.${c.cacheVersion ?? 0}`);
}

/**
 * A dashboard's invalidation version, by numeric id, with the viewing customer's access
 * group's own version of it (a group invalidates a shared dashboard for its customers only).
 */
export function dashboardVersion(
  dashboard: { dashboardId: number; cacheVersion?: number | null; groupCacheVersions?: Record<string, number> | null },
  accessGroupId: number | null,
): string {
  const groupVersion = accessGroupId === null ? 0 : (dashboard.groupCacheVersions?.[String(accessGroupId)] ?? 0);
  return `d${dashboard.dashboardId}.${dashboard.cacheVersion ?? 0}.g${groupVersion}`;
}

/** Longest a result may be kept (a day); 0 turns caching off. */
export const MAX_CACHE_TTL_SECONDS = 86_400;

export interface QueryCachePolicy {
  /** Seconds a result is fresh; 0 (or less) = never cached. */
  ttlSeconds: number;
  /** Invalidation versions in every key, e.g. `["c12.3", "d4.0"]` (customer 12 at version 3, dashboard 4 at 0). */
  versions: string[];
  /** Work that may outlive the response (storing, refreshing a stale entry); without it that work is awaited. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** Where each query's status is noted. */
  report?: QueryCacheReport;
}

/** What the key says about the data source; a different binding or row limit never shares an entry. */
export interface CachedSource {
  id: number;
  binding: string;
  rowLimit: number;
}

/**
 * Runs the queries that are not cached: `background` is true for the refresh of stale
 * entries after the response (its round trips are not the request's).
 */
export type QueryRunner = (queries: PanelQuery[], background: boolean) => Promise<Map<string, PanelResult>>;

/** The entries live under this made-up origin; `.invalid` never resolves, so nothing can fetch it. */
const KEY_ORIGIN = "https://query-cache.invalid/v1/";
const STORED_AT = "X-Stored-At";
const STALE_SERVED = "X-Stale-Served";

interface Entry {
  rows: Row[];
  truncated: boolean;
  ageMs: number;
  staleServed: boolean;
}

/** The cache of this location (a function: the global exists only inside workerd). */
const store = (): Cache => (caches as unknown as { default: Cache }).default;

export async function cacheKey(source: CachedSource, query: PanelQuery, versions: string[]): Promise<Request> {
  const digest = await sha256Hex(JSON.stringify([source.id, source.binding, source.rowLimit, query.sql, query.params, versions]));
  return new Request(KEY_ORIGIN + digest);
}

async function read(key: Request): Promise<Entry | null> {
  const response = await store().match(key);
  if (!response) return null;
  const storedAt = Number(response.headers.get(STORED_AT));
  try {
    const { rows, truncated } = (await response.json()) as { rows: Row[]; truncated: boolean };
    if (!Array.isArray(rows) || !Number.isFinite(storedAt)) return null;
    return { rows, truncated: truncated === true, ageMs: Date.now() - storedAt, staleServed: response.headers.get(STALE_SERVED) === "1" };
  } catch {
    return null;
  }
}

/** Keeps a result for `keepSeconds` (fresh for the TTL, then the stale window). */
async function write(
  key: Request,
  result: { rows: Row[]; truncated: boolean },
  storedAt: number,
  keepSeconds: number,
  staleServed = false,
): Promise<void> {
  const seconds = Math.max(1, Math.ceil(keepSeconds));
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "Cache-Control": `max-age=${seconds}`,
    [STORED_AT]: String(storedAt),
  };
  if (staleServed) headers[STALE_SERVED] = "1";
  await store().put(key, new Response(JSON.stringify({ rows: result.rows, truncated: result.truncated }), { headers }));
}

/** Keeps every successful result of `results` (a failed one never). */
async function keep(keys: Map<string, Request>, results: Map<string, PanelResult>, ttlSeconds: number): Promise<void> {
  const storedAt = Date.now();
  await Promise.all(
    [...results].map(async ([id, result]) => {
      const key = keys.get(id);
      if (!key || result.status !== "ok") return;
      try {
        await write(key, result, storedAt, 2 * ttlSeconds);
      } catch (error) {
        log("warn", "query result not cached", { error: errorDetail(error) });
      }
    }),
  );
}

/**
 * One data source's queries, from the cache where it can and through `run` (one call) for
 * the rest. Without a TTL it is `run` itself, and every query is `off`.
 */
export async function runCached(
  source: CachedSource,
  queries: PanelQuery[],
  policy: QueryCachePolicy | undefined,
  run: QueryRunner,
): Promise<Map<string, PanelResult>> {
  const ttlSeconds = Math.min(policy?.ttlSeconds ?? 0, MAX_CACHE_TTL_SECONDS);
  if (!policy || ttlSeconds <= 0 || queries.length === 0) {
    for (const _ of queries) policy?.report?.note("off");
    return run(queries, false);
  }
  const ttlMs = ttlSeconds * 1000;
  const keys = new Map<string, Request>();
  const found = await Promise.all(
    queries.map(async (query) => {
      const key = await cacheKey(source, query, policy.versions);
      keys.set(query.panelId, key);
      try {
        return { query, entry: await read(key) };
      } catch (error) {
        log("warn", "query cache not readable", { error: errorDetail(error) });
        return { query, entry: null };
      }
    }),
  );

  const results = new Map<string, PanelResult>();
  const missing: PanelQuery[] = [];
  const stale: { query: PanelQuery; entry: Entry }[] = [];
  for (const { query, entry } of found) {
    if (entry && entry.ageMs >= 0 && entry.ageMs < ttlMs) {
      results.set(query.panelId, { status: "ok", rows: entry.rows, truncated: entry.truncated });
      policy.report?.note("hit");
    } else if (entry && policy.waitUntil && !entry.staleServed && entry.ageMs >= 0 && entry.ageMs < 2 * ttlMs) {
      results.set(query.panelId, { status: "ok", rows: entry.rows, truncated: entry.truncated });
      stale.push({ query, entry });
      policy.report?.note("stale");
    } else {
      missing.push(query);
      policy.report?.note("miss");
    }
  }

  if (stale.length > 0 && policy.waitUntil) policy.waitUntil(refresh(stale, keys, ttlSeconds, run));
  if (missing.length === 0) return results;

  const fresh = await run(missing, false);
  for (const [id, result] of fresh) results.set(id, result);
  const storing = keep(keys, fresh, ttlSeconds);
  if (policy.waitUntil) policy.waitUntil(storing);
  else await storing;
  return results;
}

/**
 * Stale entries: marked as served (so they are not served stale twice, even while the
 * refresh runs), then run again and kept fresh. A refresh that fails leaves the marked
 * entry, which the next request treats as missing.
 */
async function refresh(
  stale: { query: PanelQuery; entry: Entry }[],
  keys: Map<string, Request>,
  ttlSeconds: number,
  run: QueryRunner,
): Promise<void> {
  try {
    const now = Date.now();
    await Promise.all(
      stale.flatMap(({ query, entry }) => {
        const key = keys.get(query.panelId);
        return key ? [write(key, entry, now - entry.ageMs, 2 * ttlSeconds - entry.ageMs / 1000, true)] : [];
      }),
    );
    await keep(
      keys,
      await run(
        stale.map((s) => s.query),
        true,
      ),
      ttlSeconds,
    );
  } catch (error) {
    log("warn", "stale query results not refreshed", { error: errorDetail(error) });
  }
}

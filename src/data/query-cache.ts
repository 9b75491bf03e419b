import type { PanelQuery, PanelResult } from "./sources/types";
import { errorDetail, log } from "../lib/log";
import { type CachedSource, cacheKey, type Entry, type PageEntry, pageKey, read, readPage, write, writePage } from "./query-cache-entries";

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
 *
 * This file holds those rules and the request's report; the entries themselves (keys, what
 * is stored, reading and writing the Cache API) are query-cache-entries.ts.
 */

export type QueryCacheStatus = "hit" | "miss" | "stale" | "off";

/** Worse is higher: a page reports its worst panel. */
const RANK: Record<QueryCacheStatus, number> = { off: 0, hit: 1, stale: 2, miss: 3 };

/**
 * The worst status of one request's queries (`miss` > `stale` > `hit` > `off`): its
 * `X-Query-Cache`; and how many Cache API reads it made: its `X-Cache-Reads`.
 */
export class QueryCacheReport {
  status: QueryCacheStatus = "off";
  reads = 0;

  note(status: QueryCacheStatus): void {
    if (RANK[status] > RANK[this.status]) this.status = status;
  }

  /** The development headers of a response whose queries went through the cache (X-Cache-Reads only when it was read). */
  headers(): Record<string, string> {
    return this.reads > 0 ? { "X-Query-Cache": this.status, "X-Cache-Reads": String(this.reads) } : { "X-Query-Cache": this.status };
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

/**
 * Runs the queries that are not cached: `background` is true for the refresh of stale
 * entries after the response (its round trips are not the request's).
 */
export type QueryRunner = (queries: PanelQuery[], background: boolean) => Promise<Map<string, PanelResult>>;

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

/** Seconds a policy keeps results fresh (0: off). */
function ttlOf(policy: QueryCachePolicy | undefined): number {
  return Math.min(policy?.ttlSeconds ?? 0, MAX_CACHE_TTL_SECONDS);
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
  const timed = await runCachedTimed(source, queries, policy, run);
  return new Map([...timed].map(([id, { result }]) => [id, result]));
}

/** A query's result and when it was fetched (a fresh run: now; a cache entry: when it was stored). */
interface TimedResult {
  result: PanelResult;
  storedAt: number;
  /** Served past its TTL (its refresh runs in the background). */
  stale?: boolean;
}

async function runCachedTimed(
  source: CachedSource,
  queries: PanelQuery[],
  policy: QueryCachePolicy | undefined,
  run: QueryRunner,
): Promise<Map<string, TimedResult>> {
  const ttlSeconds = ttlOf(policy);
  if (!policy || ttlSeconds <= 0 || queries.length === 0) {
    for (const _ of queries) policy?.report?.note("off");
    return timedNow(await run(queries, false));
  }
  const ttlMs = ttlSeconds * 1000;
  const keys = new Map<string, Request>();
  const found = await Promise.all(
    queries.map(async (query) => {
      const key = await cacheKey(source, query, policy.versions);
      keys.set(query.panelId, key);
      try {
        if (policy.report) policy.report.reads++;
        return { query, entry: await read(key) };
      } catch (error) {
        log("warn", "query cache not readable", { error: errorDetail(error) });
        return { query, entry: null };
      }
    }),
  );

  const results = new Map<string, TimedResult>();
  const missing: PanelQuery[] = [];
  const stale: { query: PanelQuery; entry: Entry }[] = [];
  const now = Date.now();
  for (const { query, entry } of found) {
    if (entry && entry.ageMs >= 0 && entry.ageMs < ttlMs) {
      results.set(query.panelId, { result: { status: "ok", rows: entry.rows, truncated: entry.truncated }, storedAt: now - entry.ageMs });
      policy.report?.note("hit");
    } else if (entry && policy.waitUntil && !entry.staleServed && entry.ageMs >= 0 && entry.ageMs < 2 * ttlMs) {
      results.set(query.panelId, {
        result: { status: "ok", rows: entry.rows, truncated: entry.truncated },
        storedAt: now - entry.ageMs,
        stale: true,
      });
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
  for (const [id, result] of timedNow(fresh)) results.set(id, result);
  const storing = keep(keys, fresh, ttlSeconds);
  if (policy.waitUntil) policy.waitUntil(storing);
  else await storing;
  return results;
}

function timedNow(results: Map<string, PanelResult>): Map<string, TimedResult> {
  const now = Date.now();
  return new Map([...results].map(([id, result]) => [id, { result, storedAt: now }]));
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

/** One data source's share of a page: its queries and the runner of those that must run. */
export interface PagePart {
  source: CachedSource;
  queries: PanelQuery[];
  run: QueryRunner;
}

/** The page's entry, when every panel has rows (a failed panel is never kept); as old as its oldest part. */
async function keepPage(key: Request, timed: Map<string, TimedResult>, ttlSeconds: number): Promise<void> {
  const results: PageEntry["results"] = {};
  let oldest = Date.now();
  for (const [id, { result, storedAt, stale }] of timed) {
    if (result.status !== "ok" || stale) return;
    results[id] = { rows: result.rows, truncated: result.truncated };
    oldest = Math.min(oldest, storedAt);
  }
  try {
    await writePage(key, results, oldest, 2 * ttlSeconds - (Date.now() - oldest) / 1000);
  } catch (error) {
    log("warn", "page results not cached", { error: errorDetail(error) });
  }
}

/**
 * Every data source's queries of one page (embed, share, capture): with a TTL and more than
 * one query, one Cache API read of the page's entry first, so a page whose panels all hit
 * reads the cache once (not once per panel). A fresh entry answers every panel (`hit`); one
 * past its TTL is served once more (`stale`) while the page runs again in the background.
 * Without one, each data source's queries go through runCached — the panels it has from
 * their own entries, only the others run — and the page's entry is kept for the next view.
 * The panels' own entries stay: a panel's CSV and a page sharing some of its panels read them.
 */
export async function runPageCached(parts: PagePart[], policy: QueryCachePolicy | undefined): Promise<Map<string, PanelResult>> {
  const ttlSeconds = ttlOf(policy);
  const count = parts.reduce((sum, part) => sum + part.queries.length, 0);
  if (!policy || ttlSeconds <= 0 || count < 2) {
    const each = await Promise.all(parts.map((part) => runCached(part.source, part.queries, policy, part.run)));
    return new Map(each.flatMap((results) => [...results]));
  }
  const ttlMs = ttlSeconds * 1000;
  const key = await pageKey(parts, policy.versions);
  let entry: PageEntry | null = null;
  try {
    if (policy.report) policy.report.reads++;
    entry = await readPage(key);
  } catch (error) {
    log("warn", "query cache not readable", { error: errorDetail(error) });
  }
  const complete = entry !== null && parts.every((part) => part.queries.every((query) => entry.results[query.panelId] !== undefined));
  if (entry && complete && entry.ageMs >= 0) {
    const fresh = entry.ageMs < ttlMs;
    if (fresh || (policy.waitUntil && !entry.staleServed && entry.ageMs < 2 * ttlMs)) {
      const results = new Map<string, PanelResult>();
      for (const [id, { rows, truncated }] of Object.entries(entry.results)) results.set(id, { status: "ok", rows, truncated });
      for (let i = 0; i < count; i++) policy.report?.note(fresh ? "hit" : "stale");
      if (!fresh) policy.waitUntil?.(refreshPage(key, entry, parts, policy, ttlSeconds));
      return results;
    }
  }
  const timed = new Map<string, TimedResult>();
  const each = await Promise.all(parts.map((part) => runCachedTimed(part.source, part.queries, policy, part.run)));
  for (const results of each) for (const [id, result] of results) timed.set(id, result);
  const storing = keepPage(key, timed, ttlSeconds);
  if (policy.waitUntil) policy.waitUntil(storing);
  else await storing;
  return new Map([...timed].map(([id, { result }]) => [id, result]));
}

/**
 * A stale page: its entry marked as served (so it is not served stale twice), then every
 * panel run again — their own entries and the page's kept fresh. A refresh that fails
 * leaves the marked entry, which the next view treats as missing.
 */
async function refreshPage(key: Request, entry: PageEntry, parts: PagePart[], policy: QueryCachePolicy, ttlSeconds: number): Promise<void> {
  try {
    const now = Date.now();
    await writePage(key, entry.results, now - entry.ageMs, 2 * ttlSeconds - entry.ageMs / 1000, true);
    const timed = new Map<string, TimedResult>();
    await Promise.all(
      parts.map(async (part) => {
        const fresh = await part.run(part.queries, true);
        const keys = new Map<string, Request>();
        for (const query of part.queries) keys.set(query.panelId, await cacheKey(part.source, query, policy.versions));
        await keep(keys, fresh, ttlSeconds);
        for (const [id, result] of timedNow(fresh)) timed.set(id, result);
      }),
    );
    await keepPage(key, timed, ttlSeconds);
  } catch (error) {
    log("warn", "stale page results not refreshed", { error: errorDetail(error) });
  }
}

import { primarySessionAt } from "../db/write-clock";
import { currentRequest } from "../http/request-state";
import { sha256Hex } from "../lib/crypto";

// What a view reads of its customer before its queries run, kept at the location for at most
// VIEWER_CACHE_SECONDS: a view whose queries hit the query cache then needs no D1 trip at all
// (docs/edge.md#the-revocation-window). An embed or share page keeps the customer chain with
// its token, mapping, access group, theme and cache versions, the version to show, the data
// sources and the group's themes (customer-dashboard.ts); a report-builder request the chain,
// the blueprint's tables and the data sources (report-builder/builder-request.ts).

/** A view's D1 reads, the customer chain first. */
type ViewerRows = readonly [readonly unknown[], ...unknown[]];

/** Which viewer's reads a view may take from the cache, and for how long. */
export interface ViewerCacheKey {
  /** The customer as the viewer names it: `cid:<id>` (signed token, share link) or `tok:<hash>` (customer token). */
  viewer: string;
  seconds: number;
}

interface Kept<R extends ViewerRows = ViewerRows> {
  storedAt: number;
  rows: R;
}

const KEY_ORIGIN = "https://viewer-cache.invalid/v1/";
const MEMORY_LIMIT = 500;
const memory = new Map<string, Kept>();
const store = (): Cache => (caches as unknown as { default: Cache }).default;

/** Usable: younger than the TTL and stored after this isolate's last primary session (its own writes). */
function fresh<R extends ViewerRows>(kept: Kept<R> | undefined, seconds: number): kept is Kept<R> {
  if (!kept) return false;
  return Date.now() - kept.storedAt < seconds * 1000 && kept.storedAt > primarySessionAt();
}

/** How a caller's rows are kept and used. */
export interface ViewerReadOptions<R extends ViewerRows> {
  /** Work allowed to outlive the response (storing the rows); without it the store is awaited. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** Whether the rows name everything the view needs; default: its customer. What is not found is never kept. */
  found?: (rows: R) => boolean;
  /** Whether kept rows serve this request; refused ones (a token they do not know yet) are read again from D1. */
  usable?: (rows: R) => boolean | Promise<boolean>;
}

/**
 * The view's reads from this isolate's memory or the location's Cache API when fresh, else
 * from D1 (`read`), then kept in both. `parts` name what was read besides the viewer (the
 * dashboard and version choice, or the blueprint) and must differ between callers whose rows
 * differ. What is not found (`found`) is never kept: a replica's not-found is retried on the
 * primary, which reads D1 itself. A request that reads the primary (a write, or that retry)
 * always reads D1: what it does must see the newest state. Kept rows that `usable` refuses
 * (a token minted after a refresh elsewhere, which they do not know yet) are read again from
 * D1 — a kept copy never refuses what D1 would accept.
 */
export async function viewerReads<R extends ViewerRows>(
  cacheKey: ViewerCacheKey | undefined,
  parts: string[],
  read: () => Promise<R>,
  { waitUntil, found = (rows) => rows[0].length > 0, usable = () => true }: ViewerReadOptions<R> = {},
): Promise<R> {
  const state = currentRequest();
  if (!cacheKey || cacheKey.seconds <= 0 || state?.isRetryOnPrimary || state?.session.primary) return read();
  const key = JSON.stringify([cacheKey.viewer, ...parts]);
  const inMemory = memory.get(key) as Kept<R> | undefined;
  if (fresh(inMemory, cacheKey.seconds) && (await usable(inMemory.rows))) return inMemory.rows;
  const request = new Request(`${KEY_ORIGIN}${await sha256Hex(key)}`);
  const cached = await store()
    .match(request)
    .then((response) => (response ? (response.json() as Promise<Kept<R>>) : undefined))
    .catch(() => undefined);
  if (fresh(cached, cacheKey.seconds) && (await usable(cached.rows))) {
    remember(key, cached);
    return cached.rows;
  }
  const rows = await read();
  if (!found(rows)) return rows;
  const kept: Kept<R> = { storedAt: Date.now(), rows };
  remember(key, kept);
  const put = store()
    .put(
      request,
      new Response(JSON.stringify(kept), {
        headers: { "Content-Type": "application/json", "Cache-Control": `max-age=${Math.ceil(cacheKey.seconds)}` },
      }),
    )
    .catch(() => undefined);
  if (waitUntil) waitUntil(put);
  else await put;
  return rows;
}

function remember(key: string, kept: Kept<ViewerRows>): void {
  memory.delete(key);
  memory.set(key, kept);
  if (memory.size > MEMORY_LIMIT) memory.delete(memory.keys().next().value as string);
}

import { primarySessionAt } from "../db/write-clock";
import { currentRequest } from "../http/request-state";
import { sha256Hex } from "../lib/crypto";
import type { DashboardReadRows } from "./customer-dashboard";

// What a view reads of its customer before its panels run (the customer chain with its token,
// mapping, access group, theme and cache versions; the version to show; the data sources;
// the group's themes), kept at the location for at most VIEWER_CACHE_SECONDS: a view whose
// panels hit the query cache then needs no D1 trip at all (docs/edge.md#revocation-window).

/** Which viewer's reads a view may take from the cache, and for how long. */
export interface ViewerCacheKey {
  /** The customer as the viewer names it: `cid:<id>` (signed token, share link) or `tok:<hash>` (customer token). */
  viewer: string;
  seconds: number;
}

interface Kept {
  storedAt: number;
  rows: DashboardReadRows;
}

const KEY_ORIGIN = "https://viewer-cache.invalid/v1/";
const MEMORY_LIMIT = 500;
const memory = new Map<string, Kept>();
const store = (): Cache => (caches as unknown as { default: Cache }).default;

/** Usable: younger than the TTL and stored after this isolate's last primary session (its own writes). */
function fresh(kept: Kept | undefined, seconds: number): kept is Kept {
  if (!kept) return false;
  return Date.now() - kept.storedAt < seconds * 1000 && kept.storedAt > primarySessionAt();
}

/**
 * The view's reads from this isolate's memory or the location's Cache API when fresh, else
 * from D1 (`read`), then kept in both. A customer not found is never kept (a replica's
 * not-found is retried on the primary, which reads D1 itself).
 */
export async function viewerReads(
  cacheKey: ViewerCacheKey | undefined,
  parts: string[],
  read: () => Promise<DashboardReadRows>,
  waitUntil?: (promise: Promise<unknown>) => void,
): Promise<DashboardReadRows> {
  if (!cacheKey || cacheKey.seconds <= 0 || currentRequest()?.isRetryOnPrimary) return read();
  const key = JSON.stringify([cacheKey.viewer, ...parts]);
  const inMemory = memory.get(key);
  if (fresh(inMemory, cacheKey.seconds)) return inMemory.rows;
  const request = new Request(`${KEY_ORIGIN}${await sha256Hex(key)}`);
  const cached = await store()
    .match(request)
    .then((response) => (response ? (response.json() as Promise<Kept>) : undefined))
    .catch(() => undefined);
  if (fresh(cached, cacheKey.seconds)) {
    remember(key, cached);
    return cached.rows;
  }
  const rows = await read();
  if (rows[0].length === 0) return rows;
  const kept: Kept = { storedAt: Date.now(), rows };
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

function remember(key: string, kept: Kept): void {
  memory.delete(key);
  memory.set(key, kept);
  if (memory.size > MEMORY_LIMIT) memory.delete(memory.keys().next().value as string);
}

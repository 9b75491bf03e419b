import type { PanelQuery, Row } from "./sources/types";
import { sha256Hex } from "../lib/crypto";

/**
 * The query cache's entries in the Workers Cache API of this location (query-cache.ts decides
 * when one is fresh, stale or missing): their keys, and what an entry holds — a query's rows,
 * or every panel's rows of a page — with when it was stored and whether it was served stale.
 * An entry is kept (`Cache-Control: max-age`) for as long as its caller says.
 */

/** What the key says about the data source; a different binding or row limit never shares an entry. */
export interface CachedSource {
  id: number;
  binding: string;
  rowLimit: number;
}

/** The entries live under this made-up origin; `.invalid` never resolves, so nothing can fetch it. */
const KEY_ORIGIN = "https://query-cache.invalid/v1/";
const STORED_AT = "X-Stored-At";
const STALE_SERVED = "X-Stale-Served";

/** A query's entry as read: its rows, its age and whether it was served stale once already. */
export interface Entry {
  rows: Row[];
  truncated: boolean;
  ageMs: number;
  staleServed: boolean;
}

/** The cache of this location (a function: the global exists only inside workerd). */
const store = (): Cache => (caches as unknown as { default: Cache }).default;

/** A query's key: SHA-256 of the data source, the row limit, the SQL text, its bound values and the versions. */
export async function cacheKey(source: CachedSource, query: PanelQuery, versions: string[]): Promise<Request> {
  const digest = await sha256Hex(JSON.stringify([source.id, source.binding, source.rowLimit, query.sql, query.params, versions]));
  return new Request(KEY_ORIGIN + digest);
}

/** One Cache API read: the query's entry, or null when there is none or it is unreadable. */
export async function read(key: Request): Promise<Entry | null> {
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
export async function write(
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

/** A page's entry: every panel's result, under one key made of every panel's key. */
export async function pageKey(parts: { source: CachedSource; queries: PanelQuery[] }[], versions: string[]): Promise<Request> {
  const panels = parts.map(({ source, queries }) => [
    source.id,
    source.binding,
    source.rowLimit,
    queries.map((query) => [query.panelId, query.sql, query.params]),
  ]);
  return new Request(`${KEY_ORIGIN}page/${await sha256Hex(JSON.stringify(["page", panels, versions]))}`);
}

/** A page's entry as read: every panel's rows by panel id, its age and whether it was served stale once already. */
export interface PageEntry {
  results: Record<string, { rows: Row[]; truncated: boolean }>;
  ageMs: number;
  staleServed: boolean;
}

/** One Cache API read: the page's entry, or null when there is none or it is unreadable. */
export async function readPage(key: Request): Promise<PageEntry | null> {
  const response = await store().match(key);
  if (!response) return null;
  const storedAt = Number(response.headers.get(STORED_AT));
  try {
    const { results } = (await response.json()) as { results: PageEntry["results"] };
    if (typeof results !== "object" || results === null || !Number.isFinite(storedAt)) return null;
    return { results, ageMs: Date.now() - storedAt, staleServed: response.headers.get(STALE_SERVED) === "1" };
  } catch {
    return null;
  }
}

/** Keeps a page's results for `keepSeconds` (nothing when no time is left). */
export async function writePage(
  key: Request,
  results: PageEntry["results"],
  storedAt: number,
  keepSeconds: number,
  staleServed = false,
): Promise<void> {
  if (keepSeconds <= 0) return;
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "Cache-Control": `max-age=${Math.max(1, Math.ceil(keepSeconds))}`,
    [STORED_AT]: String(storedAt),
  };
  if (staleServed) headers[STALE_SERVED] = "1";
  await store().put(key, new Response(JSON.stringify({ results }), { headers }));
}

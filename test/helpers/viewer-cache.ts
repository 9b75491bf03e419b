import { expect } from "vitest";
import type { ApiResponse } from "./api";
import { admin, bindings, call, createCustomer, unique, workspace } from "./dashboards";

// What the tests of reads kept at the location (VIEWER_CACHE_SECONDS: the embed page, a share
// link's page, the report builder) set up and look at alike: an orders table in two D1 data
// sources (the second one for a mapping changed "elsewhere"), customers with one order each,
// a blueprint over those orders, the answer's round-trip headers, and waiting out the window.

/** The window the tests run with: VIEWER_CACHE_SECONDS. */
export const SECONDS = 1;

export interface ViewerCacheContext {
  write: string;
  schema: number;
  demo: number;
  other: number;
  /** The orders table, in both data sources. */
  table: string;
}

/** A workspace, a schema, the data sources Demo (DEMO_DATA) and Other (OTHER_DATA), each with an empty `table` of orders. */
export async function viewerCacheWorkspace(table: string): Promise<ViewerCacheContext> {
  for (const source of [bindings.DEMO_DATA, bindings.OTHER_DATA])
    await source.prepare(`CREATE TABLE IF NOT EXISTS ${table} (customer_id TEXT, amount REAL)`).run();
  const { write } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique(table) })).body.schema.id as number;
  const demo = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" })).body.data_source.id as number;
  const other = (await admin("POST", "/admin/data_sources/", { name: "Other", binding: "OTHER_DATA" })).body.data_source.id as number;
  return { write, schema, demo, other, table };
}

/** A customer (provided id `prefix-…`) mapped to Demo, with one order of `amount` there. */
export async function customerWithOrder(ctx: ViewerCacheContext, prefix: string, amount: number) {
  const providedId = unique(prefix);
  await bindings.DEMO_DATA.prepare(`INSERT INTO ${ctx.table} VALUES (?, ?)`).bind(providedId, amount).run();
  return createCustomer(ctx.write, { provided_id: providedId, mapping: { [ctx.schema]: ctx.demo } });
}

/** The customer's row id and token hash, as a share link is stored with them. */
export async function customerRow(providedId: string): Promise<{ id: number; tokenHash: string }> {
  const row = await bindings.DB.prepare("SELECT id, token_hash AS tokenHash FROM customers WHERE provided_id = ?")
    .bind(providedId)
    .first<{ id: number; tokenHash: string }>();
  if (!row) throw new Error("customer not stored");
  return row;
}

/** A blueprint "Orders" over the customer's rows of the orders table (results cached 600 s), as get_blueprint answers it. */
export async function ordersBlueprint(ctx: ViewerCacheContext, providedId: string) {
  const table = {
    table_name: ctx.table,
    dataset_name: "orders",
    schema_id: ctx.schema,
    query: `SELECT * FROM ${ctx.table} WHERE customer_id = {{customer.provided_id}}`,
    columns: [{ name: "amount", type: "FLOAT" }],
    cache_ttl_seconds: 600,
  };
  const created = await call("POST", "/api/create_blueprint/", {
    token: ctx.write,
    body: { customer_id: providedId, blueprint_name: "Orders", tables: [table] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return (await call("POST", "/api/get_blueprint/", { token: ctx.write, body: { blueprint_id: created.body.blueprint_id } })).body
    .blueprint;
}

/** A builder token of the customer for the blueprint `blueprintId` (generate_embed_token). */
export async function builderToken(ctx: ViewerCacheContext, providedId: string, blueprintId: string): Promise<string> {
  const minted = await call("POST", "/api/generate_embed_token/", {
    token: ctx.write,
    body: { provided_id: providedId, blueprint_id: blueprintId },
  });
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  return minted.body.token as string;
}

/** What an answer says of its trips: D1 round trips, Durable Object round trips, the query cache. */
export const tripsOf = (res: ApiResponse) => ({
  d1: res.headers.get("X-D1-Round-Trips"),
  doTrips: res.headers.get("X-DO-Round-Trips"),
  cache: res.headers.get("X-Query-Cache"),
});

/** A warm hit: the cache answered, with no D1 and no Durable Object trip. */
export const freeHit = (answer: { d1: string | null; doTrips: string | null; cache: string | null }) =>
  answer.cache === "hit" && answer.d1 === "0" && answer.doTrips === "0";

/**
 * Swaps the customer's mapping from Demo to Other straight in D1, as update_customer in another
 * isolate would (this isolate does not know); checks first that it maps to Demo.
 */
export async function swapMappingElsewhere(ctx: ViewerCacheContext, providedId: string): Promise<void> {
  const row = await bindings.DB.prepare("SELECT mapping FROM customers WHERE provided_id = ?")
    .bind(providedId)
    .first<{ mapping: string }>();
  const mapping = JSON.parse(row?.mapping ?? "{}") as Record<string, unknown>;
  expect(Object.values(mapping).map(String)).toEqual([String(ctx.demo)]);
  const swapped = Object.fromEntries(
    Object.entries(mapping).map(([schema, source]) => [schema, typeof source === "number" ? ctx.other : String(ctx.other)]),
  );
  await bindings.DB.prepare("UPDATE customers SET mapping = ? WHERE provided_id = ?").bind(JSON.stringify(swapped), providedId).run();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks (`next`) until `done` holds or the window (+1 s) is over; every answer, the last one last. */
export async function withinWindow<T>(next: () => Promise<T>, done: (answer: T) => boolean): Promise<T[]> {
  const until = Date.now() + (SECONDS + 1) * 1000;
  const seen = [await next()];
  while (!done(seen[seen.length - 1]) && Date.now() < until) {
    await sleep(100);
    seen.push(await next());
  }
  return seen;
}

import { describe, expect, it, beforeAll } from "vitest";
import { callWithEnv, type ApiResponse } from "../helpers/api";
import { bindings, call } from "../helpers/dashboards";
import {
  builderToken,
  customerWithOrder,
  freeHit,
  ordersBlueprint,
  SECONDS,
  swapMappingElsewhere,
  tripsOf,
  type ViewerCacheContext,
  viewerCacheWorkspace,
  withinWindow,
} from "../helpers/viewer-cache";

// A report-builder request keeps what it reads of its customer and blueprint at the location
// for VIEWER_CACHE_SECONDS (src/report-builder/builder-request.ts, src/dashboards/viewer-cache.ts),
// through the real Worker, local D1, Cache API and the customer's guard. A change "elsewhere"
// (another isolate or location) is a write straight to D1 that this isolate did not make; a
// change through the API is this isolate's own and must be seen at once.

let ctx: ViewerCacheContext;

beforeAll(async () => {
  ctx = await viewerCacheWorkspace("builder_viewer_orders");
});

/** A customer with one order of `amount`, a blueprint over its orders (results cached 600 s) and a builder token. */
async function builderCustomer(amount: number) {
  const customer = await customerWithOrder(ctx, "builder-viewer", amount);
  const providedId = customer.provided_id as string;
  const blueprint = await ordersBlueprint(ctx, providedId);
  const mint = () => builderToken(ctx, providedId, blueprint.id);
  return { providedId, customerToken: customer.token as string, embedId: blueprint.embed_id as string, token: await mint(), mint };
}

const total = { dataset: "orders", values: [{ aggregate: "sum", column: "amount" }] };

async function query(embedId: string, token: string, seconds = SECONDS) {
  const res: ApiResponse = await callWithEnv(
    { VIEWER_CACHE_SECONDS: String(seconds), BUILDER_REQUESTS_PER_MINUTE: "100000" },
    "POST",
    `/report-builder/${embedId}/query`,
    { body: total, headers: { Authorization: `Bearer ${token}` } },
  );
  return {
    status: res.status,
    ...tripsOf(res),
    total: res.status === 200 ? (Object.values(res.body.rows[0] ?? {})[0] as number) : undefined,
    code: res.body?.error?.code as string | undefined,
  };
}

/** Queries until `done` holds or the window (+1 s) is over; every answer, the last one last. */
const within = (embedId: string, token: string, done: (q: Awaited<ReturnType<typeof query>>) => boolean) =>
  withinWindow(() => query(embedId, token), done);

describe("the report builder's reads kept at the location", () => {
  it("answers a warm query hit with no D1 and no Durable Object trip on at least 95 of 100 calls", async () => {
    const b = await builderCustomer(40);
    const first = await query(b.embedId, b.token, 600);
    expect(first.status).toBe(200);
    expect(first.cache).toBe("miss");
    expect(first.d1).not.toBe("0");
    let free = 0;
    for (let i = 0; i < 100; i++) {
      const again = await query(b.embedId, b.token, 600);
      expect(again.status).toBe(200);
      expect(again.total).toBe(40);
      if (freeHit(again)) free++;
    }
    expect(free).toBeGreaterThanOrEqual(95);
  });

  it("reads D1 on every query with VIEWER_CACHE_SECONDS 0 (a miss is still correct)", async () => {
    const b = await builderCustomer(3);
    for (let i = 0; i < 3; i++) {
      const q = await query(b.embedId, b.token, 0);
      expect(q.status).toBe(200);
      expect(q.d1).toBe("1");
      expect(q.total).toBe(3);
    }
  });

  it("refuses a builder token at once in the isolate that refreshed its customer token; a new one works", async () => {
    const b = await builderCustomer(5);
    expect((await query(b.embedId, b.token)).status).toBe(200);
    const refreshed = await call("POST", "/api/refresh_customer_token/", { token: ctx.write, body: { current_token: b.customerToken } });
    expect(refreshed.status).toBe(200);
    const old = await query(b.embedId, b.token);
    expect(old.status).toBe(401);
    expect(old.code).toBe("invalid_embed_token");
    const fresh = await query(b.embedId, await b.mint());
    expect(fresh.status).toBe(200);
    expect(fresh.total).toBe(5);
  });

  it("refuses a token whose customer token was refreshed elsewhere within VIEWER_CACHE_SECONDS + 1 s; a new one works at once", async () => {
    const b = await builderCustomer(6);
    expect((await query(b.embedId, b.token)).status).toBe(200);
    await bindings.DB.prepare("UPDATE customers SET token_hash = ? WHERE provided_id = ?").bind("1".repeat(64), b.providedId).run();
    // Minted for the new customer token: the kept rows do not know it, so they are read again.
    const minted = await b.mint();
    const fresh = await query(b.embedId, minted);
    expect(fresh.status).toBe(200);
    expect(fresh.total).toBe(6);
    await bindings.DB.prepare("UPDATE customers SET token_hash = ? WHERE provided_id = ?").bind("2".repeat(64), b.providedId).run();
    const started = Date.now();
    const seen = await within(b.embedId, minted, (q) => q.status === 401);
    expect(seen[seen.length - 1].status).toBe(401);
    expect(Date.now() - started).toBeLessThanOrEqual((SECONDS + 1) * 1000 + 500);
  });

  it("refuses a deleted customer's token within the window (at once where it was deleted)", async () => {
    const here = await builderCustomer(8);
    expect((await query(here.embedId, here.token)).status).toBe(200);
    const deleted = await call("DELETE", "/api/delete_customer/", { token: ctx.write, body: { current_token: here.customerToken } });
    expect(deleted.status).toBe(200);
    expect((await query(here.embedId, here.token)).status).toBe(401);

    const elsewhere = await builderCustomer(9);
    expect((await query(elsewhere.embedId, elsewhere.token)).status).toBe(200);
    await bindings.DB.prepare("DELETE FROM customers WHERE provided_id = ?").bind(elsewhere.providedId).run();
    const started = Date.now();
    const seen = await within(elsewhere.embedId, elsewhere.token, (q) => q.status === 401);
    expect(seen[seen.length - 1].status).toBe(401);
    expect(Date.now() - started).toBeLessThanOrEqual((SECONDS + 1) * 1000 + 500);
    for (const q of seen) expect(q.status === 401 || q.total === 9).toBe(true);
  });

  it("runs on a mapping changed elsewhere within the window, and never on another customer's rows", async () => {
    const b = await builderCustomer(11);
    const neighbour = await builderCustomer(999);
    await bindings.OTHER_DATA.prepare("INSERT INTO builder_viewer_orders VALUES (?, ?)").bind(b.providedId, 22).run();
    expect((await query(b.embedId, b.token)).total).toBe(11);
    expect((await query(neighbour.embedId, neighbour.token)).total).toBe(999);
    // The mapping as stored, its data source swapped (as update_customer in another isolate would).
    await swapMappingElsewhere(ctx, b.providedId);
    const seen = await within(b.embedId, b.token, (q) => q.total === 22);
    expect(seen[seen.length - 1].total).toBe(22);
    // Only this customer's numbers, of the old source or the new one.
    for (const q of seen) expect([11, 22]).toContain(q.total);
    expect((await query(neighbour.embedId, neighbour.token)).total).toBe(999);
  });
});

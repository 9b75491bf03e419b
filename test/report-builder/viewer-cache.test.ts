import { describe, expect, it, beforeAll } from "vitest";
import { callWithEnv, type ApiResponse } from "../helpers/api";
import { admin, bindings, call, createCustomer, unique, workspace } from "../helpers/dashboards";

// A report-builder request keeps what it reads of its customer and blueprint at the location
// for VIEWER_CACHE_SECONDS (src/report-builder/builder-request.ts, src/dashboards/viewer-cache.ts),
// through the real Worker, local D1, Cache API and the customer's guard. A change "elsewhere"
// (another isolate or location) is a write straight to D1 that this isolate did not make; a
// change through the API is this isolate's own and must be seen at once.

const SECONDS = 1;
let ctx: { write: string; schema: number; demo: number; other: number };

beforeAll(async () => {
  await bindings.DEMO_DATA.prepare("CREATE TABLE IF NOT EXISTS builder_viewer_orders (customer_id TEXT, amount REAL)").run();
  await bindings.OTHER_DATA.prepare("CREATE TABLE IF NOT EXISTS builder_viewer_orders (customer_id TEXT, amount REAL)").run();
  const { write } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("builder-viewer") })).body.schema.id as number;
  const demo = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" })).body.data_source.id as number;
  const other = (await admin("POST", "/admin/data_sources/", { name: "Other", binding: "OTHER_DATA" })).body.data_source.id as number;
  ctx = { write, schema, demo, other };
});

/** A customer with one order of `amount`, a blueprint over its orders (results cached 600 s) and a builder token. */
async function builderCustomer(amount: number) {
  const providedId = unique("builder-viewer");
  await bindings.DEMO_DATA.prepare("INSERT INTO builder_viewer_orders VALUES (?, ?)").bind(providedId, amount).run();
  const customer = await createCustomer(ctx.write, { provided_id: providedId, mapping: { [ctx.schema]: ctx.demo } });
  const table = {
    table_name: "builder_viewer_orders",
    dataset_name: "orders",
    schema_id: ctx.schema,
    query: "SELECT * FROM builder_viewer_orders WHERE customer_id = {{customer.provided_id}}",
    columns: [{ name: "amount", type: "FLOAT" }],
    cache_ttl_seconds: 600,
  };
  const created = await call("POST", "/api/create_blueprint/", {
    token: ctx.write,
    body: { customer_id: providedId, blueprint_name: "Orders", tables: [table] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const blueprint = (await call("POST", "/api/get_blueprint/", { token: ctx.write, body: { blueprint_id: created.body.blueprint_id } }))
    .body.blueprint;
  const mint = async () => {
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: ctx.write,
      body: { provided_id: providedId, blueprint_id: blueprint.id },
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    return minted.body.token as string;
  };
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
    d1: res.headers.get("X-D1-Round-Trips"),
    doTrips: res.headers.get("X-DO-Round-Trips"),
    cache: res.headers.get("X-Query-Cache"),
    total: res.status === 200 ? (Object.values(res.body.rows[0] ?? {})[0] as number) : undefined,
    code: res.body?.error?.code as string | undefined,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Queries until `done` holds or the window (+1 s) is over; every answer, the last one last. */
async function within(embedId: string, token: string, done: (q: Awaited<ReturnType<typeof query>>) => boolean) {
  const until = Date.now() + (SECONDS + 1) * 1000;
  const seen = [await query(embedId, token)];
  while (!done(seen[seen.length - 1]) && Date.now() < until) {
    await sleep(100);
    seen.push(await query(embedId, token));
  }
  return seen;
}

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
      if (again.cache === "hit" && again.d1 === "0" && again.doTrips === "0") free++;
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
    const row = await bindings.DB.prepare("SELECT mapping FROM customers WHERE provided_id = ?")
      .bind(b.providedId)
      .first<{ mapping: string }>();
    const mapping = JSON.parse(row?.mapping ?? "{}") as Record<string, unknown>;
    expect(Object.values(mapping).map(String)).toEqual([String(ctx.demo)]);
    const swapped = Object.fromEntries(
      Object.entries(mapping).map(([schema, source]) => [schema, typeof source === "number" ? ctx.other : String(ctx.other)]),
    );
    await bindings.DB.prepare("UPDATE customers SET mapping = ? WHERE provided_id = ?").bind(JSON.stringify(swapped), b.providedId).run();
    const seen = await within(b.embedId, b.token, (q) => q.total === 22);
    expect(seen[seen.length - 1].total).toBe(22);
    // Only this customer's numbers, of the old source or the new one.
    for (const q of seen) expect([11, 22]).toContain(q.total);
    expect((await query(neighbour.embedId, neighbour.token)).total).toBe(999);
  });
});

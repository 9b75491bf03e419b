import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { customerGuardName, type ApiTokenGuard, type CustomerHolder } from "../../src/rate-limits/guard";
import { TokenLeases, type GuardLink } from "../../src/rate-limits/leases";
import { signBuilderToken, verifyBuilderToken } from "../../src/tokens/builder";
import { callWithEnv, type ApiResponse } from "../helpers/api";
import { admin, bindings, call, createCustomer, unique, workspace } from "../helpers/dashboards";

// BUILDER_REQUESTS_PER_MINUTE is counted through leases from a guard per customer (the API
// tokens' mechanism, src/rate-limits/customer-budget.ts): no D1 write, no Durable Object call while
// the lease lasts, exact across isolates, and only for calls whose token passed its checks.

const guards = (env as unknown as { API_TOKEN_GUARD: DurableObjectNamespace<ApiTokenGuard> }).API_TOKEN_GUARD;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const secondsLeft = () => 60 - (Math.floor(Date.now() / 1000) % 60);
/** Waits for a window with at least `seconds` left, so a burst fits in one. */
async function windowWith(seconds: number): Promise<void> {
  if (secondsLeft() < seconds) await sleep(secondsLeft() * 1000 + 200);
}

let ctx: { write: string; schema: number; demo: number };

beforeAll(async () => {
  await bindings.DEMO_DATA.prepare("CREATE TABLE IF NOT EXISTS limit_orders (customer_id TEXT, product TEXT, amount REAL)").run();
  const { write } = await workspace();
  const schema = (await admin("POST", "/admin/schemas/", { name: unique("builder-limit") })).body.schema.id as number;
  const demo = (await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" })).body.data_source.id as number;
  ctx = { write, schema, demo };
});

/** A customer with one order, a blueprint over its orders (cached for 600 s) and a builder token. */
async function builderCustomer() {
  const providedId = unique("limited");
  await bindings.DEMO_DATA.prepare("INSERT INTO limit_orders VALUES (?, 'Seats', 10)").bind(providedId).run();
  const customer = await createCustomer(ctx.write, { provided_id: providedId, name: "Limited", mapping: { [ctx.schema]: ctx.demo } });
  const table = {
    table_name: "limit_orders",
    dataset_name: "orders",
    schema_id: ctx.schema,
    query: "SELECT * FROM limit_orders WHERE customer_id = {{customer.provided_id}}",
    columns: [
      { name: "product", type: "STRING" },
      { name: "amount", type: "FLOAT" },
    ],
    cache_ttl_seconds: 600,
  };
  const created = await call("POST", "/api/create_blueprint/", {
    token: ctx.write,
    body: { customer_id: providedId, blueprint_name: "Orders", tables: [table] },
  });
  const blueprint = (await call("POST", "/api/get_blueprint/", { token: ctx.write, body: { blueprint_id: created.body.blueprint_id } }))
    .body.blueprint;
  const customerId = (await bindings.DB.prepare("SELECT id FROM customers WHERE provided_id = ?")
    .bind(providedId)
    .first<number>("id")) as number;
  const mint = async (extra: Record<string, unknown> = {}) =>
    (
      await call("POST", "/api/generate_embed_token/", {
        token: ctx.write,
        body: { provided_id: providedId, blueprint_id: blueprint.id, ...extra },
      })
    ).body.token as string;
  return {
    providedId,
    customerId,
    customerToken: customer.token as string,
    blueprintId: blueprint.id as number,
    table,
    embedId: blueprint.embed_id as string,
    token: await mint(),
    mint,
  };
}

const total = { dataset: "orders", values: [{ aggregate: "sum", column: "amount" }] };

function query(embedId: string, token: string, limit?: number): Promise<ApiResponse> {
  return callWithEnv(limit ? { BUILDER_REQUESTS_PER_MINUTE: String(limit) } : {}, "POST", `/report-builder/${embedId}/query`, {
    body: total,
    headers: { Authorization: `Bearer ${token}` },
  });
}

/** Another isolate: its own lease cache, talking to the customer's guard. */
function isolate(customerId: number, limit: number) {
  const leases = new TokenLeases<CustomerHolder>();
  const pending: Promise<unknown>[] = [];
  const name = customerGuardName(customerId);
  const link: GuardLink<CustomerHolder> = {
    lease: (request) => guards.get(guards.idFromName(name)).leaseForCustomer(customerId, limit, request),
    background: (work) => void pending.push(work),
    onCriticalCall: () => {},
  };
  return {
    admit: () => leases.admit(name, { needsWrite: false, buckets: ["builder"] }, link),
    settle: () => Promise.all(pending.splice(0)),
  };
}

describe("the report builder's per-customer limit, leased from the customer's guard", () => {
  it("serves warm builder queries on a cache hit with no D1 primary trip and no Durable Object call (≥ 95 of 100)", async () => {
    const b = await builderCustomer();
    await windowWith(20);
    const first = await query(b.embedId, b.token);
    expect(first.status).toBe(200);
    let quiet = 0;
    for (let i = 0; i < 100; i++) {
      const res = await query(b.embedId, b.token);
      expect(res.status).toBe(200);
      expect(res.headers.get("X-Query-Cache")).toBe("hit");
      expect(res.headers.get("X-Cache-Reads")).toBe("1");
      if (res.headers.get("X-D1-Primary-Round-Trips") === "0" && res.headers.get("X-DO-Round-Trips") === "0") quiet++;
    }
    expect(quiet).toBeGreaterThanOrEqual(95);
    // Control: the very first call of a customer in an isolate has no lease yet and asks the guard.
    const cold = await builderCustomer();
    const coldCall = await query(cold.embedId, cold.token);
    expect(coldCall.status).toBe(200);
    expect(coldCall.headers.get("X-DO-Round-Trips")).toBe("1");
    expect(coldCall.headers.get("X-D1-Primary-Round-Trips")).toBe("0");
  }, 60_000);

  it("accepts exactly the limit of a parallel burst; the rest answer 429 rate_limited with Retry-After", async () => {
    const b = await builderCustomer();
    await windowWith(15);
    const responses = await Promise.all(Array.from({ length: 60 }, () => query(b.embedId, b.token, 25)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(25);
    const refused = responses.filter((r) => r.status !== 200);
    expect(refused.length).toBe(35);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe("rate_limited");
      expect(Number(r.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers.get("Retry-After"))).toBeLessThanOrEqual(60);
    }
  });

  it("stays exact across isolates: the Worker and two other isolates together accept exactly the limit", async () => {
    const b = await builderCustomer();
    await windowWith(20);
    const limit = 30;
    const others = [isolate(b.customerId, limit), isolate(b.customerId, limit)];
    let accepted = 0;
    for (let round = 0; round < 10; round++) {
      const [local, ...theirs] = await Promise.all([
        Promise.all(Array.from({ length: 5 }, () => query(b.embedId, b.token, limit))),
        ...others.map((i) => Promise.all(Array.from({ length: 5 }, () => i.admit()))),
      ]);
      await Promise.all(others.map((i) => i.settle()));
      const now = local.filter((r) => r.status === 200).length + theirs.flat().filter((v) => v.outcome === "allowed").length;
      accepted += now;
      expect(accepted).toBeLessThanOrEqual(limit);
      if (now === 0) break;
    }
    expect(accepted).toBe(limit);
    expect((await query(b.embedId, b.token, limit)).status).toBe(429);
    for (const other of others) expect((await other.admit()).outcome).toBe("rate_limited");
  });

  it("does not count refused calls: bad, expired, revoked tokens and stale locks leave the whole budget", async () => {
    const b = await builderCustomer();
    await windowWith(20);
    const limit = 3;
    // A token with an altered signature, an expired one.
    const [head, payload, signature] = b.token.split(".");
    const altered = `${head}.${payload}.${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`;
    const claims = await verifyBuilderToken(env as never, b.token);
    if (!claims) throw new Error("the minted token does not verify");
    const expired = await signBuilderToken(env as never, { ...claims, exp: Math.floor(Date.now() / 1000) - 5 });
    // Revoked: the customer token was refreshed after this one was minted.
    const revoked = b.token;
    const refreshed = await call("POST", "/api/refresh_customer_token/", {
      token: ctx.write,
      body: { provided_id: b.providedId, current_token: b.customerToken },
    });
    expect(refreshed.status).toBe(200);
    // A stale lock: minted with a lock on `product`, which update_blueprint then renames away.
    const stale = await b.mint({ filters: [{ dataset: "orders", column: "product", op: "eq", value: "Seats" }] });
    const renamed = { ...b.table, columns: [{ name: "item", type: "STRING" }, b.table.columns[1]] };
    const updated = await call("POST", "/api/update_blueprint/", {
      token: ctx.write,
      body: { blueprint_id: b.blueprintId, tables: [renamed] },
    });
    expect(updated.status).toBe(200);
    for (let i = 0; i < 5; i++) {
      for (const refused of [altered, expired, revoked, stale, "not-a-token"]) {
        const res = await query(b.embedId, refused, limit);
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe("invalid_embed_token");
      }
    }
    // Control: a valid token still gets the whole budget, then 429.
    const fresh = await b.mint();
    const statuses = [];
    for (let i = 0; i < limit + 1; i++) statuses.push((await query(b.embedId, fresh, limit)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  }, 30_000);
});

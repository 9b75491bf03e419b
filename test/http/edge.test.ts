import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LEASE_MS } from "../../src/http/api-token-guard";
import { TokenLeases, type GuardLink } from "../../src/http/token-lease";
import { dashboard, kpi, seedOrders, sources } from "../helpers/dashboards";
import { admin, call, createCustomer, sha256, unique, workspace, type ApiResponse } from "../helpers/api";

// The read path makes no Durable Object call and no primary-database trip (docs/edge.md).
const guards = (env as unknown as { API_TOKEN_GUARD: DurableObjectNamespace<import("../../src/http/api-token-guard").ApiTokenGuard> })
  .API_TOKEN_GUARD;

const doTrips = (res: ApiResponse) => Number(res.headers.get("X-DO-Round-Trips"));
const d1Trips = (res: ApiResponse) => Number(res.headers.get("X-D1-Round-Trips"));
const primaryTrips = (res: ApiResponse) => Number(res.headers.get("X-D1-Primary-Round-Trips"));

/** Another isolate: its own lease cache, talking to the same guard. */
function isolate(tokenHash: string) {
  const leases = new TokenLeases();
  const pending: Promise<unknown>[] = [];
  let criticalCalls = 0;
  const link: GuardLink = {
    lease: (request) => guards.get(guards.idFromName(tokenHash)).lease(tokenHash, request),
    background: (work) => void pending.push(work),
    onCriticalCall: () => void criticalCalls++,
  };
  return {
    admit: (needsWrite = false) => leases.admit(tokenHash, { needsWrite, buckets: ["api"] }, link),
    settle: () => Promise.all(pending.splice(0)),
    get criticalCalls() {
      return criticalCalls;
    },
  };
}

describe("hop budgets: X-DO-Round-Trips and X-D1-Round-Trips per operation", () => {
  it("reports X-DO-Round-Trips next to X-D1-Round-Trips on every response, errors and the embed page included", async () => {
    const { write } = await workspace();
    for (const res of [
      await call("GET", "/health"),
      await call("POST", "/api/get_customer/", { body: { provided_id: "x" } }),
      await call("POST", "/api/get_customer/", { token: write, body: { provided_id: unique("missing") } }),
      await call("GET", `/embed/nothing?customer_token=${"0".repeat(64)}`),
    ]) {
      expect(res.headers.get("X-DO-Round-Trips"), JSON.stringify(res.body)).toMatch(/^\d+$/);
      expect(res.headers.get("X-D1-Round-Trips")).toMatch(/^\d+$/);
    }
  });

  it("makes no Durable Object call on at least 95 of 100 consecutive warm get_customer calls", async () => {
    const { write, read } = await workspace();
    const id = unique("warm");
    await createCustomer(write, { provided_id: id });
    const trips: number[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await call("POST", "/api/get_customer/", { token: read, body: { provided_id: id } });
      expect(res.status).toBe(200);
      trips.push(doTrips(res));
    }
    expect(trips[0]).toBe(1); // the first call of a token in this isolate takes a lease
    expect(trips.filter((t) => t === 0).length).toBeGreaterThanOrEqual(95);
  });

  it("spends the budgets of the contract: reads on a replica-eligible session, writes on the primary, no DO call when warm", async () => {
    await seedOrders();
    const { write, read } = await workspace();
    const { schema, demo } = await sources();
    const id = unique("hops");
    await call("GET", "/api/group_tags/", { token: write }); // warm both leases
    await call("GET", "/api/group_tags/", { token: read });

    const created = await call("POST", "/api/create_customer/", { token: write, body: { provided_id: id, mapping: { [schema]: demo } } });
    expect(created.status).toBe(200);
    expect([doTrips(created), d1Trips(created), primaryTrips(created)]).toEqual([0, 2, 2]);
    expect(created.headers.get("X-D1-Session")).toBe("first-primary");

    const bp = await call("POST", "/api/create_blueprint/", {
      token: write,
      body: {
        customer_id: id,
        blueprint_name: "B",
        tables: [{ table_name: "orders", schema_id: schema, columns: [{ name: "id", type: "INTEGER" }] }],
      },
    });
    expect(bp.status).toBe(200);
    const embedId = await dashboard({ title: "Hops", panels: [kpi("total", schema, "SELECT SUM(amount) AS value FROM orders")] }, [
      "production",
    ]);

    const reads: [string, ApiResponse, number][] = [
      ["get_customer", await call("POST", "/api/get_customer/", { token: read, body: { provided_id: id } }), 1],
      ["list v1", await call("GET", "/api/customers/", { token: read }), 1],
      ["list v2", await call("GET", "/api/v2/customers/?page=1&page_size=10", { token: read }), 1],
      ["get_customer_blueprints", await call("POST", "/api/get_customer_blueprints/", { token: read, body: { customer_id: id } }), 1],
      ["get_blueprint", await call("POST", "/api/get_blueprint/", { token: read, body: { blueprint_id: bp.body.blueprint_id } }), 1],
      ["group_tags", await call("GET", "/api/group_tags/", { token: read }), 1],
    ];
    for (const [name, res, trips] of reads) {
      expect(res.status, name).toBe(200);
      expect([name, doTrips(res), d1Trips(res), primaryTrips(res)]).toEqual([name, 0, trips, 0]);
      expect(res.headers.get("X-D1-Session"), name).toMatch(/^(first-unconstrained|bookmark)$/);
    }

    const page = await call("GET", `/embed/${embedId}?customer_token=${created.body.customer.token}&environment=production`);
    expect(page.status).toBe(200);
    expect(doTrips(page)).toBe(0);
    expect(primaryTrips(page)).toBe(0);
    expect(page.headers.get("X-D1-Session")).toBe("first-unconstrained");

    const updated = await call("POST", "/api/update_customer/", { token: write, body: { provided_id: id, name: "New name" } });
    expect([doTrips(updated), d1Trips(updated), primaryTrips(updated)]).toEqual([0, 2, 2]);
  });
});

describe("X-DO-Round-Trips for every documented /api/ operation", () => {
  it("is 0 on every operation once the token is warm, whatever the answer", async () => {
    const { write } = await workspace();
    const first = await call("GET", "/api/group_tags/", { token: write });
    // A lease ends with its rate-limit window, and the first call of a new window takes a new
    // one (not warm): both passes below run inside one window, with seconds to spare.
    const windowLeft = Number(first.headers.get("RateLimit-Reset"));
    expect(windowLeft).toBeGreaterThan(0);
    if (windowLeft < 10) await new Promise((resolve) => setTimeout(resolve, windowLeft * 1000 + 250));
    const document = (await call("GET", "/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith("/api/") && !path.includes("{"))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => [method.toUpperCase(), path] as const));
    expect(operations.length).toBeGreaterThan(15);
    // Warm: the first call of a budget (the delivery limit has its own) takes its lease.
    for (const [method, path] of operations) await call(method, path, { token: write, body: method === "GET" ? undefined : {} });
    for (const [method, path] of operations) {
      const res = await call(method, path, { token: write, body: method === "GET" ? undefined : {} });
      expect([method, path, res.headers.get("X-DO-Round-Trips")]).toEqual([method, path, "0"]);
      expect(res.headers.get("X-D1-Round-Trips"), path).toMatch(/^\d+$/);
    }
  });
});

describe("leases: authentication and rate limits off the critical path", () => {
  it("crosses into the next minute without a Durable Object call: a call in a window's last seconds takes a unit of the next window in the background", async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const secondsLeft = () => 60 - (Math.floor(Date.now() / 1000) % 60); // windows are whole minutes
    const { read, write } = await workspace();
    if (secondsLeft() < 10) await sleep(secondsLeft() * 1000 + 500);
    // The control: a token last called well before the window's end.
    expect(doTrips(await call("GET", "/api/group_tags/", { token: write }))).toBe(1);
    expect(doTrips(await call("GET", "/api/group_tags/", { token: read }))).toBe(1);
    await sleep((secondsLeft() - 3) * 1000); // the window's last 3 seconds
    const late = await call("GET", "/api/group_tags/", { token: read });
    expect(doTrips(late)).toBe(1); // its lease (5 s) ran out meanwhile
    const reset = Number(late.headers.get("RateLimit-Reset"));
    expect(reset).toBeLessThanOrEqual(5);
    await sleep(reset * 1000 + 500); // into the next window
    const next = await call("GET", "/api/group_tags/", { token: read });
    expect(next.status).toBe(200);
    expect(Number(next.headers.get("RateLimit-Reset"))).toBeGreaterThanOrEqual(57); // a new window…
    expect(doTrips(next)).toBe(0); // …and its lease already here
    expect(Number(next.headers.get("RateLimit-Remaining"))).toBe(Number(next.headers.get("RateLimit-Limit")) - 1);
    const control = await call("GET", "/api/group_tags/", { token: write });
    expect(Number(control.headers.get("RateLimit-Reset"))).toBeGreaterThanOrEqual(57);
    expect(doTrips(control)).toBe(1);
  }, 80_000);

  it("refuses a lease for a revoked token, and the revoking isolate refuses the token at once", async () => {
    const { group } = await workspace();
    const created = await admin("POST", "/admin/api_tokens/", { access_group: group, permission: "read" });
    const hash = await sha256(created.body.token);
    const stub = guards.get(guards.idFromName(hash));
    expect((await stub.lease(hash, { need: { api: 1 } })).valid).toBe(true);
    expect((await call("GET", "/api/customers/", { token: created.body.token })).status).toBe(200);

    const revoked = await admin("POST", "/admin/revoke_api_token/", { id: created.body.api_token.id });
    expect(revoked.status).toBe(200);
    expect(await stub.lease(hash, { need: { api: 1 } })).toEqual({ valid: false });
    const after = await call("GET", "/api/customers/", { token: created.body.token });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("invalid_api_token");
  });

  it("refuses a revoked token in another isolate within 10 seconds (one lease, 5 s)", async () => {
    const { group } = await workspace();
    const created = await admin("POST", "/admin/api_tokens/", { access_group: group, permission: "write" });
    const other = isolate(await sha256(created.body.token));
    expect((await other.admit()).outcome).toBe("allowed");

    await admin("POST", "/admin/revoke_api_token/", { id: created.body.api_token.id });
    const revokedAt = Date.now();
    let outcome = (await other.admit()).outcome;
    while (outcome !== "invalid_token" && Date.now() - revokedAt < 12_000) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      outcome = (await other.admit()).outcome;
      await other.settle();
    }
    expect(outcome).toBe("invalid_token");
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(LEASE_MS + 1_000);
  }, 20_000);

  it("never lets a read token write through its cached principal (403 read_only_token, nothing changed)", async () => {
    const { write, read } = await workspace();
    const id = unique("ro-cache");
    await createCustomer(write, { provided_id: id, name: "Original" });
    expect((await call("POST", "/api/get_customer/", { token: read, body: { provided_id: id } })).status).toBe(200);

    const refused = await call("POST", "/api/update_customer/", { token: read, body: { provided_id: id, name: "Hijacked" } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("read_only_token");
    expect(doTrips(refused)).toBe(0); // decided from the cached principal
    expect(d1Trips(refused)).toBe(0);
    const after = await call("POST", "/api/get_customer/", { token: write, body: { provided_id: id } });
    expect(after.body.customer.name).toBe("Original");
  });

  it("writes no Durable Object storage per request: a warm call leaves the guard's stored count as it was", async () => {
    const { read } = await workspace();
    const hash = await sha256(read);
    await call("GET", "/api/group_tags/", { token: read });
    const stub = guards.get(guards.idFromName(hash));
    const { runInDurableObject } = await import("cloudflare:test");
    const stored = () =>
      runInDurableObject(
        stub,
        (_instance, state) => state.storage.sql.exec<{ count: number }>("SELECT count FROM windows WHERE bucket = 'api'").one().count,
      );
    const before = await stored();
    const res = await call("GET", "/api/group_tags/", { token: read });
    expect(doTrips(res)).toBe(0);
    expect(await stored()).toBe(before); // the units were handed out with the lease, not per call
    expect(before).toBeGreaterThan(1);
  });
});

describe("reads near the caller, with read-your-writes", () => {
  it("returns X-D1-Bookmark on writes and honours it on a read of another token", async () => {
    const a = await workspace();
    const id = unique("bookmark");
    const created = await call("POST", "/api/create_customer/", { token: a.write, body: { provided_id: id } });
    const bookmark = created.headers.get("X-D1-Bookmark");
    expect(bookmark).toMatch(/^[0-9a-f]+(-[0-9a-f]+)*$/i);

    const read = await call("POST", "/api/get_customer/", {
      token: a.read,
      body: { provided_id: id },
      headers: { "X-D1-Bookmark": bookmark! },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get("X-D1-Session")).toBe("bookmark");
    expect(read.headers.get("X-D1-Bookmark")! >= bookmark!).toBe(true);

    // Without the header another token reads anywhere; a malformed bookmark is ignored.
    const plain = await call("POST", "/api/get_customer/", { token: a.read, body: { provided_id: id } });
    expect(plain.headers.get("X-D1-Session")).toBe("first-unconstrained");
    const junk = await call("POST", "/api/get_customer/", {
      token: a.read,
      body: { provided_id: id },
      headers: { "X-D1-Bookmark": "not a bookmark" },
    });
    expect(junk.status).toBe(200);
    expect(junk.headers.get("X-D1-Session")).toBe("first-unconstrained");
  });

  it("reads a token's own latest write automatically within an isolate", async () => {
    const { write } = await workspace();
    const id = unique("ryw");
    const created = await call("POST", "/api/create_customer/", { token: write, body: { provided_id: id } });
    const updated = await call("POST", "/api/update_customer/", { token: write, body: { provided_id: id, name: "Renamed" } });
    expect(updated.headers.get("X-D1-Bookmark")! >= created.headers.get("X-D1-Bookmark")!).toBe(true);

    const read = await call("POST", "/api/get_customer/", { token: write, body: { provided_id: id } });
    expect(read.status).toBe(200);
    expect(read.body.customer.name).toBe("Renamed");
    expect(read.headers.get("X-D1-Session")).toBe("bookmark");
    expect(read.headers.get("X-D1-Bookmark")! >= updated.headers.get("X-D1-Bookmark")!).toBe(true);
  });

  it("passes a token's newest bookmark to other isolates with their lease renewals (no extra hop)", async () => {
    const { write } = await workspace();
    const hash = await sha256(write);
    const created = await call("POST", "/api/create_customer/", { token: write, body: { provided_id: unique("carried") } });
    const bookmark = created.headers.get("X-D1-Bookmark")!;
    const guard = guards.get(guards.idFromName(hash));
    // This isolate reports what it wrote with its next renewal; an older report does not win.
    await guard.lease(hash, { need: {}, bookmark });
    await guard.lease(hash, { need: {}, bookmark: "0" });
    const other = new TokenLeases();
    const link: GuardLink = { lease: (request) => guard.lease(hash, request), background: () => {}, onCriticalCall: () => {} };
    expect((await other.admit(hash, { needsWrite: false, buckets: ["api"] }, link)).outcome).toBe("allowed");
    expect(other.bookmarkFor(hash)).toBe(bookmark);
  });

  it("retries a not-found once on the primary before answering 404, counted once", async () => {
    const { read } = await workspace();
    const before = await call("GET", "/api/group_tags/", { token: read });
    const missing = await call("POST", "/api/get_customer/", { token: read, body: { provided_id: unique("nobody") } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("customer_not_found");
    expect(d1Trips(missing)).toBe(2); // replica-eligible attempt + the primary's
    expect(primaryTrips(missing)).toBe(1);
    expect(missing.headers.get("X-D1-Session")).toBe("first-primary");
    expect(Number(missing.headers.get("RateLimit-Remaining"))).toBe(Number(before.headers.get("RateLimit-Remaining")) - 1);

    // An unknown route reads nothing and is not retried.
    const route = await call("GET", "/api/no_such_route/", { token: read });
    expect(route.status).toBe(404);
    expect(d1Trips(route)).toBe(0);
  });

  it("finds a customer right after its creation from a token that never saw the write, and opens its embed at once", async () => {
    await seedOrders();
    const { write, read } = await workspace();
    const { schema, demo } = await sources();
    const embedId = await dashboard({ title: "Fresh", panels: [kpi("total", schema, "SELECT SUM(amount) AS value FROM orders")] }, [
      "production",
    ]);
    const id = unique("fresh");
    const created = await call("POST", "/api/create_customer/", { token: write, body: { provided_id: id, mapping: { [schema]: demo } } });
    const got = await call("POST", "/api/get_customer/", { token: read, body: { provided_id: id } });
    expect(got.status).toBe(200);
    expect(d1Trips(got)).toBe(1);
    const page = await call("GET", `/embed/${embedId}?customer_token=${created.body.customer.token}&environment=production`);
    expect(page.status).toBe(200);
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: read,
      body: { provided_id: id, dashboard_embed_id: embedId },
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    expect([doTrips(minted), primaryTrips(minted)]).toEqual([0, 0]);

    // An embed for an unknown customer token is retried on the primary before its 401.
    const unknown = await call("GET", `/embed/${embedId}?customer_token=${"ab".repeat(32)}&environment=production`);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("X-D1-Session")).toBe("first-primary");
    expect(primaryTrips(unknown)).toBeGreaterThanOrEqual(1);
  });
});

describe("isolates share exact limits through the guard", () => {
  it("hands out at most the limit in total, and no lease outlives its window or 5 seconds", async () => {
    const { read } = await workspace();
    const hash = await sha256(read);
    const stub = guards.get(guards.idFromName(hash));
    const perWindow = new Map<number, number>();
    for (let i = 0; i < 20; i++) {
      const answer = await stub.lease(hash, { need: { api: 100 } });
      if (!answer.valid) throw new Error("invalid");
      perWindow.set(answer.windowStart, (perWindow.get(answer.windowStart) ?? 0) + answer.buckets.api.granted);
      expect(answer.ttlMs).toBeLessThanOrEqual(Math.min(LEASE_MS, answer.windowEndsInMs));
      expect(answer.buckets.api.available).toBe(600 - perWindow.get(answer.windowStart)!);
    }
    // RATE_LIMIT_PER_MINUTE is 600 here: never more in one window, and all of it when asked for.
    expect(Math.max(...perWindow.values())).toBe(600);
  });
});

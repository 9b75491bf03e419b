import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ApiTokenGuard } from "../../src/rate-limits/guard";
import { TokenLeases, type GuardLink } from "../../src/rate-limits/leases";
import { dashboard, kpi, seedOrders, sources } from "../helpers/dashboards";
import { call, createCustomer, sha256, unique, workspace, type ApiResponse } from "../helpers/api";

// The read path makes no Durable Object call and no primary-database trip (docs/edge.md).
const guards = (env as unknown as { API_TOKEN_GUARD: DurableObjectNamespace<ApiTokenGuard> }).API_TOKEN_GUARD;

const doTrips = (res: ApiResponse) => Number(res.headers.get("X-DO-Round-Trips"));
const d1Trips = (res: ApiResponse) => Number(res.headers.get("X-D1-Round-Trips"));
const primaryTrips = (res: ApiResponse) => Number(res.headers.get("X-D1-Primary-Round-Trips"));

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

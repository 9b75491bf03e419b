import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LEASE_MS, type ApiTokenGuard } from "../../src/rate-limits/guard";
import { TokenLeases, type GuardLink } from "../../src/rate-limits/leases";
import { admin, call, createCustomer, sha256, unique, workspace, type ApiResponse } from "../helpers/api";

// The API token's guard (src/rate-limits/guard.ts) and the isolate's leases of it
// (src/rate-limits/leases.ts): authentication and rate limits decided near the caller, exact
// across isolates (docs/edge.md). test/limits/lease-exactness.test.ts checks the same with small limits.
const guards = (env as unknown as { API_TOKEN_GUARD: DurableObjectNamespace<ApiTokenGuard> }).API_TOKEN_GUARD;

const doTrips = (res: ApiResponse) => Number(res.headers.get("X-DO-Round-Trips"));
const d1Trips = (res: ApiResponse) => Number(res.headers.get("X-D1-Round-Trips"));

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
